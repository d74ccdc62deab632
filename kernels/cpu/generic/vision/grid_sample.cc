// GridSample (16: 2-D with bilinear, nearest, bicubic; 20 and 22: N-D with linear, nearest,
// cubic) on the CPU, as onnx.reference and ONNX Runtime compute it: each grid point is
// denormalised per spatial dim (in the grid's compute type, as they do), rounded for nearest,
// moved inside the image by the padding mode, then sampled through per-dim taps whose product
// reads X. Nearest copies X's elements as they are (exact for every dtype); linear and cubic
// compute in float (double for double, integer and bool data) and convert on store.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>

#include "core/base/error.h"
#include "kernels/cpu/generic/vision/ops.h"
#include "kernels/cpu/generic/vision/sampling.h"

namespace geon::cpu {
namespace {

enum class Mode { kNearest, kLinear, kCubic };
enum class Padding { kZeros, kBorder, kReflection };

struct Settings {
  Mode mode = Mode::kLinear;
  Padding padding = Padding::kZeros;
  bool align = false;
};

// Opset 16 spells the modes bilinear and bicubic, 20 on linear and cubic (N-D).
std::optional<Mode> mode_of(const std::string& s, int opset) {
  if (s == "nearest") return Mode::kNearest;
  if (s == (opset >= 20 ? "linear" : "bilinear")) return Mode::kLinear;
  if (s == (opset >= 20 ? "cubic" : "bicubic")) return Mode::kCubic;
  return std::nullopt;
}

std::optional<Padding> padding_of(const std::string& s) {
  if (s == "zeros") return Padding::kZeros;
  if (s == "border") return Padding::kBorder;
  if (s == "reflection") return Padding::kReflection;
  return std::nullopt;
}

int taps_per_dim(Mode m) { return m == Mode::kNearest ? 1 : m == Mode::kLinear ? 2 : 4; }

// Points farther out than this are clamped to it: all of them read the same padding, and
// their pixel indices stay far inside int64 (infinities included).
constexpr double kFar = 1099511627776.0;  // 2^40
// The most X elements one output element may combine (4 per dim for cubic: up to 8 dims).
constexpr int64_t kMaxTapsPerPoint = int64_t{1} << 16;

// One spatial dim's taps for one grid point: pixel indices (-1 reads zero) and their weights.
struct DimTaps {
  int count = 0;
  int64_t index[4] = {};
  double weight[4] = {};
};

// The sampling rule along one spatial dim of length len.
class DimSampler {
 public:
  DimSampler(const Settings& s, int64_t len)
      : s_(s),
        len_(len),
        lo_(s.align ? 0.0 : -0.5),
        hi_(s.align ? static_cast<double>(len) - 1.0 : static_cast<double>(len) - 0.5) {}

  // The denormalised coordinate x (pixel units; not NaN) as taps.
  DimTaps taps(double x) const {
    x = std::clamp(x, -kFar, kFar);
    if (s_.mode == Mode::kNearest) x = std::nearbyint(x);  // half to even, as numpy's rint
    if (x < lo_ || x > hi_) {
      if (s_.padding == Padding::kBorder)
        x = std::clamp(x, 0.0, static_cast<double>(len_ - 1));
      else if (s_.padding == Padding::kReflection)
        x = vision::reflect(x, lo_, hi_);
    }
    DimTaps t;
    if (s_.mode == Mode::kNearest) {
      t.count = 1;
      t.index[0] = pixel(static_cast<int64_t>(x));  // truncation, as the reference's astype
      t.weight[0] = 1;
      return t;
    }
    const double x0 = std::floor(x), f = x - x0;
    const auto i0 = static_cast<int64_t>(x0);
    if (s_.mode == Mode::kLinear) {
      t.count = 2;
      t.index[0] = pixel(i0);
      t.index[1] = pixel(i0 + 1);
      t.weight[0] = 1 - f;
      t.weight[1] = f;
      return t;
    }
    t.count = 4;
    vision::cubic_weights(f, t.weight);
    for (int k = 0; k < 4; ++k) t.index[k] = pixel(i0 - 1 + k);
    return t;
  }

 private:
  // The pixel a tap at integer position i reads under the padding mode; -1 for a zero.
  int64_t pixel(int64_t i) const {
    switch (s_.padding) {
      case Padding::kZeros:
        return i >= 0 && i < len_ ? i : -1;
      case Padding::kBorder:
        return std::clamp<int64_t>(i, 0, len_ - 1);
      case Padding::kReflection:
        break;
    }
    const auto r = static_cast<int64_t>(vision::reflect(static_cast<double>(i), lo_, hi_));
    return std::clamp<int64_t>(r, 0, len_ - 1);
  }

  Settings s_;
  int64_t len_;
  double lo_, hi_;
};

// Grid coordinates through the grid's compute type, so the rounding matches the reference's.
template <class G>
double denormalize(G g, int64_t len, bool align) {
  const G one(1), two(2), l(static_cast<G>(len));
  return static_cast<double>(align ? (g + one) / two * (l - one) : ((g + one) * l - one) / two);
}

// The run's shapes and staged arrays: X (N, C, D...) dense, grid (N, O..., r) dense, Y (N, C,
// O...) dense; plane = prod(D), points = prod(O).
struct Problem {
  Settings s;
  int64_t batch = 0, channels = 0, plane = 0, points = 0;
  int64_t taps = 1;              // per output element: taps_per_dim ^ r
  Dims spatial;                  // D1..Dr
  std::vector<int64_t> strides;  // of each spatial dim within a plane
  const void* grid = nullptr;
  bool grid_double = false;
};

// For grid point p (of N * points): the flat plane offsets and weights of its taps, in `out`.
void point_taps(const Problem& pb, const std::vector<DimSampler>& dims, int64_t p,
                std::vector<std::pair<int64_t, double>>& out,
                std::vector<std::pair<int64_t, double>>& next) {
  const int r = static_cast<int>(pb.spatial.size());
  out.assign(1, {0, 1.0});
  for (int i = 0; i < r; ++i) {
    // The grid's last dim lists coordinates innermost first: (x, y, z) for (D, H, W).
    const int64_t at = p * r + (r - 1 - i);
    const double x =
        pb.grid_double
            ? denormalize(static_cast<const double*>(pb.grid)[at], pb.spatial[i], pb.s.align)
            : denormalize(static_cast<const float*>(pb.grid)[at], pb.spatial[i], pb.s.align);
    if (std::isnan(x))
      fail(ErrorCode::kInvalidArgument, "grid holds NaN at batch " + std::to_string(p / pb.points) +
                                            ", point " + std::to_string(p % pb.points) +
                                            ", coordinate " + std::to_string(r - 1 - i));
    const DimTaps t = dims[i].taps(x);
    next.clear();
    for (const auto& [off, w] : out)
      for (int k = 0; k < t.count; ++k)
        if (t.index[k] >= 0) next.emplace_back(off + t.index[k] * pb.strides[i], w * t.weight[k]);
    out.swap(next);
  }
}

// Linear and cubic: Y[n, c, o] = sum of weight * X[n, c, tap] in double, stored as T.
template <class T>
void interpolate(const Problem& pb, const std::vector<DimSampler>& dims, const T* x, T* y) {
  parallel_rows(pb.batch * pb.points, pb.channels * pb.taps, [&](int64_t lo, int64_t hi) {
    std::vector<std::pair<int64_t, double>> taps, next;
    for (int64_t p = lo; p < hi; ++p) {
      point_taps(pb, dims, p, taps, next);
      const int64_t n = p / pb.points, o = p % pb.points;
      for (int64_t c = 0; c < pb.channels; ++c) {
        const T* src = x + (n * pb.channels + c) * pb.plane;
        double acc = 0;
        for (const auto& [off, w] : taps) acc += w * static_cast<double>(src[off]);
        y[(n * pb.channels + c) * pb.points + o] = static_cast<T>(acc);
      }
    }
  });
}

// Nearest: each output element is a copy of one X element (`bytes` wide) or zero.
void nearest(const Problem& pb, const std::vector<DimSampler>& dims, const std::byte* x,
             std::byte* y, int64_t bytes) {
  parallel_rows(pb.batch * pb.points, pb.channels, [&](int64_t lo, int64_t hi) {
    std::vector<std::pair<int64_t, double>> taps, next;
    for (int64_t p = lo; p < hi; ++p) {
      point_taps(pb, dims, p, taps, next);
      const int64_t n = p / pb.points, o = p % pb.points;
      for (int64_t c = 0; c < pb.channels; ++c) {
        std::byte* dst = y + ((n * pb.channels + c) * pb.points + o) * bytes;
        if (taps.empty())
          std::memset(dst, 0, static_cast<size_t>(bytes));
        else
          std::memcpy(dst, x + ((n * pb.channels + c) * pb.plane + taps[0].first) * bytes,
                      static_cast<size_t>(bytes));
      }
    }
  });
}

void grid_sample(KernelContext& ctx, const Settings& s) {
  const TensorRef& x = ctx.input(0);
  const TensorRef& grid = ctx.input(1);
  const int rank = x.desc.rank();
  require(rank >= 3,
          [&] { return "X must be (N, C, D1, ...), it has rank " + std::to_string(rank); });
  const int r = rank - 2;
  require(grid.desc.rank() == rank, [&] {
    return "grid has rank " + std::to_string(grid.desc.rank()) + "; it must be X's rank " +
           std::to_string(rank);
  });
  require(grid.desc.shape[0] == x.desc.shape[0], [&] {
    return "grid's batch size " + std::to_string(grid.desc.shape[0]) + " differs from X's " +
           std::to_string(x.desc.shape[0]);
  });
  require(grid.desc.shape[rank - 1] == r, [&] {
    return "grid's last dim is " + std::to_string(grid.desc.shape[rank - 1]) + "; it must be " +
           std::to_string(r) + " (one coordinate per spatial dim of X)";
  });
  int64_t taps = 1;
  for (int i = 0; i < r; ++i) {
    taps *= taps_per_dim(s.mode);
    if (taps > kMaxTapsPerPoint)
      fail(ErrorCode::kNotSupported, "X has " + std::to_string(r) +
                                         " spatial dims; this mode would combine more than " +
                                         std::to_string(kMaxTapsPerPoint) + " pixels per point");
  }
  Problem pb;
  pb.s = s;
  pb.taps = taps;
  pb.batch = x.desc.shape[0];
  pb.channels = x.desc.shape[1];
  pb.spatial.assign(x.desc.shape.begin() + 2, x.desc.shape.end());
  pb.plane = element_count(pb.spatial);
  Dims shape = {pb.batch, pb.channels};
  shape.insert(shape.end(), grid.desc.shape.begin() + 1, grid.desc.shape.end() - 1);
  pb.points = element_count(Dims(grid.desc.shape.begin() + 1, grid.desc.shape.end() - 1));
  check_output_size(x.desc.dtype, shape, "the output");  // channels x points may be huge
  const TensorRef& y = ctx.output(0, shape);
  if (element_count(shape) == 0) return;
  for (int i = 0; i < r; ++i)
    require(pb.spatial[i] > 0, [&] {
      return "X's spatial dim " + std::to_string(i) + " is empty; there is nothing to sample";
    });
  pb.strides.assign(r, 1);
  for (int i = r - 2; i >= 0; --i) pb.strides[i] = pb.strides[i + 1] * pb.spatial[i + 1];
  std::vector<DimSampler> dims;
  for (int i = 0; i < r; ++i) dims.emplace_back(s, pb.spatial[i]);

  const DType gt = vision::compute_dtype(grid.desc.dtype);
  const vision::StagedIn g(grid, gt);
  pb.grid = g.as<void>();
  pb.grid_double = gt == DType::kDouble;
  if (s.mode == Mode::kNearest) {
    const DType t = x.desc.dtype;
    const vision::StagedIn xs(x, t);
    const vision::StagedOut ys(y, t);
    nearest(pb, dims, xs.as<std::byte>(), ys.as<std::byte>(), dtype_bits(t) / 8);
    ys.store();
    return;
  }
  const DType ct = vision::compute_dtype(x.desc.dtype);
  const vision::StagedIn xs(x, ct);
  const vision::StagedOut ys(y, ct);
  if (ct == DType::kDouble)
    interpolate(pb, dims, xs.as<double>(), ys.as<double>());
  else
    interpolate(pb, dims, xs.as<float>(), ys.as<float>());
  ys.store();
}

}  // namespace

Reason supports_grid_sample(const Graph& g, const Node& n) {
  const DType t = input_dtype(g, n, 0);
  if (t == DType::kString)
    return "GridSample's linear and cubic modes weight and sum X, which strings cannot be; "
           "string X is not implemented in nearest mode either";
  if (Reason r = engine_dtype_reason(t, "X")) return r;
  if (is_packed(t) || t == DType::kFloat8E4M3FN || t == DType::kFloat8E4M3FNUZ ||
      t == DType::kFloat8E5M2 || t == DType::kFloat8E5M2FNUZ || t == DType::kFloat8E8M0)
    return "GridSample of " + std::string(dtype_name(t)) + " is not implemented";
  if (Reason r = norm_dtype_reason(input_dtype(g, n, 1), "grid")) return r;
  const std::string mode = attr_string(n, "mode", n.opset >= 20 ? "linear" : "bilinear");
  if (!mode_of(mode, n.opset))
    return "GridSample-" + std::to_string(n.opset) + ": mode '" + mode + "' is not one it takes";
  const std::string pad = attr_string(n, "padding_mode", "zeros");
  if (!padding_of(pad)) return "GridSample: padding_mode '" + pad + "' is not one it takes";
  const int64_t align = attr_int(n, "align_corners", 0);
  if (align != 0 && align != 1) return "GridSample: align_corners must be 0 or 1";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_grid_sample(const Graph&, const Node& n) {
  Settings s;
  s.mode = *mode_of(attr_string(n, "mode", n.opset >= 20 ? "linear" : "bilinear"), n.opset);
  s.padding = *padding_of(attr_string(n, "padding_mode", "zeros"));
  s.align = attr_int(n, "align_corners", 0) == 1;
  return make_node_kernel(n, [s](KernelContext& ctx) { grid_sample(ctx, s); });
}

}  // namespace geon::cpu
