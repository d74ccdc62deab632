// Import rules: ops that reduce or scan along one axis without dropping it: CumSum, CumProd,
// TopK (the axis shrinks to k), Softmax, LogSoftmax, Hardmax and LpNormalization (same axes as
// the input).
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/reduction.h"

namespace geon::importer {
namespace {

std::string op_version(RuleContext& c) {
  return std::string(c.node().op) + "-" + std::to_string(c.opset());
}

void require_01(RuleContext& c, const char* attr) {
  const int64_t v = c.attr_int(attr, 0);
  c.require(v == 0 || v == 1,
            "attribute '" + std::string(attr) + "' is " + std::to_string(v) + ", must be 0 or 1");
}

// ---- CumSum / CumProd -------------------------------------------------------------------------

void cumulative(RuleContext& c) {
  const DType t = c.input_dtype(0);
  const bool half = t == DType::kFloat16 || t == DType::kBFloat16;
  const bool ok = t == DType::kFloat || t == DType::kDouble || t == DType::kInt32 ||
                  t == DType::kInt64 || t == DType::kUInt32 || t == DType::kUInt64 ||
                  (half && c.opset() >= 14);
  if (!ok)
    c.fail("input 0 has dtype " + std::string(dtype_name(t)) + ", which " + op_version(c) +
           " does not accept");
  const Value& axis = c.input(1);
  if (axis.dtype() != DType::kInt32 && axis.dtype() != DType::kInt64)
    c.fail("input 1 (axis) has dtype " + std::string(dtype_name(axis.dtype())) +
           ", must be int32 or int64");
  if (axis.rank_known) {
    auto n = static_lengths(axis.axes);
    c.require(axis.rank() == 0 || (axis.rank() == 1 && (!n || (*n)[0] == 1)),
              "input 1 (axis) must be a scalar, got " + to_string_with_lengths(axis.axes));
  }
  require_01(c, "exclusive");
  require_01(c, "reverse");
  const Value& x = c.input(0);
  if (x.rank_known) {
    if (auto a = c.int_contents(1); a && a->size() == 1)
      c.normalize_axis((*a)[0], x.rank(), "input 1 (axis)");
  }
  same_as_input(c);
}

// ---- TopK ---------------------------------------------------------------------------------

void topk_with(RuleContext& c, std::optional<Length> k) {
  const DType t = c.input_dtype(0);
  const bool ok = t == DType::kFloat || t == DType::kDouble || t == DType::kFloat16 ||
                  (t == DType::kBFloat16 && c.opset() >= 24) ||
                  (is_integer(t) && !is_packed(t) && c.opset() >= 11);
  if (!ok)
    c.fail("input 0 has dtype " + std::string(dtype_name(t)) + ", which " + op_version(c) +
           " does not accept");
  if (c.opset() >= 11) {
    require_01(c, "largest");
    require_01(c, "sorted");
  }
  const Value& x = c.input(0);
  if (!x.rank_known) {
    c.set_output_unknown_rank(0, t);
    c.set_output_unknown_rank(1, DType::kInt64);
    return;
  }
  c.require(x.rank() >= 1, "input 0 must have rank >= 1, got a scalar");
  const int axis = c.normalize_axis(c.attr_int("axis", -1), x.rank(), "attribute 'axis'");
  const Length& n = x.axes[axis].length;
  Length len = k.value_or(Length::unknown());
  if (len.is_static() && n.is_static())
    c.require(len.value <= n.value, "k is " + std::to_string(len.value) + ", more than the " +
                                        std::to_string(n.value) + " entries along axis " +
                                        std::to_string(axis));
  // Values and indices share the new axis: the k entries kept along `axis`.
  std::vector<Axis> out = x.axes.list();
  out[axis] = make_axis_like(c.graph().factory(), out[axis], len);
  const Axes axes(std::move(out));
  c.set_output(0, t, axes);
  c.set_output(1, DType::kInt64, axes);
}

void topk_attr(RuleContext& c) {  // opset 1-9: k is an attribute
  const int64_t k = c.attr_int("k");
  c.require(k >= 0, "attribute 'k' is " + std::to_string(k) + ", must be >= 0");
  topk_with(c, Length::known(k));
}

void topk_input(RuleContext& c) {  // opset 10: k is a 1-D input of one element
  require_dtype(c, 1, {DType::kInt64});
  const Value& kv = c.input(1);
  if (kv.rank_known) {
    auto n = static_lengths(kv.axes);
    c.require(kv.rank() <= 1 && (!n || element_count(*n) == 1),
              "input 1 (K) must hold exactly one value, got " + to_string_with_lengths(kv.axes));
  }
  std::optional<Length> k;
  if (auto e = c.contents(1); e && e->size() == 1) k = (*e)[0];
  if (auto v = c.int_contents(1); v && v->size() == 1) {
    c.require((*v)[0] >= 0, "input 1 (K) is " + std::to_string((*v)[0]) + ", must be >= 0");
    k = Length::known((*v)[0]);
  }
  topk_with(c, k);
}

// ---- Softmax, LogSoftmax, Hardmax, LpNormalization --------------------------------------

void require_float(RuleContext& c, int since_bf16) {
  const DType t = c.input_dtype(0);
  const bool ok = t == DType::kFloat || t == DType::kDouble || t == DType::kFloat16 ||
                  (t == DType::kBFloat16 && c.opset() >= since_bf16);
  if (!ok)
    c.fail("input 0 has dtype " + std::string(dtype_name(t)) + ", which " + op_version(c) +
           " does not accept");
}

// Before opset 13 the input is coerced to 2-D at `axis` (default 1), which may also be the
// rank itself ([N] at 1 is [N, 1]); from 13 the op runs along one axis (default -1).
void softmax_like(RuleContext& c) {
  require_float(c, 13);
  const Value& x = c.input(0);
  if (x.rank_known) {
    const int r = x.rank();
    if (c.opset() < 13) {
      const int64_t a = c.attr_int("axis", 1);
      const int64_t hi = c.opset() < 11 ? r : r - 1;
      c.require(a >= -r && a <= hi, "attribute 'axis' " + std::to_string(a) +
                                        " is out of range for rank " + std::to_string(r));
    } else {
      c.require(r >= 1, "input 0 must have rank >= 1, got a scalar");
      c.normalize_axis(c.attr_int("axis", -1), r, "attribute 'axis'");
    }
  }
  same_as_input(c);
}

void lp_normalization(RuleContext& c) {
  require_float(c, 22);
  const int64_t p = c.attr_int("p", 2);
  c.require(p == 1 || p == 2, "attribute 'p' is " + std::to_string(p) + ", must be 1 or 2");
  const Value& x = c.input(0);
  if (x.rank_known) {
    c.require(x.rank() >= 1, "input 0 must have rank >= 1, got a scalar");
    c.normalize_axis(c.attr_int("axis", -1), x.rank(), "attribute 'axis'");
  }
  same_as_input(c);
}

}  // namespace

std::span<const RuleEntry> scan_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "CumSum", 11, cumulative},
      {"", "CumSum", 14, cumulative},  // float16, bfloat16
      {"", "CumProd", 26, cumulative},
      {"", "TopK", 1, topk_attr},
      {"", "TopK", 10, topk_input},
      {"", "TopK", 11, topk_input},  // largest, sorted, negative axis, integer types
      {"", "Softmax", 1, softmax_like},
      {"", "Softmax", 13, softmax_like},
      {"", "LogSoftmax", 1, softmax_like},
      {"", "LogSoftmax", 13, softmax_like},
      {"", "Hardmax", 1, softmax_like},
      {"", "Hardmax", 13, softmax_like},
      {"", "LpNormalization", 1, lp_normalization},
      {"", "LpNormalization", 22, lp_normalization},  // bfloat16
  };
  return rules;
}

}  // namespace geon::importer
