// Import rules: the quantization family. This file has QuantizeLinear, DequantizeLinear and
// DynamicQuantizeLinear; quantization_conv_matmul.cc has QLinearConv, ConvInteger,
// QLinearMatMul and MatMulInteger. Outputs keep the input's very axes; the scale's shape says
// the granularity: a scalar (per tensor), a 1-D tensor along `axis` (per axis, opset 13 on) or
// the input's shape with `axis` divided into blocks of `block_size` (blocked, opset 21 on).
// The output dtype comes from the zero point or `output_dtype` (quantize) or from the scale or
// `output_dtype` (dequantize), as each version says. Quantized constants are not folded: the
// quantized form is what int8 kernels want to see.
#include <string>
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/elementwise.h"
#include "importer/ops/families.h"

namespace geon::importer {
namespace {

// The quantized dtypes (QuantizeLinear's output, DequantizeLinear's input) by version.
TypeSet quantized_types(int opset) {
  TypeSet s = type_set({DType::kInt8, DType::kUInt8});
  if (opset >= 19) s |= kFloat8;
  if (opset >= 21) s |= type_set({DType::kInt16, DType::kUInt16, DType::kUInt4, DType::kInt4});
  if (opset >= 23) s |= type_bit(DType::kFloat4E2M1);
  if (opset >= 25) s |= type_set({DType::kUInt2, DType::kInt2});
  return s;
}

std::string shape_text(const Value& v) { return to_string_with_lengths(v.axes); }

// Checks the scale (input 1) and zero point (input 2) against x (input 0): same shape as each
// other, and a scalar, a 1-D tensor of x's length along `axis`, or x's shape with `axis` in
// blocks of `block_size`.
void check_granularity(RuleContext& c) {
  const Value& x = c.input(0);
  const Value& scale = c.input(1);
  const bool per_axis_ok = c.opset() >= 13;
  const int64_t axis_attr = per_axis_ok ? c.attr_int("axis", 1) : 1;
  const int64_t block = c.opset() >= 21 ? c.attr_int("block_size", 0) : 0;
  if (block < 0) c.fail("attribute 'block_size' must be positive, got " + std::to_string(block));
  if (c.has_input(2)) {
    const Value& zp = c.input(2);
    const auto one_element = [](const Value& v) {
      auto dims = static_lengths(v.axes);
      return dims && element_count(*dims) == 1 && v.rank() <= 1;
    };
    // A scalar and a one-element vector are both per tensor.
    if (scale.rank_known && zp.rank_known && !(one_element(scale) && one_element(zp))) {
      bool same = zp.rank() == scale.rank();
      for (int d = 0; same && d < zp.rank(); ++d)
        same =
            compare_lengths(zp.axes[d].length, scale.axes[d].length) != LengthRelation::kDifferent;
      if (!same)
        c.fail("input 2 (zero point) has shape " + shape_text(zp) + " but input 1 (scale) has " +
               shape_text(scale) + "; they must be equal");
    }
  }
  if (!scale.rank_known) return;
  auto scale_dims = static_lengths(scale.axes);
  if (block > 0) {
    if (!x.rank_known) return;
    if (scale.rank() != x.rank())
      c.fail("input 1 (scale) has rank " + std::to_string(scale.rank()) + " but input 0 has rank " +
             std::to_string(x.rank()) + "; blocked quantization needs equal ranks");
    const int axis = c.normalize_axis(axis_attr, x.rank());
    if (x.rank() == 0) c.fail("blocked quantization needs an input of rank 1 or more");
    for (int d = 0; d < x.rank(); ++d) {
      const Length& lx = x.axes[d].length;
      const Length& ls = scale.axes[d].length;
      if (d != axis) {
        if (compare_lengths(lx, ls) == LengthRelation::kDifferent)
          c.fail("input 1 (scale) has shape " + shape_text(scale) + " but input 0 has " +
                 shape_text(x) + "; outside the blocked axis they must be equal");
      } else if (lx.is_static() && ls.is_static() &&
                 ls.value != lx.value / block + (lx.value % block != 0)) {
        c.fail("input 1 (scale) has length " + std::to_string(ls.value) + " along axis " +
               std::to_string(axis) + " but input 0's length " + std::to_string(lx.value) +
               " in blocks of " + std::to_string(block) + " needs " +
               std::to_string(lx.value / block + (lx.value % block != 0)));
      }
    }
    return;
  }
  if (scale.rank() == 0 || (scale_dims && element_count(*scale_dims) == 1 && scale.rank() <= 1))
    return;  // per tensor
  if (!per_axis_ok)
    c.fail("input 1 (scale) has shape " + shape_text(scale) +
           "; before opset 13 it must be a scalar");
  if (scale.rank() != 1)
    c.fail("input 1 (scale) has shape " + shape_text(scale) +
           "; it must be a scalar or 1-D (per axis) unless block_size is set");
  if (!x.rank_known) return;
  if (x.rank() == 0) c.fail("input 1 (scale) is 1-D but input 0 is a scalar");
  const int axis = c.normalize_axis(axis_attr, x.rank());
  if (compare_lengths(scale.axes[0].length, x.axes[axis].length) == LengthRelation::kDifferent)
    c.fail("input 1 (scale) has length " + to_string(scale.axes[0].length) +
           " but input 0 has length " + to_string(x.axes[axis].length) + " along axis " +
           std::to_string(axis));
}

// output_dtype (opset 21 on for quantize, 23 on for dequantize); undefined when not given.
DType output_dtype_attr(RuleContext& c, TypeSet allowed) {
  const int64_t v = c.attr_int("output_dtype", 0);
  if (v == 0) return DType::kUndefined;
  auto t = v > 0 && v < kDTypeCount ? dtype_from_onnx(static_cast<int32_t>(v)) : std::nullopt;
  if (!t || !(allowed & type_bit(*t)))
    c.fail("attribute 'output_dtype' is " + std::to_string(v) +
           ", not one of the dtypes this op produces (" + type_set_names(allowed) + ")");
  return *t;
}

void quantize_linear(RuleContext& c) {
  require_input_count(c, 2, 3);
  const int op = c.opset();
  const TypeSet xs =
      op >= 19 ? type_set({DType::kFloat, DType::kFloat16, DType::kBFloat16, DType::kInt32})
               : type_set({DType::kFloat, DType::kInt32});
  require_types(c, 0, xs, "x");
  if (op < 19) {
    require_types(c, 1, type_bit(DType::kFloat), "y_scale");
  } else if (op < 23) {
    if (c.input_dtype(1) != c.input_dtype(0))
      common_dtype(c, {0, 1});  // before opset 23 x and y_scale share their dtype
  } else {
    TypeSet ss = type_set({DType::kFloat, DType::kFloat16, DType::kBFloat16, DType::kInt32});
    if (op >= 24) ss |= type_bit(DType::kFloat8E8M0);
    require_types(c, 1, ss, "y_scale");
  }
  const TypeSet qs = quantized_types(op);
  if (op >= 19) {
    const int64_t sat = c.attr_int("saturate", 1);
    if (sat != 0 && sat != 1)
      c.fail("attribute 'saturate' must be 0 or 1, got " + std::to_string(sat));
  }
  DType out = DType::kUInt8;
  const DType attr = op >= 21 ? output_dtype_attr(c, qs) : DType::kUndefined;
  if (attr != DType::kUndefined) out = attr;
  if (c.has_input(2)) {
    require_types(c, 2, qs, "y_zero_point");
    const DType zt = c.input_dtype(2);
    if (attr != DType::kUndefined && zt != DType::kUndefined && attr != zt)
      c.fail("attribute 'output_dtype' is " + std::string(dtype_name(attr)) +
             " but input 2 (y_zero_point) is " + std::string(dtype_name(zt)) + "; they must agree");
    out = zt;
  }
  check_granularity(c);
  same_as_input(c, 0, 0, out);
}

void dequantize_linear(RuleContext& c) {
  require_input_count(c, 2, 3);
  const int op = c.opset();
  require_types(c, 0, quantized_types(op) | type_bit(DType::kInt32), "x");
  const TypeSet floats = type_set({DType::kFloat, DType::kFloat16, DType::kBFloat16});
  TypeSet ss = op >= 19 ? floats : type_bit(DType::kFloat);
  if (op >= 24) ss |= type_bit(DType::kFloat8E8M0);
  require_types(c, 1, ss, "x_scale");
  if (c.has_input(2)) {
    const DType xt = c.input_dtype(0), zt = c.input_dtype(2);
    if (xt != DType::kUndefined && zt != DType::kUndefined && xt != zt)
      c.fail("input 2 (x_zero_point) is " + std::string(dtype_name(zt)) + " but input 0 (x) is " +
             std::string(dtype_name(xt)) + "; they must match");
  }
  check_granularity(c);
  DType out = DType::kFloat;
  if (op >= 19) out = c.input_dtype(1);
  if (op >= 23) {
    const DType t = output_dtype_attr(c, floats);
    if (t != DType::kUndefined) out = t;
  }
  if (out == DType::kFloat8E8M0)
    c.fail(
        "input 1 (x_scale) is float8e8m0; attribute 'output_dtype' must then name the output "
        "dtype");
  same_as_input(c, 0, 0, out);
}

// x (float) -> y (uint8, x's axes), y_scale (float scalar), y_zero_point (uint8 scalar).
void dynamic_quantize_linear(RuleContext& c) {
  require_input_count(c, 1, 1);
  require_types(c, 0, type_bit(DType::kFloat), "x");
  same_as_input(c, 0, 0, DType::kUInt8);
  c.set_output(1, DType::kFloat, std::span<const int64_t>{});
  c.set_output(2, DType::kUInt8, std::span<const int64_t>{});
}

}  // namespace

std::span<const RuleEntry> quantization_rules() {
  static const std::vector<RuleEntry> rules = [] {
    std::vector<RuleEntry> r = {
        {"", "QuantizeLinear", 10, quantize_linear},
        {"", "QuantizeLinear", 13, quantize_linear},  // per-axis scales
        {"", "QuantizeLinear", 19, quantize_linear},  // float8, saturate, scale of x's dtype
        {"", "QuantizeLinear", 21, quantize_linear},  // blocked, output_dtype, 4-bit
        {"", "QuantizeLinear", 23, quantize_linear},  // the scale's dtype is its own
        {"", "DequantizeLinear", 10, dequantize_linear},
        {"", "DequantizeLinear", 13, dequantize_linear},  // per-axis scales
        {"", "DequantizeLinear", 19, dequantize_linear},  // output = the scale's dtype
        {"", "DequantizeLinear", 21, dequantize_linear},  // blocked, 4-bit
        {"", "DequantizeLinear", 23, dequantize_linear},  // output_dtype
        {"", "DynamicQuantizeLinear", 11, dynamic_quantize_linear},
    };
    auto more = quantization_conv_matmul_rules();
    r.insert(r.end(), more.begin(), more.end());
    return r;
  }();
  return rules;
}

}  // namespace geon::importer
