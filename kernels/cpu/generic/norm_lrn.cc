// LRN (local response normalisation across channels) on cpu.generic: for x of shape
// [N, C, spatial...], y = x / (bias + alpha / size * sum of x^2 over the channel window)^beta,
// the window being [c - floor((size-1)/2), c + ceil((size-1)/2)] clipped to the channels.
#include <algorithm>
#include <cmath>

#include "core/base/error.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

template <class T>
constexpr DType compute_of() {
  return std::is_same_v<T, double> ? DType::kDouble : DType::kFloat;
}

struct LrnParams {
  double alpha, beta, bias;
  int64_t size;
};

template <class T>
void lrn_run(KernelContext& ctx, const LrnParams& p) {
  const TensorRef& x = ctx.input(0);
  require(x.desc.rank() >= 2, [&] {
    return "the input has rank " + std::to_string(x.desc.rank()) + ", needs at least 2 (N, C, ...)";
  });
  const TensorRef& y = ctx.output(0, x.desc.shape);
  const Dims& s = x.desc.shape;
  const int64_t batch = s[0], c = s[1];
  int64_t spatial = 1;
  for (int i = 2; i < x.desc.rank(); ++i) spatial *= s[i];
  if (batch * c * spatial == 0) return;
  std::vector<std::byte> xs, ys;
  const T* xp = static_cast<const T*>(stage_input(x, {}, compute_of<T>(), xs));
  T* yp = static_cast<T*>(stage_output(y, {}, compute_of<T>(), ys));
  const int64_t before = (p.size - 1) / 2, after = p.size - 1 - before;
  const T scale = T(p.alpha / static_cast<double>(p.size)), bias = T(p.bias), beta = T(p.beta);
  // The window is clipped to the channels: a huge size costs no more than c (nor overflows).
  parallel_rows(batch * c, spatial * std::min(p.size, c), [&](int64_t lo, int64_t hi) {
    std::vector<T> acc(static_cast<size_t>(spatial));
    for (int64_t row = lo; row < hi; ++row) {
      const int64_t b = row / c, ch = row % c;
      const int64_t first = std::max<int64_t>(0, ch - before);
      const int64_t last = std::min<int64_t>(c - 1, ch + after);
      std::fill(acc.begin(), acc.end(), T(0));
      for (int64_t k = first; k <= last; ++k) {
        const T* xk = xp + (b * c + k) * spatial;
        for (int64_t i = 0; i < spatial; ++i) acc[i] += xk[i] * xk[i];
      }
      const T* xr = xp + row * spatial;
      T* yr = yp + row * spatial;
      // beta = 0.75 (the default, and AlexNet's and GoogLeNet's) as two square roots, several
      // times cheaper than std::pow.
      if (p.beta == 0.75) {
        for (int64_t i = 0; i < spatial; ++i) {
          const T d = std::sqrt(bias + scale * acc[i]);
          yr[i] = xr[i] / (d * std::sqrt(d));
        }
      } else {
        for (int64_t i = 0; i < spatial; ++i) yr[i] = xr[i] / std::pow(bias + scale * acc[i], beta);
      }
    }
  });
  store_output(y, {}, compute_of<T>(), ys);
}

}  // namespace

Reason supports_lrn(const Graph& g, const Node& n) {
  if (Reason r = norm_dtype_reason(input_dtype(g, n, 0), "input 0")) return r;
  if (attr_int(n, "size", 0) < 1)
    return "attribute 'size' is " + std::to_string(attr_int(n, "size", 0)) + "; must be >= 1";
  return norm_dtype_reason(output_dtype(g, n, 0), "output 0");
}

std::unique_ptr<Kernel> create_lrn(const Graph&, const Node& n) {
  const LrnParams p{attr_float(n, "alpha", 1e-4f), attr_float(n, "beta", 0.75f),
                    attr_float(n, "bias", 1.0f), attr_int(n, "size", 1)};
  return make_node_kernel(n, [=](KernelContext& ctx) {
    if (norm_compute_dtype(ctx.input(0).desc.dtype) == DType::kDouble)
      lrn_run<double>(ctx, p);
    else
      lrn_run<float>(ctx, p);
  });
}

}  // namespace geon::cpu
