// Import rules: unary math (Abs ... Atanh, Erf, IsNaN, IsInf, Not, BitwiseNot) and the
// activations that are one engine op without parameters (Relu, Sigmoid, Tanh, Softplus,
// Softsign). The output has the input's very axes; its dtype is the input's (bool for the
// predicates). The accepted dtypes follow each schema version.
#include <string>
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/elementwise.h"

namespace geon::importer {
namespace {

struct UnarySpec {
  std::string_view op;
  std::string_view engine;  // the engine op that folds it
  std::vector<TypeStep> types;
  bool predicate = false;  // output is bool
};

const std::vector<TypeStep> kFloatMath = {{1, kFloat3}, {13, kFloat4}};
const std::vector<TypeStep> kTrig7 = {{7, kFloat3}, {22, kFloat4}};
const std::vector<TypeStep> kTrig9 = {{9, kFloat3}, {22, kFloat4}};
const std::vector<TypeStep> kAct22 = {{1, kFloat3}, {22, kFloat4}};

const std::vector<UnarySpec>& specs() {
  static const std::vector<UnarySpec> s = {
      {"Abs", "abs", {{1, kFloat3}, {6, kFloat3 | kInts8}, {13, kFloat4 | kInts8}}},
      {"Neg", "neg", {{1, kFloat3}, {6, kFloat3 | kSigned4}, {13, kFloat4 | kSigned4}}},
      {"Exp", "exp", kFloatMath},
      {"Log", "log", kFloatMath},
      {"Sqrt", "sqrt", kFloatMath},
      {"Reciprocal", "reciprocal", kFloatMath},
      {"Floor", "floor", kFloatMath},
      {"Ceil", "ceil", kFloatMath},
      {"Round", "round", {{11, kFloat3}, {22, kFloat4}}},
      {"Sign", "sign", {{9, kFloat3 | kInts8}, {13, kFloat4 | kInts8}}},
      {"Sin", "sin", kTrig7},
      {"Cos", "cos", kTrig7},
      {"Tan", "tan", kTrig7},
      {"Asin", "asin", kTrig7},
      {"Acos", "acos", kTrig7},
      {"Atan", "atan", kTrig7},
      {"Sinh", "sinh", kTrig9},
      {"Cosh", "cosh", kTrig9},
      {"Asinh", "asinh", kTrig9},
      {"Acosh", "acosh", kTrig9},
      {"Atanh", "atanh", kTrig9},
      {"Erf", "erf", {{9, kFloat3 | kInts8}, {13, kFloat4}}},
      {"IsNaN", "isnan", {{9, kFloat3}, {13, kFloat4}, {20, kFloat4 | kFloat8}}, true},
      {"Not", "not", {{1, kBoolSet}}},
      {"BitwiseNot", "bitwise_not", {{18, kInts8}}},
      {"Relu", "relu", {{1, kFloat3}, {13, kFloat4}, {14, kFloat4 | kSigned4}}},
      {"Sigmoid", "sigmoid", kFloatMath},
      {"Tanh", "tanh", kFloatMath},
      {"Softplus", "softplus", kAct22},
      {"Softsign", "softsign", kAct22},
  };
  return s;
}

const UnarySpec& spec_of(const RuleContext& c) {
  for (const UnarySpec& s : specs())
    if (s.op == c.node().op) return s;
  c.fail("no unary spec for this op");  // unreachable: only registered ops get here
}

// Checks the single input against the op's dtypes at this opset and gives the output the
// input's axes; returns the input dtype.
void unary(RuleContext& c) {
  const UnarySpec& s = spec_of(c);
  require_input_count(c, 1, 1);
  require_types(c, 0, types_at(s.types, c.opset()));
  same_as_input(c, 0, 0, s.predicate ? DType::kBool : DType::kUndefined);
  const std::string_view op = s.engine;
  fold_expr(c, [op](ExprBuilder& b, std::span<const ExprArg> a) { return b.apply(op, {a[0]}); });
}

// IsInf: detect_negative / detect_positive choose which infinities count.
void is_inf(RuleContext& c) {
  require_input_count(c, 1, 1);
  require_types(c, 0,
                types_at(std::vector<TypeStep>{{10, type_set({DType::kFloat, DType::kDouble})},
                                               {20, kFloat4 | kFloat8}},
                         c.opset()));
  const int64_t neg = c.attr_int("detect_negative", 1);
  const int64_t pos = c.attr_int("detect_positive", 1);
  if ((neg != 0 && neg != 1) || (pos != 0 && pos != 1))
    c.fail("attributes 'detect_negative' and 'detect_positive' must be 0 or 1");
  same_as_input(c, 0, 0, DType::kBool);
  fold_expr(c,
            [neg, pos](ExprBuilder& b, std::span<const ExprArg> a) {
              const ExprArg inf = b.apply("isinf", {a[0]});
              if (neg && pos) return inf;
              // a[1] is the scalar 0: keep the infinities on the requested side.
              const ExprArg side = neg   ? b.apply("less", {a[0], a[1]})
                                   : pos ? b.apply("greater", {a[0], a[1]})
                                         : b.apply("less", {a[0], a[0]});
              return b.apply("and", {inf, side});
            },
            {0.0});
}

}  // namespace

std::span<const RuleEntry> elementwise_unary_rules() {
  static const std::vector<RuleEntry> rules = [] {
    std::vector<RuleEntry> r;
    for (const UnarySpec& s : specs()) r.push_back({"", s.op, s.types.front().since, unary});
    r.push_back({"", "IsInf", 10, is_inf});
    return r;
  }();
  return rules;
}

}  // namespace geon::importer
