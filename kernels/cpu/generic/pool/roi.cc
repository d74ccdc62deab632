// MaxRoiPool on the CPU: each RoI [batch, x1, y1, x2, y2] is scaled by spatial_scale and rounded
// to whole pixels (corners inclusive), split into pooled_shape bins (floor of a bin's start,
// ceil of its end, clipped to the image), and each bin's maximum taken; an empty bin gives 0.
// This is the Fast R-CNN rule ONNX took the op from (and ONNX Runtime computes).
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/error.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

// Element (i, j) of a rank-2 view, any dtype, as double.
double at2(const TensorRef& t, int64_t i, int64_t j) {
  const int64_t pos = t.desc.offset + i * t.desc.strides[0] + j * t.desc.strides[1];
  if (t.desc.dtype == DType::kDouble) return static_cast<const double*>(t.data)[pos];
  return static_cast<const float*>(t.data)[pos];
}

// The RoI pooling of dense float (or double) X into dense Y.
template <typename T>
void roi_pool(const T* x, const TensorDesc& xd, const TensorRef& rois, T* y,
              const std::vector<int64_t>& pooled, float scale) {
  const int64_t batch = xd.shape[0], channels = xd.shape[1], height = xd.shape[2],
                width = xd.shape[3];
  const int64_t ph_n = pooled[0], pw_n = pooled[1];
  const int64_t num_rois = rois.desc.shape[0];
  for (int64_t r = 0; r < num_rois; ++r) {
    const double b = at2(rois, r, 0);
    require(b >= 0 && b < static_cast<double>(batch) && b == std::floor(b), [&] {
      return "RoI " + std::to_string(r) + " names batch " + std::to_string(b) + " of " +
             std::to_string(batch);
    });
    const int64_t n = static_cast<int64_t>(b);
    // Scaled corners rounded half away from zero, as std::round does.
    const int64_t x1 = static_cast<int64_t>(std::round(at2(rois, r, 1) * scale));
    const int64_t y1 = static_cast<int64_t>(std::round(at2(rois, r, 2) * scale));
    const int64_t x2 = static_cast<int64_t>(std::round(at2(rois, r, 3) * scale));
    const int64_t y2 = static_cast<int64_t>(std::round(at2(rois, r, 4) * scale));
    const int64_t roi_h = std::max<int64_t>(y2 - y1 + 1, 1),
                  roi_w = std::max<int64_t>(x2 - x1 + 1, 1);
    const double bin_h = static_cast<double>(roi_h) / static_cast<double>(ph_n);
    const double bin_w = static_cast<double>(roi_w) / static_cast<double>(pw_n);
    for (int64_t c = 0; c < channels; ++c) {
      const T* plane = x + n * xd.strides[0] + c * xd.strides[1];
      T* out = y + (r * channels + c) * ph_n * pw_n;
      for (int64_t ph = 0; ph < ph_n; ++ph) {
        int64_t hs = static_cast<int64_t>(std::floor(static_cast<double>(ph) * bin_h));
        int64_t he = static_cast<int64_t>(std::ceil(static_cast<double>(ph + 1) * bin_h));
        hs = std::clamp<int64_t>(hs + y1, 0, height);
        he = std::clamp<int64_t>(he + y1, 0, height);
        for (int64_t pw = 0; pw < pw_n; ++pw) {
          int64_t ws = static_cast<int64_t>(std::floor(static_cast<double>(pw) * bin_w));
          int64_t we = static_cast<int64_t>(std::ceil(static_cast<double>(pw + 1) * bin_w));
          ws = std::clamp<int64_t>(ws + x1, 0, width);
          we = std::clamp<int64_t>(we + x1, 0, width);
          T best = (he <= hs || we <= ws) ? T(0) : std::numeric_limits<T>::lowest();
          for (int64_t h = hs; h < he; ++h)
            for (int64_t w = ws; w < we; ++w)
              best = std::max(best, plane[h * xd.strides[2] + w * xd.strides[3]]);
          out[ph * pw_n + pw] = best;
        }
      }
    }
  }
}

}  // namespace

Reason supports_max_roi_pool(const Graph& g, const Node& n) {
  const DType t = input_dtype(g, n, 0);
  if (t != DType::kFloat && t != DType::kDouble && t != DType::kFloat16)
    return "MaxRoiPool of " + std::string(dtype_name(t)) + " is not implemented";
  if (input_dtype(g, n, 1) != t) return "MaxRoiPool: rois' dtype differs from X's";
  const auto pooled = attr_ints(n, "pooled_shape");
  if (!pooled || pooled->size() != 2 || (*pooled)[0] < 1 || (*pooled)[1] < 1)
    return "MaxRoiPool: attribute 'pooled_shape' must be two lengths >= 1";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_max_roi_pool(const Graph&, const Node& n) {
  const std::vector<int64_t> pooled = *attr_ints(n, "pooled_shape");
  const float scale = attr_float(n, "spatial_scale", 1.0f);
  return make_node_kernel(n, [pooled, scale](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const TensorRef& rois = ctx.input(1);
    require(x.desc.rank() == 4, "X must be (N, C, H, W)");
    require(rois.desc.rank() == 2 && rois.desc.shape[1] == 5,
            [&] { return "rois must be (num_rois, 5), got " + to_string(rois.desc); });
    const Dims shape = {rois.desc.shape[0], x.desc.shape[1], pooled[0], pooled[1]};
    TensorRef& y = ctx.output(0, shape);
    if (element_count(shape) == 0) return;
    // X and Y in the compute type, Y dense; rois read as they are (converted when float16).
    const DType ct = x.desc.dtype == DType::kDouble ? DType::kDouble : DType::kFloat;
    auto dense = [](DType t, const Dims& s) {
      return std::vector<std::byte>(dtype_bytes_for(t, std::max<int64_t>(element_count(s), 1)));
    };
    std::vector<std::byte> xs, rs, ys = dense(ct, shape);
    TensorDesc xd = x.desc;
    const void* xp = x.data;
    if (x.desc.dtype != ct) {
      xs = dense(ct, x.desc.shape);
      xd = row_major(ct, x.desc.shape);
      assign(Operand{xd, xs.data()}, src_of(x));
      xp = xs.data();
    }
    TensorRef r = rois;
    if (rois.desc.dtype != ct) {
      rs = dense(ct, rois.desc.shape);
      r.desc = row_major(ct, rois.desc.shape);
      r.data = rs.data();
      assign(Operand{r.desc, rs.data()}, src_of(rois));
    }
    const TensorDesc yd = row_major(ct, shape);
    if (ct == DType::kDouble)
      roi_pool(static_cast<const double*>(xp) + xd.offset, xd, r,
               reinterpret_cast<double*>(ys.data()), pooled, scale);
    else
      roi_pool(static_cast<const float*>(xp) + xd.offset, xd, r,
               reinterpret_cast<float*>(ys.data()), pooled, scale);
    assign(dst_of(y), ConstOperand(yd, ys.data()));
  });
}

}  // namespace geon::cpu
