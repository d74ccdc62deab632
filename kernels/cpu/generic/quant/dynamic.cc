// DynamicQuantizeLinear: x (float) to uint8 with a scale and zero point computed from x's own
// range, which is stretched to include 0 so that 0 is exactly representable. The arithmetic is
// onnx's, in float: scale = (max - min) / 255 (1 / 255 when the range is empty), zero point =
// rint(clamp(0 - min / scale, 0, 255)), y = clamp(rint(x / scale) + zero point, 0, 255).
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/error.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/quant/ops.h"

namespace geon::cpu {
namespace {

void dynamic_quantize(KernelContext& ctx, bool want_scale, bool want_zp) {
  const TensorRef& x = ctx.input(0);
  require(x.desc.dtype == DType::kFloat, [&] {
    return "input 0 (x) is " + std::string(dtype_name(x.desc.dtype)) + "; it must be float";
  });
  const std::vector<double> xv = dense_double(x);
  // The range, always including 0; a NaN in x makes the scale NaN as in numpy's max and min.
  float lo = 0, hi = 0;
  bool nan = false;
  for (double v : xv) {
    const float f = static_cast<float>(v);
    nan = nan || std::isnan(f);
    lo = std::min(lo, f);
    hi = std::max(hi, f);
  }
  const float range = hi == lo ? 1.0f : hi - lo;
  const float scale = nan ? std::numeric_limits<float>::quiet_NaN() : range / 255.0f;
  const float initial = 0.0f - lo / scale;
  const IntRange r{0, 255};
  // clamp first (as onnx does), NaN going to 0.
  const double zp =
      saturate_round(std::isnan(initial) ? 0.0 : std::clamp(initial, 0.0f, 255.0f), r);
  const TensorRef& y = ctx.output(0, x.desc.shape);
  const int64_t count = static_cast<int64_t>(xv.size());
  std::vector<uint8_t> q(static_cast<size_t>(std::max<int64_t>(count, 1)));
  parallel_rows(count, 8, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const float d = static_cast<float>(xv[i]) / scale;
      q[i] = static_cast<uint8_t>(saturate_round(std::nearbyint(d) + zp, r));
    }
  });
  if (count > 0) assign(dst_of(y), ConstOperand(row_major(DType::kUInt8, x.desc.shape), q.data()));
  if (want_scale) {
    const TensorRef& s = ctx.output(1, Dims{});
    assign(dst_of(s), ConstOperand::scalar(scale, DType::kFloat));
  }
  if (want_zp) {
    const TensorRef& z = ctx.output(2, Dims{});
    assign(dst_of(z), ConstOperand::scalar(zp, DType::kUInt8));
  }
}

}  // namespace

Reason supports_dynamic_quantize_linear(const Graph& g, const Node& n) {
  const DType t = input_dtype(g, n, 0);
  if (t != DType::kFloat)
    return n.op + ": input 0 (x) of " + std::string(dtype_name(t)) + " is refused; it is float";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_dynamic_quantize_linear(const Graph&, const Node& n) {
  const auto wanted = [&](size_t i) { return n.outputs.size() > i && n.outputs[i] >= 0; };
  return make_node_kernel(
      n, [s = wanted(1), z = wanted(2)](KernelContext& ctx) { dynamic_quantize(ctx, s, z); });
}

}  // namespace geon::cpu
