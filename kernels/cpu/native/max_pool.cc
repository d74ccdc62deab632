// Channels-last 2-D MaxPool: per output pixel, an elementwise max over the window's input
// pixels, each a contiguous run of C floats (the compiler vectorizes the channel loop).
#include "kernels/cpu/native/max_pool.h"

#include <algorithm>
#include <cstring>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/conv_params.h"

namespace geon::cpu {
namespace {

// Whether every output position along one dim has at least one tap inside the input.
bool every_window_touches_input(int64_t in, int64_t out, int64_t kernel, int64_t stride,
                                int64_t dilation, int64_t pad) {
  for (int64_t o = 0; o < out; ++o) {
    bool any = false;
    for (int64_t k = 0; k < kernel && !any; ++k) {
      const int64_t i = o * stride - pad + k * dilation;
      any = i >= 0 && i < in;
    }
    if (!any) return false;
  }
  return true;
}

// out = max(out, in) elementwise; a NaN on either side wins and stays.
void max_into(float* out, const float* in, int64_t c) {
  for (int64_t k = 0; k < c; ++k) {
    const float m = out[k], v = in[k];
    out[k] = (m > v || m != m) ? m : v;
  }
}

}  // namespace

bool max_pool_2d_channels_last(const PoolGeometry& g, const ConstOperand& x, const Operand& y) {
  const Dims& xs = x.desc.shape;
  if (g.spatial() != 2 || xs.size() != 4 || x.desc.dtype != DType::kFloat ||
      y.desc.dtype != DType::kFloat || y.desc.rank() != 4 || y.desc.shape[0] != xs[0] ||
      y.desc.shape[1] != xs[1] || y.desc.shape[2] != g.out[0] || y.desc.shape[3] != g.out[1] ||
      xs[2] != g.in[0] || xs[3] != g.in[1] || !is_channels_last(x.desc) ||
      !is_channels_last(y.desc) || shares_memory(x.data, x.desc, y.data, y.desc))
    return false;
  for (int i = 0; i < 2; ++i)
    if (!every_window_touches_input(g.in[i], g.out[i], g.kernel[i], g.strides[i], g.dilations[i],
                                    g.pad_begin[i]))
      return false;
  const int64_t n = xs[0], c = xs[1], h = xs[2], w = xs[3], oh = g.out[0], ow = g.out[1];
  if (n * c * oh * ow == 0) return true;
  const float* xp = static_cast<const float*>(x.data) + x.desc.offset;
  float* yp = static_cast<float*>(y.data) + y.desc.offset;
  const int64_t rows = n * oh;
  ThreadPool& pool = default_thread_pool();
  // About 16K outputs a part at least: below that a part costs less than waking a thread.
  const int parts = static_cast<int>(
      std::clamp<int64_t>(rows * ow * c / 16384, 1, std::min<int64_t>(rows, pool.size())));
  pool.run(parts, [&](int part) {
    for (int64_t r = rows * part / parts; r < rows * (part + 1) / parts; ++r) {
      const int64_t img = r / oh, oy = r % oh;
      for (int64_t ox = 0; ox < ow; ++ox) {
        float* out = yp + (r * ow + ox) * c;
        bool first = true;
        for (int64_t ky = 0; ky < g.kernel[0]; ++ky) {
          const int64_t iy = oy * g.strides[0] - g.pad_begin[0] + ky * g.dilations[0];
          if (iy < 0 || iy >= h) continue;
          for (int64_t kx = 0; kx < g.kernel[1]; ++kx) {
            const int64_t ix = ox * g.strides[1] - g.pad_begin[1] + kx * g.dilations[1];
            if (ix < 0 || ix >= w) continue;
            const float* in = xp + ((img * h + iy) * w + ix) * c;
            if (first)
              std::memcpy(out, in, sizeof(float) * c);
            else
              max_into(out, in, c);
            first = false;
          }
        }
      }
    }
  });
  return true;
}

}  // namespace geon::cpu
