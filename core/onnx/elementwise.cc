// The ONNX elementwise table and the expressions built from it.
#include "core/onnx/elementwise.h"

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/engine/loop_plan.h"

namespace geon::onnx {
namespace {

using S = EwShape;

constexpr ElementwiseOp kOps[] = {
    {"Abs", 1, "abs", S::kUnary},
    {"Neg", 1, "neg", S::kUnary},
    {"Sign", 9, "sign", S::kUnary},
    {"Relu", 1, "relu", S::kUnary},
    {"Not", 1, "not", S::kUnary},
    {"BitwiseNot", 18, "bitwise_not", S::kUnary},
    {"Exp", 1, "exp", S::kUnary},
    {"Log", 1, "log", S::kUnary},
    {"Sqrt", 1, "sqrt", S::kUnary},
    {"Reciprocal", 1, "reciprocal", S::kUnary},
    {"Sin", 7, "sin", S::kUnary},
    {"Cos", 7, "cos", S::kUnary},
    {"Tan", 7, "tan", S::kUnary},
    {"Asin", 7, "asin", S::kUnary},
    {"Acos", 7, "acos", S::kUnary},
    {"Atan", 7, "atan", S::kUnary},
    {"Sinh", 9, "sinh", S::kUnary},
    {"Cosh", 9, "cosh", S::kUnary},
    {"Asinh", 9, "asinh", S::kUnary},
    {"Acosh", 9, "acosh", S::kUnary},
    {"Atanh", 9, "atanh", S::kUnary},
    {"Tanh", 1, "tanh", S::kUnary},
    {"Erf", 9, "erf", S::kUnary},
    {"Floor", 1, "floor", S::kUnary},
    {"Ceil", 1, "ceil", S::kUnary},
    {"Round", 11, "round", S::kUnary},
    {"Sigmoid", 1, "sigmoid", S::kUnary},
    {"Softplus", 1, "softplus", S::kUnary},
    {"Softsign", 1, "softsign", S::kUnary},
    {"IsNaN", 9, "isnan", S::kUnary},
    {"IsInf", 10, "isinf", S::kUnary},
    {"LeakyRelu", 1, "leaky_relu", S::kUnary, "alpha", 0.01f},
    {"Elu", 1, "elu", S::kUnary, "alpha", 1.0f},
    {"Selu", 1, "selu", S::kUnary, "alpha", 1.67326319217681884765625f, "gamma",
     1.05070102214813232421875f},
    {"Celu", 12, "celu", S::kUnary, "alpha", 1.0f},
    {"Gelu", 20, "gelu", S::kUnary},  // "gelu_tanh" when approximate is "tanh"
    {"HardSigmoid", 1, "hard_sigmoid", S::kUnary, "alpha", 0.2f, "beta", 0.5f},
    {"HardSwish", 14, "hard_swish", S::kUnary},
    {"Mish", 18, "mish", S::kUnary},
    {"Swish", 24, "swish", S::kUnary, "alpha", 1.0f},
    {"ThresholdedRelu", 10, "thresholded_relu", S::kUnary, "alpha", 1.0f},
    {"Shrink", 9, "shrink", S::kUnary, "lambd", 0.5f, "bias", 0.0f},
    {"Add", 1, "add", S::kBinary},
    {"Sub", 1, "sub", S::kBinary},
    {"Mul", 1, "mul", S::kBinary},
    {"Div", 1, "div", S::kBinary},
    {"Pow", 1, "pow", S::kBinary},
    {"Mod", 10, "mod", S::kBinary},  // "fmod" when the fmod attribute is 1
    {"PRelu", 1, "prelu", S::kBinary},
    {"Equal", 7, "equal", S::kBinary},
    {"Less", 7, "less", S::kBinary},
    {"LessOrEqual", 12, "less_equal", S::kBinary},
    {"Greater", 7, "greater", S::kBinary},
    {"GreaterOrEqual", 12, "greater_equal", S::kBinary},
    {"And", 7, "and", S::kBinary},
    {"Or", 7, "or", S::kBinary},
    {"Xor", 7, "xor", S::kBinary},
    {"BitwiseAnd", 18, "bitwise_and", S::kBinary},
    {"BitwiseOr", 18, "bitwise_or", S::kBinary},
    {"BitwiseXor", 18, "bitwise_xor", S::kBinary},
    {"BitShift", 11, "shift_left", S::kBinary},  // "shift_right" by the direction attribute
    {"Sum", 1, "add", S::kVariadic},
    {"Mean", 1, "add", S::kVariadic},
    {"Max", 1, "max", S::kVariadic},
    {"Min", 1, "min", S::kVariadic},
    {"Where", 9, "where", S::kWhere},
};

// The engines take at most this many inputs in one pass (destination and one spare operand
// are the rest of the loop plan's operands).
constexpr int kMaxInputs = kMaxLoopOperands - 2;

std::string_view resolved_engine_op(const ElementwiseOp& e, const Node& n) {
  if (e.onnx == "Mod" && attr_int(n, "fmod", 0) == 1) return "fmod";
  if (e.onnx == "BitShift" && attr_string(n, "direction", "") == "RIGHT") return "shift_right";
  if (e.onnx == "Gelu" && attr_string(n, "approximate", "none") == "tanh") return "gelu_tanh";
  if (e.onnx == "IsInf" &&
      (attr_int(n, "detect_positive", 1) != 1 || attr_int(n, "detect_negative", 1) != 1))
    return "isinf_signed";
  return e.engine;
}

Reason operand_count_reason(const ElementwiseOp& e, const Node& n) {
  const int given = present_inputs(n);
  const auto need = [&](int k) -> Reason {
    for (int i = 0; i < k; ++i)
      if (!has_input(n, i))
        return n.op + " needs " + std::to_string(k) + " inputs; input " + std::to_string(i) +
               " is missing";
    if (given != k)
      return n.op + " takes " + std::to_string(k) + " inputs, the node has " +
             std::to_string(given);
    return std::nullopt;
  };
  switch (e.shape) {
    case S::kUnary:
      return need(1);
    case S::kBinary:
      return need(2);
    case S::kWhere:
      return need(3);
    case S::kVariadic:
      if (given < 1) return n.op + " has no inputs";
      if (given > kMaxInputs)
        return n.op + " with " + std::to_string(given) + " inputs: the engine fuses at most " +
               std::to_string(kMaxInputs);
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::span<const ElementwiseOp> elementwise_ops() { return kOps; }

const ElementwiseOp* find_elementwise(std::string_view onnx_op) {
  for (const ElementwiseOp& e : kOps)
    if (e.onnx == onnx_op) return &e;
  return nullptr;
}

std::vector<KernelEntry> with_elementwise_rows(decltype(KernelEntry::supports) supports,
                                               decltype(KernelEntry::create) create,
                                               std::span<const KernelEntry> others) {
  std::vector<KernelEntry> rows;
  rows.reserve(std::size(kOps) + others.size());
  for (const ElementwiseOp& e : kOps) rows.push_back({"", e.onnx, e.since, supports, create});
  rows.insert(rows.end(), others.begin(), others.end());
  return rows;
}

ElementwiseSpec elementwise_spec(const Node& n) {
  const ElementwiseOp* e = find_elementwise(n.op);
  if (!e) fail(ErrorCode::kNotSupported, "node '" + n.name + "': " + n.op + " is not elementwise");
  ElementwiseSpec s;
  s.engine_op = std::string(resolved_engine_op(*e, n));
  s.shape = e->shape;
  if (!e->alpha.empty()) s.params.alpha = attr_float(n, e->alpha, e->alpha_default);
  if (!e->beta.empty()) s.params.beta = attr_float(n, e->beta, e->beta_default);
  if (s.engine_op == "isinf_signed") {  // which signs count: its params
    s.params.alpha = attr_int(n, "detect_positive", 1) != 0 ? 1 : 0;
    s.params.beta = attr_int(n, "detect_negative", 1) != 0 ? 1 : 0;
  }
  s.mean = n.op == "Mean";
  s.legacy = legacy_broadcast(n);
  return s;
}

Reason elementwise_reason(const Graph& g, const Node& n, std::string_view set,
                          EngineOpCheck has_op) {
  const ElementwiseOp* e = find_elementwise(n.op);
  if (!e) return std::string(set) + " has no elementwise op " + n.op;
  if (Reason r = operand_count_reason(*e, n)) return r;
  if (Reason r = engine_io_reason(g, n)) return r;
  // The compute type comes from the data operand (Where's first input is the condition).
  const DType t = input_dtype(g, n, e->shape == S::kWhere ? 1 : 0);
  if (Reason r = has_op(resolved_engine_op(*e, n), t)) return r;
  if (n.op == "BitShift") {
    const std::string dir = attr_string(n, "direction", "");
    if (dir != "LEFT" && dir != "RIGHT") return "BitShift direction '" + dir + "' is unknown";
  }
  if (n.op == "Gelu") {
    const std::string approx = attr_string(n, "approximate", "none");
    if (approx != "none" && approx != "tanh") return "Gelu approximate '" + approx + "' is unknown";
  }
  if (n.op == "Celu" && attr_float(n, "alpha", 1.0f) == 0)
    return "Celu alpha 0 is not defined (Celu divides by it)";
  // ONNX defines Mean for floating types only; an integer mean would need a rounding rule.
  if (n.op == "Mean" && !is_floating(t))
    return "Mean of " + std::string(dtype_name(t)) + " is not defined (floating types only)";
  return std::nullopt;
}

Expr elementwise_expr(const ElementwiseSpec& spec, std::span<const DType> inputs) {
  ExprBuilder b(inputs);
  const int k = static_cast<int>(inputs.size());
  switch (spec.shape) {
    case S::kUnary:
      b.apply(spec.engine_op, {b.input(0)}, {}, spec.params);
      break;
    case S::kBinary:
      b.apply(spec.engine_op, {b.input(0), b.input(1)}, {}, spec.params);
      break;
    case S::kWhere:
      b.apply(spec.engine_op, {b.input(0), b.input(1), b.input(2)});
      break;
    case S::kVariadic: {
      ExprArg acc = b.input(0);
      // One input still needs a node: an expression's value is its last node.
      if (k == 1) acc = b.apply("identity", {acc});
      for (int i = 1; i < k; ++i) acc = b.apply(spec.engine_op, {acc, b.input(i)});
      if (spec.mean) b.apply("identity", {acc}, {1.0 / static_cast<double>(k)});
      break;
    }
  }
  return b.build();
}

ElementwiseInputs elementwise_inputs(const KernelContext& ctx) {
  ElementwiseInputs in;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const TensorRef& t = ctx.input(i);
    if (!t.present()) continue;  // an omitted optional input
    in.shape = in.srcs.empty() ? t.desc.shape : broadcast_shapes(in.shape, t.desc.shape);
    in.srcs.emplace_back(t.desc, t.data);
    in.dtypes.push_back(t.desc.dtype);
  }
  return in;
}

ElementwiseInputs elementwise_inputs(const KernelContext& ctx, const ElementwiseSpec& spec) {
  if (!spec.legacy.on || ctx.num_inputs() != 2) return elementwise_inputs(ctx);
  const TensorRef& a = ctx.input(0);
  const TensorRef& b = ctx.input(1);
  ElementwiseInputs in;
  const TensorDesc bv = legacy_operand(spec.legacy, a.desc, b.desc);
  in.shape = broadcast_shapes(a.desc.shape, bv.shape);
  in.srcs.emplace_back(a.desc, a.data);
  in.srcs.emplace_back(bv, b.data);
  in.dtypes = {a.desc.dtype, b.desc.dtype};
  return in;
}

}  // namespace geon::onnx
