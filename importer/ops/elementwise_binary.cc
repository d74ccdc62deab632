// Import rules: binary arithmetic (Add, Sub, Mul, Div, Pow, Mod, BitShift, Bitwise*), logic
// (And, Or, Xor), comparisons (Equal, Less, LessOrEqual, Greater, GreaterOrEqual) and the
// variadic Max, Min, Sum and Mean. Outputs take the numpy broadcast of the inputs; before
// opset 7 the binary ops broadcast only with the `broadcast` attribute (B onto A from `axis`),
// and before opset 8 the variadic ops require equal shapes. Constant inputs fold through the
// engine; shape-like integer entries (Shape -> Gather -> Mul ...) go through the arithmetic and
// comparisons, symbols included where the result is still known (x + 0, x * 1, max(x, x)).
#include <string>
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/elementwise.h"
#include "importer/ops/shape_contents.h"

namespace geon::importer {
namespace {

struct BinarySpec {
  std::string_view op;
  std::string_view engine;
  std::vector<TypeStep> types;
  bool predicate = false;  // bool output
  int legacy_until = 0;    // opsets below this use the `broadcast` / `axis` attributes
};

const std::vector<TypeStep> kArith = {
    {1, kFloat3}, {6, kFloat3 | kInt32_64}, {13, kFloat4 | kInt32_64}, {14, kFloat4 | kInts8}};
const std::vector<TypeStep> kOrder = {{1, kFloat3}, {9, kFloat3 | kInts8}, {13, kFloat4 | kInts8}};
const std::vector<TypeStep> kOrderEq = {{12, kFloat3 | kInts8}, {16, kFloat4 | kInts8}};

const std::vector<BinarySpec>& specs() {
  static const std::vector<BinarySpec> s = {
      {"Add", "add", kArith, false, 7},
      {"Sub", "sub", kArith, false, 7},
      {"Mul", "mul", kArith, false, 7},
      {"Div", "div", kArith, false, 7},
      {"Pow", "pow", {{1, kFloat3}}, false, 7},  // from 12 X and Y have separate dtypes
      {"Mod", "mod", {{10, kFloat3 | kInts8}, {13, kFloat4 | kInts8}}},
      {"BitShift", "shift_left", {{11, kUnsigned4}}},
      {"BitwiseAnd", "bitwise_and", {{18, kInts8}}},
      {"BitwiseOr", "bitwise_or", {{18, kInts8}}},
      {"BitwiseXor", "bitwise_xor", {{18, kInts8}}},
      {"And", "and", {{1, kBoolSet}}, true, 7},
      {"Or", "or", {{1, kBoolSet}}, true, 7},
      {"Xor", "xor", {{1, kBoolSet}}, true, 7},
      {"Equal",
       "equal",
       {{1, kBoolSet | type_set({DType::kInt32, DType::kInt64})},
        {11, kBoolSet | kInts8 | kFloat3},
        {13, kBoolSet | kInts8 | kFloat4},
        {19, kBoolSet | kInts8 | kFloat4 | kStringSet}},
       true,
       7},
      {"Less", "less", kOrder, true, 7},
      {"Greater", "greater", kOrder, true, 7},
      {"LessOrEqual", "less_equal", kOrderEq, true},
      {"GreaterOrEqual", "greater_equal", kOrderEq, true},
  };
  return s;
}

template <class S>
const S& find_spec(const RuleContext& c, const std::vector<S>& all) {
  for (const S& s : all)
    if (s.op == c.node().op) return s;
  c.fail("no spec for this op");  // unreachable: only registered ops get here
}

// ---- shape-like entries ------------------------------------------------------------------------

// The comparisons, Max, Min and Mod on entries (Add, Sub, Mul and Div go through
// shape_contents' binary_contents): numbers are computed; a symbol against itself gives what
// equality implies (max(x, x) = x, x == x); anything else is unknown.
Length combine_entry(std::string_view op, const Length& a, const Length& b) {
  if (a.is_static() && b.is_static()) {
    const int64_t x = a.value, y = b.value;
    if (op == "max") return entry(std::max(x, y));
    if (op == "min") return entry(std::min(x, y));
    if (op == "equal") return entry(x == y);
    if (op == "less") return entry(x < y);
    if (op == "less_equal") return entry(x <= y);
    if (op == "greater") return entry(x > y);
    if (op == "greater_equal") return entry(x >= y);
    if ((op == "mod" || op == "fmod") && y != 0) {
      if (y == -1) return entry(0);
      int64_t r = x % y;
      if (op == "mod" && r != 0 && ((r < 0) != (y < 0))) r += y;
      return entry(r);
    }
    return Length::unknown();
  }
  if (a.is_symbol() && a == b) {
    if (op == "max" || op == "min") return a;
    if (op == "equal" || op == "less_equal" || op == "greater_equal") return entry(1);
    if (op == "less" || op == "greater") return entry(0);
  }
  return Length::unknown();
}

void entries_through(RuleContext& c, std::string_view op) {
  if (op == "add") return binary_contents(c, ContentsOp::kAdd);
  if (op == "sub") return binary_contents(c, ContentsOp::kSub);
  if (op == "mul") return binary_contents(c, ContentsOp::kMul);
  if (op == "div") return binary_contents(c, ContentsOp::kDiv);
  if (op == "max" || op == "min" || op == "mod" || op == "fmod" || op == "equal" || op == "less" ||
      op == "less_equal" || op == "greater" || op == "greater_equal")
    binary_entries(c, 0, 1,
                   [op](const Length& a, const Length& b) { return combine_entry(op, a, b); });
}

// ---- rules ------------------------------------------------------------------------------------

std::string_view engine_op(RuleContext& c, const BinarySpec& s) {
  if (s.op == "Mod") {
    const int64_t fmod = c.attr_int("fmod", 0);
    if (fmod != 0 && fmod != 1)
      c.fail("attribute 'fmod' must be 0 or 1, got " + std::to_string(fmod));
    const DType t = c.input_dtype(0);
    if (fmod == 0 && is_floating(t))
      c.fail("attribute 'fmod' is 0 but the inputs are " + std::string(dtype_name(t)) +
             "; floating-point Mod requires fmod=1");
    return fmod ? "fmod" : "mod";
  }
  if (s.op == "BitShift") {
    const std::string dir = c.attr_string("direction");
    if (dir != "LEFT" && dir != "RIGHT")
      c.fail("attribute 'direction' is '" + dir + "'; it must be 'LEFT' or 'RIGHT'");
    return dir == "LEFT" ? "shift_left" : "shift_right";
  }
  return s.engine;
}

void binary(RuleContext& c) {
  const BinarySpec& s = find_spec(c, specs());
  require_input_count(c, 2, 2);
  DType t;
  bool foldable = true;
  if (s.op == "Pow" && c.opset() >= 12) {
    // Pow-12: X and Y have separate dtype sets; the output is X's.
    const TypeSet base = type_set({DType::kInt32, DType::kInt64});
    require_types(c, 0, (c.opset() >= 13 ? kFloat4 : kFloat3) | base, "X");
    require_types(c, 1, (c.opset() >= 15 ? kFloat4 : kFloat3) | kInts8, "Y");
    t = c.input_dtype(0);
    // An integer base with a fractional exponent: the engine would truncate the exponent first.
    foldable = !(is_integer(t) && is_floating(c.input_dtype(1)));
  } else {
    t = common_dtype(c, {0, 1});
    require_types(c, 0, types_at(s.types, c.opset()));
  }
  const std::string_view op = engine_op(c, s);
  const DType out = s.predicate ? DType::kBool : t;
  if (c.opset() < s.legacy_until) {
    legacy_broadcast_output(c, out);
    // B placed anywhere but A's suffix does not line up with the engine's right alignment.
    if (c.has_attr("axis") && c.input(0).rank_known && c.input(1).rank_known) {
      const int ra = c.input(0).rank(), rb = c.input(1).rank();
      const int64_t axis = c.attr_int("axis");
      if ((axis < 0 ? axis + ra : axis) != ra - rb) foldable = false;
    }
  } else {
    broadcast_output(c, out);
  }
  if (foldable)
    fold_expr(c, [op](ExprBuilder& b, std::span<const ExprArg> a) {
      return b.apply(op, {a[0], a[1]});
    });
  entries_through(c, op);
}

// ---- variadic ---------------------------------------------------------------------------------

struct VariadicSpec {
  std::string_view op;
  std::string_view engine;  // pairwise engine op
  std::vector<TypeStep> types;
};

const std::vector<VariadicSpec>& variadic_specs() {
  static const std::vector<VariadicSpec> s = {
      {"Max", "max", {{1, kFloat3}, {12, kFloat3 | kInts8}, {13, kFloat4 | kInts8}}},
      {"Min", "min", {{1, kFloat3}, {12, kFloat3 | kInts8}, {13, kFloat4 | kInts8}}},
      {"Sum", "add", {{1, kFloat3}, {13, kFloat4}}},
      {"Mean", "add", {{1, kFloat3}, {13, kFloat4}}},
  };
  return s;
}

void variadic(RuleContext& c) {
  const VariadicSpec& s = find_spec(c, variadic_specs());
  if (c.num_inputs() < 1) c.fail("takes at least 1 input, got 0");
  for (int i = 0; i < c.num_inputs(); ++i)
    if (!c.has_input(i))
      c.fail("input " + std::to_string(i) + " is empty; every input is required");
  require_tensor_inputs(c);
  const DType t = common_dtype(c);
  require_types(c, 0, types_at(s.types, c.opset()));
  if (c.opset() < 8) {
    // No broadcasting before opset 8: every input has the first one's shape.
    const Value& first = c.input(0);
    for (int i = 1; i < c.num_inputs(); ++i) {
      const Value& v = c.input(i);
      if (!first.rank_known || !v.rank_known) continue;
      bool same = v.rank() == first.rank();
      for (int d = 0; same && d < v.rank(); ++d)
        same =
            compare_lengths(v.axes[d].length, first.axes[d].length) != LengthRelation::kDifferent;
      if (!same)
        c.fail("input " + std::to_string(i) + " has shape " + to_string_with_lengths(v.axes) +
               " but input 0 has " + to_string_with_lengths(first.axes) +
               "; before opset 8 the inputs must have equal shapes");
    }
  }
  broadcast_output(c, t);
  const std::string_view op = s.engine;
  const bool mean = s.op == "Mean";
  const double n = c.num_inputs();
  fold_expr(c, [op, mean, n](ExprBuilder& b, std::span<const ExprArg> a) {
    ExprArg r = a[0];
    for (size_t i = 1; i < a.size(); ++i) r = b.apply(op, {r, a[i]});
    if (mean || a.size() == 1) r = b.apply("identity", {r}, {mean ? 1 / n : 1});
    return r;
  });
  if (c.num_inputs() == 2) entries_through(c, op);
}

}  // namespace

std::span<const RuleEntry> elementwise_binary_rules() {
  static const std::vector<RuleEntry> rules = [] {
    std::vector<RuleEntry> r;
    for (const BinarySpec& s : specs()) {
      r.push_back({"", s.op, s.types.front().since, binary});
      // numpy broadcasting replaces the `broadcast` attribute
      if (s.legacy_until) r.push_back({"", s.op, s.legacy_until, binary});
    }
    r.push_back({"", "Pow", 12, binary});  // X and Y dtypes decoupled
    for (const VariadicSpec& s : variadic_specs()) {
      r.push_back({"", s.op, 1, variadic});
      r.push_back({"", s.op, 8, variadic});  // numpy broadcasting
    }
    return r;
  }();
  return rules;
}

}  // namespace geon::importer
