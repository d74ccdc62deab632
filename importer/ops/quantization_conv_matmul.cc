// Import rules: quantized convolution and matrix product (QLinearConv, ConvInteger,
// QLinearMatMul, MatMulInteger). Shapes follow Conv and MatMul: the batch axis of x and the
// output-channel axis of w carry over to a convolution's output, M of a and N of b to a
// product's, batch dims broadcast numpy-style. Small shape helpers of their own live here, so
// the family does not depend on the Conv and MatMul rules.
#include <cstdint>
#include <string>
#include <vector>

#include "core/axes/broadcast.h"
#include "core/base/error.h"
#include "importer/ops/common.h"
#include "importer/ops/elementwise.h"

namespace geon::importer {
namespace {

constexpr TypeSet kInt8s = type_set({DType::kInt8, DType::kUInt8});

// Requires input `zp` to have input `of`'s dtype (a zero point and the tensor it shifts).
void require_same_dtype(RuleContext& c, int zp, int of, std::string_view zp_name,
                        std::string_view of_name) {
  if (!c.has_input(zp)) return;
  const DType a = c.input_dtype(zp), b = c.input_dtype(of);
  if (a != DType::kUndefined && b != DType::kUndefined && a != b)
    c.fail("input " + std::to_string(zp) + " (" + std::string(zp_name) + ") is " +
           std::string(dtype_name(a)) + " but input " + std::to_string(of) + " (" +
           std::string(of_name) + ") is " + std::string(dtype_name(b)) + "; they must match");
}

// Requires a static element count of 1 (a per-tensor parameter) or, when `per_channel` is
// given, a 1-D length compatible with it.
void require_param_shape(RuleContext& c, int i, std::string_view name,
                         const Length* per_channel = nullptr) {
  if (!c.has_input(i)) return;
  const Value& v = c.input(i);
  if (!v.rank_known) return;
  auto dims = static_lengths(v.axes);
  if (v.rank() == 0 || (dims && element_count(*dims) == 1)) return;
  if (per_channel && v.rank() == 1 &&
      compare_lengths(v.axes[0].length, *per_channel) != LengthRelation::kDifferent)
    return;
  c.fail("input " + std::to_string(i) + " (" + std::string(name) + ") has shape " +
         to_string_with_lengths(v.axes) +
         (per_channel ? "; it must be a scalar or 1-D of length " + to_string(*per_channel)
                      : std::string("; it must be a scalar")));
}

// ---- convolution ------------------------------------------------------------------------------

// Output 0 of a convolution of x (input 0: N, C, D1..Dn) with w (input `w`: M, C/group, k1..kn)
// under the Conv attributes, with dtype `dtype`.
void conv_output(RuleContext& c, int w_index, DType dtype) {
  const Value& x = c.input(0);
  const Value& w = c.input(w_index);
  const std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" &&
      auto_pad != "VALID")
    c.fail("attribute 'auto_pad' is '" + auto_pad +
           "'; it must be NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  const int64_t group = c.attr_int("group", 1);
  if (group < 1) c.fail("attribute 'group' must be at least 1, got " + std::to_string(group));
  if (!x.rank_known && !w.rank_known) {
    c.set_output_unknown_rank(0, dtype);
    return;
  }
  const int rank = x.rank_known ? x.rank() : w.rank();
  if (rank < 3)
    c.fail("input 0 must have rank 3 or more (N, C, spatial dims), got rank " +
           std::to_string(rank));
  if (x.rank_known && w.rank_known && w.rank() != x.rank())
    c.fail("input " + std::to_string(w_index) + " (w) has rank " + std::to_string(w.rank()) +
           " but input 0 (x) has rank " + std::to_string(x.rank()) + "; they must be equal");
  const int n = rank - 2;
  auto ints_of = [&](std::string_view name, int64_t fill, size_t count) {
    std::vector<int64_t> v = c.attr_ints(name, std::vector<int64_t>(count, fill));
    if (v.size() != count)
      c.fail("attribute '" + std::string(name) + "' has " + std::to_string(v.size()) +
             " entries; it must have " + std::to_string(count));
    return v;
  };
  const auto strides = ints_of("strides", 1, n);
  const auto dilations = ints_of("dilations", 1, n);
  const auto pads = ints_of("pads", 0, 2 * n);
  for (int d = 0; d < n; ++d) {
    if (strides[d] < 1 || dilations[d] < 1)
      c.fail("attributes 'strides' and 'dilations' must be positive");
    if (pads[d] < 0 || pads[d + n] < 0) c.fail("attribute 'pads' must not be negative");
  }
  std::vector<int64_t> kernel(n, -1);
  if (c.has_attr("kernel_shape")) {
    kernel = ints_of("kernel_shape", 0, n);
    for (int64_t k : kernel)
      if (k < 1) c.fail("attribute 'kernel_shape' must be positive");
  }
  if (w.rank_known) {
    for (int d = 0; d < n; ++d) {
      const Length& lw = w.axes[d + 2].length;
      if (!lw.is_static()) continue;
      if (kernel[d] < 0) kernel[d] = lw.value;
      if (kernel[d] != lw.value)
        c.fail("attribute 'kernel_shape' says " + std::to_string(kernel[d]) + " at dim " +
               std::to_string(d) + " but input " + std::to_string(w_index) + " (w) has " +
               std::to_string(lw.value));
    }
  }
  if (x.rank_known && w.rank_known) {
    const Length& cx = x.axes[1].length;
    const Length& cw = w.axes[1].length;
    if (cx.is_static() && cw.is_static() && __int128{cx.value} != __int128{cw.value} * group)
      c.fail("input 0 (x) has " + std::to_string(cx.value) + " channels but input " +
             std::to_string(w_index) + " (w) has " + std::to_string(cw.value) +
             " per group, times " + std::to_string(group) + " groups");
  }
  if (w.rank_known && w.axes[0].length.is_static() && w.axes[0].length.value % group != 0)
    c.fail("input " + std::to_string(w_index) + " (w) has " +
           std::to_string(w.axes[0].length.value) + " output channels, not a multiple of group " +
           std::to_string(group));
  std::vector<Axis> out;
  AxisFactory& f = c.graph().factory();
  out.push_back(x.rank_known ? x.axes[0] : c.new_axis(Length::unknown()));
  out.push_back(w.rank_known ? w.axes[0] : c.new_axis(Length::unknown()));
  for (int d = 0; d < n; ++d) {
    Length len = Length::unknown();
    const Length* in = x.rank_known ? &x.axes[d + 2].length : nullptr;
    const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
    if (in && in->is_static() && (kernel[d] > 0 || same)) {
      // In 128 bits: attributes are untrusted and may be near the int64 limits.
      using Wide = __int128;
      const Wide len_in = in->value, stride = strides[d];
      const Wide span = Wide{dilations[d]} * (kernel[d] - 1) + 1;
      const Wide padded = same || auto_pad == "VALID" ? len_in : len_in + pads[d] + pads[d + n];
      const Wide o = same ? (len_in + stride - 1) / stride
                          : (padded >= span ? (padded - span) / stride + 1 : 0);
      if (o < 1 && len_in > 0)
        c.fail("spatial dim " + std::to_string(d) + " of length " + std::to_string(in->value) +
               " is shorter than the dilated kernel plus pads");
      if (o > INT64_MAX) c.fail("spatial dim " + std::to_string(d) + " of the output overflows");
      len = Length::known(static_cast<int64_t>(o));
    }
    out.push_back(x.rank_known ? make_axis_like(f, x.axes[d + 2], len) : c.new_axis(len));
  }
  c.set_output(0, dtype, distinct_axes(c, std::move(out)));
}

// QLinearConv: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B?
void qlinear_conv(RuleContext& c) {
  require_input_count(c, 8, 9);
  require_types(c, 0, kInt8s, "x");
  require_types(c, 3, kInt8s, "w");
  require_types(c, 7, kInt8s, "y_zero_point");
  for (int i : {1, 4, 6}) require_types(c, i, type_bit(DType::kFloat), "scale");
  require_same_dtype(c, 2, 0, "x_zero_point", "x");
  require_same_dtype(c, 5, 3, "w_zero_point", "w");
  const Value& w = c.input(3);
  const Length* m = w.rank_known && w.rank() >= 1 ? &w.axes[0].length : nullptr;
  require_param_shape(c, 1, "x_scale");
  require_param_shape(c, 2, "x_zero_point");
  require_param_shape(c, 4, "w_scale", m);
  require_param_shape(c, 5, "w_zero_point", m);
  require_param_shape(c, 6, "y_scale");
  require_param_shape(c, 7, "y_zero_point");
  if (c.has_input(8)) {
    require_types(c, 8, type_bit(DType::kInt32), "B");
    const Value& b = c.input(8);
    if (b.rank_known && (b.rank() != 1 || (m && compare_lengths(b.axes[0].length, *m) ==
                                                    LengthRelation::kDifferent)))
      c.fail("input 8 (B) has shape " + to_string_with_lengths(b.axes) +
             "; it must be 1-D with one entry per output channel");
  }
  conv_output(c, 3, c.input_dtype(7));
}

// ConvInteger: x, w, x_zero_point?, w_zero_point? -> int32
void conv_integer(RuleContext& c) {
  require_input_count(c, 2, 4);
  require_types(c, 0, kInt8s, "x");
  require_types(c, 1, kInt8s, "w");
  require_same_dtype(c, 2, 0, "x_zero_point", "x");
  require_same_dtype(c, 3, 1, "w_zero_point", "w");
  const Value& w = c.input(1);
  const Length* m = w.rank_known && w.rank() >= 1 ? &w.axes[0].length : nullptr;
  require_param_shape(c, 2, "x_zero_point");
  require_param_shape(c, 3, "w_zero_point", m);
  conv_output(c, 1, DType::kInt32);
}

// ---- matrix product ---------------------------------------------------------------------------

// Output 0 of numpy's matmul of inputs `ia` and `ib`, with dtype `dtype`.
void matmul_output(RuleContext& c, int ia, int ib, DType dtype) {
  const Value& a = c.input(ia);
  const Value& b = c.input(ib);
  if (!a.rank_known || !b.rank_known) {
    c.set_output_unknown_rank(0, dtype);
    return;
  }
  if (a.rank() < 1 || b.rank() < 1)
    c.fail("inputs " + std::to_string(ia) + " and " + std::to_string(ib) +
           " must have rank 1 or more, got ranks " + std::to_string(a.rank()) + " and " +
           std::to_string(b.rank()));
  const Length& ka = a.axes[a.rank() - 1].length;
  const Length& kb = b.axes[b.rank() >= 2 ? b.rank() - 2 : 0].length;
  if (compare_lengths(ka, kb) == LengthRelation::kDifferent)
    c.fail("input " + std::to_string(ia) + " has " + to_string(ka) + " columns but input " +
           std::to_string(ib) + " has " + to_string(kb) + " rows");
  const auto batch_of = [](const Value& v) {
    const int nb = std::max(v.rank() - 2, 0);
    return Axes(std::vector<Axis>(v.axes.begin(), v.axes.begin() + nb));
  };
  AxisFactory& f = c.graph().factory();
  std::vector<Axis> out;
  try {
    out = broadcast_axes({batch_of(a), batch_of(b)}, f).out.list();
  } catch (const Error& e) {
    c.fail(e.what());
  }
  if (a.rank() >= 2) out.push_back(a.axes[a.rank() - 2]);
  if (b.rank() >= 2) out.push_back(b.axes[b.rank() - 1]);
  c.set_output(0, dtype, distinct_axes(c, std::move(out)));
}

// QLinearMatMul: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point
void qlinear_matmul(RuleContext& c) {
  require_input_count(c, 8, 8);
  TypeSet q = kInt8s;
  TypeSet scales = type_bit(DType::kFloat);
  if (c.opset() >= 21) {
    q |= kFloat8;
    scales = type_set({DType::kFloat, DType::kFloat16, DType::kBFloat16});
  }
  require_types(c, 0, q, "a");
  require_types(c, 3, q, "b");
  require_types(c, 7, q, "y_zero_point");
  for (int i : {1, 4, 6}) require_types(c, i, scales, "scale");
  if (c.opset() >= 21) common_dtype(c, {1, 4, 6});
  require_same_dtype(c, 2, 0, "a_zero_point", "a");
  require_same_dtype(c, 5, 3, "b_zero_point", "b");
  const Value& a = c.input(0);
  const Value& b = c.input(3);
  // Per tensor, or per row of a / per column of b.
  const Length* rows = a.rank_known && a.rank() >= 2 ? &a.axes[a.rank() - 2].length : nullptr;
  const Length* cols = b.rank_known && b.rank() >= 2 ? &b.axes[b.rank() - 1].length : nullptr;
  require_param_shape(c, 1, "a_scale", rows);
  require_param_shape(c, 2, "a_zero_point", rows);
  require_param_shape(c, 4, "b_scale", cols);
  require_param_shape(c, 5, "b_zero_point", cols);
  require_param_shape(c, 6, "y_scale");
  require_param_shape(c, 7, "y_zero_point");
  matmul_output(c, 0, 3, c.input_dtype(7));
}

// MatMulInteger: A, B, a_zero_point?, b_zero_point? -> int32
void matmul_integer(RuleContext& c) {
  require_input_count(c, 2, 4);
  require_types(c, 0, kInt8s, "A");
  require_types(c, 1, kInt8s, "B");
  require_same_dtype(c, 2, 0, "a_zero_point", "A");
  require_same_dtype(c, 3, 1, "b_zero_point", "B");
  matmul_output(c, 0, 1, DType::kInt32);
}

}  // namespace

std::span<const RuleEntry> quantization_conv_matmul_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "QLinearConv", 10, qlinear_conv},
      {"", "ConvInteger", 10, conv_integer},
      {"", "QLinearMatMul", 10, qlinear_matmul},
      {"", "QLinearMatMul", 21, qlinear_matmul},  // float8 and float16/bfloat16 scales
      {"", "MatMulInteger", 10, matmul_integer},
  };
  return rules;
}

}  // namespace geon::importer
