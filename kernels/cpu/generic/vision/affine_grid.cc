// AffineGrid (20) on the CPU: the sampling grid GridSample reads, theta (N, 2, 3) applied to
// the normalised pixel positions of an (H, W) image (theta (N, 3, 4) to a (D, H, W) volume).
// Positions are pixel centres, -1 + (2i + 1) / L, or with align_corners the corner pixels at
// exactly -1 and 1, -1 + 2i / (L - 1); coordinates come out innermost dim first (x, y, z).
// The size input may be a run-time tensor, so the output's size is checked before it exists.
#include <string>
#include <vector>

#include "core/base/error.h"
#include "kernels/cpu/generic/vision/ops.h"
#include "kernels/cpu/generic/vision/sampling.h"

namespace geon::cpu {
namespace {

// The normalised positions of a dim of length len: np.arange's start + i * step, as the
// reference builds them (a single pixel with align_corners sits at -1).
std::vector<double> positions(int64_t len, bool align) {
  std::vector<double> v(static_cast<size_t>(len));
  const double step = align ? 2.0 / static_cast<double>(len - 1) : 2.0 / static_cast<double>(len);
  const double start = align ? -1.0 : -1.0 + step / 2;
  for (int64_t i = 0; i < len; ++i)
    v[i] = len == 1 && align ? -1.0 : start + static_cast<double>(i) * step;
  return v;
}

template <class T>
void transform(const T* theta, T* y, int64_t batch, const Dims& spatial, bool align) {
  const int r = static_cast<int>(spatial.size());
  std::vector<std::vector<double>> pos;
  for (int64_t len : spatial) pos.push_back(positions(len, align));
  const int64_t points = element_count(spatial);
  parallel_rows(batch * points, r * (r + 1), [&](int64_t lo, int64_t hi) {
    std::vector<double> base(static_cast<size_t>(r) + 1, 1.0);  // (x, y[, z], 1)
    for (int64_t p = lo; p < hi; ++p) {
      const int64_t n = p / points;
      int64_t rest = p % points;
      for (int i = r - 1; i >= 0; --i) {  // spatial dim i gives coordinate r - 1 - i
        base[r - 1 - i] = pos[i][rest % spatial[i]];
        rest /= spatial[i];
      }
      const T* th = theta + n * r * (r + 1);
      for (int k = 0; k < r; ++k) {
        double acc = 0;
        for (int j = 0; j <= r; ++j) acc += static_cast<double>(th[k * (r + 1) + j]) * base[j];
        y[p * r + k] = static_cast<T>(acc);
      }
    }
  });
}

void affine_grid(KernelContext& ctx, const IntsInput& size_input, bool align) {
  const TensorRef& theta = ctx.input(0);
  const std::vector<int64_t> size = size_input.read(ctx, "size");
  require(size.size() == 4 || size.size() == 5, [&] {
    return "size must be (N, C, H, W) or (N, C, D, H, W), it has " + std::to_string(size.size()) +
           " entries";
  });
  const int r = static_cast<int>(size.size()) - 2;
  require(theta.desc.rank() == 3 && theta.desc.shape[1] == r && theta.desc.shape[2] == r + 1, [&] {
    return "theta must be (N, " + std::to_string(r) + ", " + std::to_string(r + 1) + ") for a " +
           std::to_string(r) + "-D size, it is " + to_string(theta.desc);
  });
  require(size[0] == theta.desc.shape[0], [&] {
    return "size's N is " + std::to_string(size[0]) + " but theta's batch size is " +
           std::to_string(theta.desc.shape[0]);
  });
  const Dims spatial(size.begin() + 2, size.end());
  Dims shape = {size[0]};
  shape.insert(shape.end(), spatial.begin(), spatial.end());
  shape.push_back(r);
  check_output_size(theta.desc.dtype, shape, "the grid");  // also refuses negative lengths
  const TensorRef& y = ctx.output(0, shape);
  if (element_count(shape) == 0) return;
  const DType ct = vision::compute_dtype(theta.desc.dtype);
  const vision::StagedIn th(theta, ct);
  const vision::StagedOut ys(y, ct);
  if (ct == DType::kDouble)
    transform(th.as<double>(), ys.as<double>(), size[0], spatial, align);
  else
    transform(th.as<float>(), ys.as<float>(), size[0], spatial, align);
  ys.store();
}

}  // namespace

Reason supports_affine_grid(const Graph& g, const Node& n) {
  if (Reason r = norm_dtype_reason(input_dtype(g, n, 0), "theta")) return r;
  if (Reason r = check_ints_input(g, n, 1, "size")) return r;
  const int64_t align = attr_int(n, "align_corners", 0);
  if (align != 0 && align != 1) return "AffineGrid: align_corners must be 0 or 1";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_affine_grid(const Graph& g, const Node& n) {
  const IntsInput size = ints_input(g, n, 1);
  const bool align = attr_int(n, "align_corners", 0) == 1;
  return make_node_kernel(n, [size, align](KernelContext& ctx) { affine_grid(ctx, size, align); });
}

}  // namespace geon::cpu
