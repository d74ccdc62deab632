// RoiAlign (10; 16 adds coordinate_transformation_mode, default half_pixel) on the CPU, as
// onnx.reference and ONNX Runtime compute it: each RoI is scaled (and shifted half a pixel),
// split into output_height x output_width bins, and each bin sampled on a regular grid
// (sampling_ratio points per side, or ceil(bin size)); every sample is bilinear, and a bin is
// the average of its samples (mode avg) or the largest weighted corner of any sample (mode max,
// ONNX Runtime's rule the data follows). Sample positions separate into rows and columns, so
// each RoI's are computed once per axis and shared by every channel. Geometry is computed in
// the data's compute type (float, double for double), as the reference runtime does.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "kernels/cpu/generic/vision/ops.h"
#include "kernels/cpu/generic/vision/sampling.h"

namespace geon::cpu {
namespace {

// Per RoI, the samples along one axis may not exceed this (bins x points per bin), nor the
// samples of one RoI's channel plane (rows x columns) kMaxPlaneSamples: a hostile RoI or
// sampling_ratio is refused instead of taking unbounded memory or time.
constexpr int64_t kMaxAxisSamples = int64_t{1} << 22;
constexpr int64_t kMaxPlaneSamples = int64_t{1} << 28;

struct Settings {
  bool max_mode = false;
  bool half_pixel = false;
  int64_t out_h = 1, out_w = 1, sampling_ratio = 0;
  float spatial_scale = 1;
};

// One sample's position along one axis: the two pixels it reads and their weights, or
// invalid (outside [-1, len]: the whole sample reads zero).
struct AxisSample {
  bool valid = false;
  int64_t low = 0, high = 0;
  double w_low = 0, w_high = 0;
};

template <class T>
AxisSample axis_sample(T v, int64_t len) {
  AxisSample s;
  if (v < T(-1) || v > static_cast<T>(len)) return s;
  s.valid = true;
  v = std::max(v, T(0));
  s.low = static_cast<int64_t>(v);
  if (s.low >= len - 1) {
    s.low = s.high = len - 1;
    v = static_cast<T>(s.low);
  } else {
    s.high = s.low + 1;
  }
  const T l = v - static_cast<T>(s.low);
  s.w_high = static_cast<double>(l);
  s.w_low = static_cast<double>(T(1) - l);
  return s;
}

// The samples of `bins` bins of size bin from start, `grid` per bin, in bin-major order.
template <class T>
std::vector<AxisSample> axis_samples(T start, T bin, int64_t bins, int64_t grid, int64_t len) {
  std::vector<AxisSample> v;
  v.reserve(static_cast<size_t>(bins * grid));
  for (int64_t b = 0; b < bins; ++b)
    for (int64_t i = 0; i < grid; ++i)
      v.push_back(axis_sample<T>(
          start + static_cast<T>(b) * bin +
              static_cast<T>(static_cast<float>(i) + .5f) * bin / static_cast<T>(grid),
          len));
  return v;
}

// The samples per bin along an axis: sampling_ratio, or ceil(size / bins) (none when the RoI
// is empty or inverted), checked against the limits.
template <class T>
int64_t grid_of(T size, int64_t bins, int64_t ratio, int64_t roi, const char* axis) {
  double g = static_cast<double>(ratio);
  if (ratio <= 0) {
    g = std::ceil(static_cast<double>(size) / static_cast<double>(bins));
    if (!(g > 0)) return 0;
  }
  require(g * static_cast<double>(bins) <= static_cast<double>(kMaxAxisSamples), [&] {
    return "RoI " + std::to_string(roi) + " needs " +
           std::to_string(g * static_cast<double>(bins)) + " samples along " + axis +
           ", above the limit of " + std::to_string(kMaxAxisSamples);
  });
  return static_cast<int64_t>(g);
}

template <class T>
void roi_align(const Settings& s, const T* x, const Dims& xs, const T* rois,
               const std::vector<int64_t>& batch, T* y) {
  const int64_t channels = xs[1], height = xs[2], width = xs[3];
  const int64_t plane = height * width, bins = s.out_h * s.out_w;
  const auto scale = static_cast<T>(s.spatial_scale);
  const T shift = s.half_pixel ? T(0.5) : T(0);
  for (size_t r = 0; r < batch.size(); ++r) {
    const T* roi = rois + r * 4;
    const T start_w = roi[0] * scale - shift, start_h = roi[1] * scale - shift;
    const T end_w = roi[2] * scale - shift, end_h = roi[3] * scale - shift;
    require(std::isfinite(static_cast<double>(start_w)) &&
                std::isfinite(static_cast<double>(start_h)) &&
                std::isfinite(static_cast<double>(end_w)) &&
                std::isfinite(static_cast<double>(end_h)),
            [&] { return "RoI " + std::to_string(r) + " has a coordinate that is not finite"; });
    T roi_w = end_w - start_w, roi_h = end_h - start_h;
    if (!s.half_pixel) {  // output_half_pixel forces malformed RoIs to 1 x 1
      roi_w = std::max(roi_w, T(1));
      roi_h = std::max(roi_h, T(1));
    }
    const T bin_h = roi_h / static_cast<T>(s.out_h), bin_w = roi_w / static_cast<T>(s.out_w);
    const int64_t gh = grid_of(roi_h, s.out_h, s.sampling_ratio, static_cast<int64_t>(r), "height");
    const int64_t gw = grid_of(roi_w, s.out_w, s.sampling_ratio, static_cast<int64_t>(r), "width");
    require(static_cast<double>(gh) * static_cast<double>(gw) * static_cast<double>(bins) <=
                static_cast<double>(kMaxPlaneSamples),
            [&] {
              return "RoI " + std::to_string(r) + " needs " + std::to_string(gh) + " x " +
                     std::to_string(gw) + " samples per bin, above the limit of " +
                     std::to_string(kMaxPlaneSamples) + " per channel";
            });
    const std::vector<AxisSample> rows = axis_samples(start_h, bin_h, s.out_h, gh, height);
    const std::vector<AxisSample> cols = axis_samples(start_w, bin_w, s.out_w, gw, width);
    const double count = static_cast<double>(std::max<int64_t>(gh * gw, 1));
    const T* src_n = x + batch[r] * channels * plane;
    T* dst_r = y + static_cast<int64_t>(r) * channels * bins;
    parallel_rows(channels, bins * std::max<int64_t>(gh * gw, 1), [&](int64_t lo, int64_t hi) {
      for (int64_t c = lo; c < hi; ++c) {
        const T* src = src_n + c * plane;
        for (int64_t ph = 0; ph < s.out_h; ++ph)
          for (int64_t pw = 0; pw < s.out_w; ++pw) {
            double acc = 0;
            bool first = true;
            for (int64_t iy = 0; iy < gh; ++iy) {
              const AxisSample& a = rows[ph * gh + iy];
              for (int64_t ix = 0; ix < gw; ++ix) {
                const AxisSample& b = cols[pw * gw + ix];
                double v1 = 0, v2 = 0, v3 = 0, v4 = 0;
                if (a.valid && b.valid) {
                  v1 = a.w_low * b.w_low * static_cast<double>(src[a.low * width + b.low]);
                  v2 = a.w_low * b.w_high * static_cast<double>(src[a.low * width + b.high]);
                  v3 = a.w_high * b.w_low * static_cast<double>(src[a.high * width + b.low]);
                  v4 = a.w_high * b.w_high * static_cast<double>(src[a.high * width + b.high]);
                }
                if (!s.max_mode) {
                  acc += v1 + v2 + v3 + v4;
                } else {
                  const double v = std::max(std::max(v1, v2), std::max(v3, v4));
                  acc = first ? v : std::max(acc, v);
                  first = false;
                }
              }
            }
            dst_r[c * bins + ph * s.out_w + pw] = static_cast<T>(s.max_mode ? acc : acc / count);
          }
      }
    });
  }
}

void roi_align_run(KernelContext& ctx, const Settings& s) {
  const TensorRef& x = ctx.input(0);
  const TensorRef& rois = ctx.input(1);
  const TensorRef& bi = ctx.input(2);
  require(x.desc.rank() == 4, [&] { return "X must be (N, C, H, W), it is " + to_string(x.desc); });
  require(rois.desc.rank() == 2 && rois.desc.shape[1] == 4,
          [&] { return "rois must be (num_rois, 4), it is " + to_string(rois.desc); });
  require(bi.desc.rank() == 1 && bi.desc.shape[0] == rois.desc.shape[0], [&] {
    return "batch_indices must be (num_rois) = (" + std::to_string(rois.desc.shape[0]) +
           "), it is " + to_string(bi.desc);
  });
  const std::vector<int64_t> batch = read_ints(bi, "batch_indices");
  for (size_t r = 0; r < batch.size(); ++r)
    require(batch[r] >= 0 && batch[r] < x.desc.shape[0], [&] {
      return "batch_indices[" + std::to_string(r) + "] is " + std::to_string(batch[r]) +
             "; X has " + std::to_string(x.desc.shape[0]) + " images";
    });
  const Dims shape = {rois.desc.shape[0], x.desc.shape[1], s.out_h, s.out_w};
  check_output_size(x.desc.dtype, shape, "the output");  // output_height/width may be huge
  const TensorRef& y = ctx.output(0, shape);
  if (element_count(shape) == 0) return;
  require(x.desc.shape[2] > 0 && x.desc.shape[3] > 0, [&] {
    return "X's image is empty (" + to_string(x.desc) + "); there is nothing to sample";
  });
  const DType ct = vision::compute_dtype(x.desc.dtype);
  const vision::StagedIn xs(x, ct), rs(rois, ct);
  const vision::StagedOut ys(y, ct);
  if (ct == DType::kDouble)
    roi_align(s, xs.as<double>(), x.desc.shape, rs.as<double>(), batch, ys.as<double>());
  else
    roi_align(s, xs.as<float>(), x.desc.shape, rs.as<float>(), batch, ys.as<float>());
  ys.store();
}

}  // namespace

Reason supports_roi_align(const Graph& g, const Node& n) {
  const DType t = input_dtype(g, n, 0);
  if (Reason r = norm_dtype_reason(t, "X")) return r;
  if (input_dtype(g, n, 1) != t) return "RoiAlign: rois' dtype differs from X's";
  if (input_dtype(g, n, 2) != DType::kInt64) return "RoiAlign: batch_indices must be int64";
  const std::string mode = attr_string(n, "mode", "avg");
  if (mode != "avg" && mode != "max") return "RoiAlign: mode '" + mode + "' is not avg or max";
  if (n.opset >= 16) {
    const std::string m = attr_string(n, "coordinate_transformation_mode", "half_pixel");
    if (m != "half_pixel" && m != "output_half_pixel")
      return "RoiAlign: coordinate_transformation_mode '" + m + "' is not one it takes";
  }
  if (attr_int(n, "output_height", 1) < 1 || attr_int(n, "output_width", 1) < 1)
    return "RoiAlign: output_height and output_width must be at least 1";
  if (attr_int(n, "sampling_ratio", 0) < 0) return "RoiAlign: sampling_ratio must be >= 0";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_roi_align(const Graph&, const Node& n) {
  Settings s;
  s.max_mode = attr_string(n, "mode", "avg") == "max";
  // Before 16 the only rule was what 16 calls output_half_pixel (no half-pixel shift).
  s.half_pixel = n.opset >= 16 &&
                 attr_string(n, "coordinate_transformation_mode", "half_pixel") == "half_pixel";
  s.out_h = attr_int(n, "output_height", 1);
  s.out_w = attr_int(n, "output_width", 1);
  s.sampling_ratio = attr_int(n, "sampling_ratio", 0);
  s.spatial_scale = attr_float(n, "spatial_scale", 1.0f);
  return make_node_kernel(n, [s](KernelContext& ctx) { roi_align_run(ctx, s); });
}

}  // namespace geon::cpu
