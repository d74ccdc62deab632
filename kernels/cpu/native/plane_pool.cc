// NCHW pooling by output rows (plane_pool.h): the window's input rows are folded into one row
// (vertical pass, unit stride), which is then folded along its taps into the output row
// (horizontal pass at the pool's stride; 2- and 3-tap windows with the taps in registers).
// Pooling is separable for max and sum alike. Averages divide by each output position's count,
// the product of its row's and its column's.
#include "kernels/cpu/native/plane_pool.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/conv_params.h"

namespace geon::cpu {
namespace {

// One spatial dim of the window, the second dim of a 1-D pool being a trivial one.
struct Axis {
  int64_t in = 1, out = 1, kernel = 1, stride = 1, dilation = 1, pad_begin = 0, pad_end = 0;
  int64_t x_stride = 0, y_stride = 0;
  // Per output: its taps inside X, and inside X and its pads; floats for the division (int64
  // to float does not vectorize).
  std::vector<float> inside, padded;
};

// False when some output has no tap inside X.
bool resolve(Axis& a) {
  a.inside.assign(a.out, 0);
  a.padded.assign(a.out, 0);
  for (int64_t o = 0; o < a.out; ++o)
    for (int64_t k = 0; k < a.kernel; ++k) {
      const int64_t i = o * a.stride - a.pad_begin + k * a.dilation;
      a.inside[o] += i >= 0 && i < a.in;
      a.padded[o] += i >= -a.pad_begin && i < a.in + a.pad_end;
    }
  return std::all_of(a.inside.begin(), a.inside.end(), [](float n) { return n > 0; });
}

template <bool kMax>
inline float combine(float m, float v) {
  if constexpr (kMax)
    // A NaN on either side wins. Written this way GCC vectorizes it (m > v || m != m did not
    // vectorize in the strided column loops).
    return (m != m) ? m : (v > m || v != v) ? v : m;
  else
    return m + v;
}

// y[o] = the fold of t[o * S + k] over the K taps (then the average's division), with the
// window's length and stride known to the compiler, so the taps stay in registers.
template <bool kMax, int K, int S>
void fold_columns(float* y, const float* t, int64_t n, const float* cols, float rows) {
  for (int64_t o = 0; o < n; ++o) {
    float acc = t[o * S];
    for (int k = 1; k < K; ++k) acc = combine<kMax>(acc, t[o * S + k]);
    if constexpr (kMax)
      y[o] = acc;
    else
      y[o] = acc / (rows * cols[o]);
  }
}

// The same for any window: a pass over the row per tap.
template <bool kMax>
void fold_columns(float* y, const float* t, const Axis& w, const float* cols, float rows) {
  const int64_t n = w.out, s = w.stride, d = w.dilation;
  for (int64_t o = 0; o < n; ++o) y[o] = t[o * s];
  for (int64_t k = 1; k < w.kernel; ++k)
    for (int64_t o = 0; o < n; ++o) y[o] = combine<kMax>(y[o], t[o * s + k * d]);
  if constexpr (!kMax)
    for (int64_t o = 0; o < n; ++o) y[o] /= rows * cols[o];
}

// Output row oy of one plane, through t: the fold of its window's input rows, laid out from
// position -pad_begin with the fold's identity outside X (pads and ceil_mode's extra positions
// count as nothing), so that every output's taps read t without bounds.
template <bool kMax>
void pool_row(const Axis& h, const Axis& w, bool include_pad, const float* x, float* y, int64_t oy,
              float* t) {
  float* in = t + w.pad_begin;
  bool first = true;
  for (int64_t ky = 0; ky < h.kernel; ++ky) {
    const int64_t iy = oy * h.stride - h.pad_begin + ky * h.dilation;
    if (iy < 0 || iy >= h.in) continue;
    const float* row = x + iy * h.x_stride;
    if (first)
      std::copy_n(row, w.in, in);
    else
      for (int64_t i = 0; i < w.in; ++i) in[i] = combine<kMax>(in[i], row[i]);
    first = false;
  }
  const float* cols = include_pad ? w.padded.data() : w.inside.data();
  const float rows = include_pad ? h.padded[oy] : h.inside[oy];
  const int64_t n = w.out;
  if (w.dilation == 1 && w.kernel == 2 && w.stride == 1)
    fold_columns<kMax, 2, 1>(y, t, n, cols, rows);
  else if (w.dilation == 1 && w.kernel == 2 && w.stride == 2)
    fold_columns<kMax, 2, 2>(y, t, n, cols, rows);
  else if (w.dilation == 1 && w.kernel == 3 && w.stride == 1)
    fold_columns<kMax, 3, 1>(y, t, n, cols, rows);
  else if (w.dilation == 1 && w.kernel == 3 && w.stride == 2)
    fold_columns<kMax, 3, 2>(y, t, n, cols, rows);
  else
    fold_columns<kMax>(y, t, w, cols, rows);
}

Axis axis(const PoolGeometry& g, int i, const TensorDesc& x, const TensorDesc& y) {
  Axis a;
  a.in = g.in[i];
  a.out = g.out[i];
  a.kernel = g.kernel[i];
  a.stride = g.strides[i];
  a.dilation = g.dilations[i];
  a.pad_begin = g.pad_begin[i];
  a.pad_end = g.pad_end[i];
  a.x_stride = x.strides[2 + i];
  a.y_stride = y.strides[2 + i];
  return a;
}

}  // namespace

bool pool_planes(PlanePool kind, const PoolGeometry& g, const ConstOperand& x, const Operand& y) {
  const int s = g.spatial();
  const TensorDesc &xd = x.desc, &yd = y.desc;
  if (s < 1 || s > 2 || xd.rank() != s + 2 || yd.rank() != s + 2 || xd.dtype != DType::kFloat ||
      yd.dtype != DType::kFloat || xd.strides[s + 1] != 1 || yd.strides[s + 1] != 1 ||
      shares_memory(x.data, xd, y.data, yd))
    return false;
  for (int i = 0; i < s; ++i)
    if (xd.shape[2 + i] != g.in[i] || yd.shape[2 + i] != g.out[i]) return false;
  if (yd.shape[0] != xd.shape[0] || yd.shape[1] != xd.shape[1]) return false;
  Axis h, w = axis(g, s - 1, xd, yd);
  if (s == 2) h = axis(g, 0, xd, yd);
  if (!resolve(h) || !resolve(w)) return false;
  const int64_t n = xd.shape[0], c = xd.shape[1];
  const int64_t rows = n * c * h.out;
  if (rows * w.out == 0) return true;
  const float* xp = static_cast<const float*>(x.data) + xd.offset;
  float* yp = static_cast<float*>(y.data) + yd.offset;
  const bool include_pad = kind == PlanePool::kAverageIncludingPad;
  ThreadPool& pool = default_thread_pool();
  // About 64K taps a part at least: below that a part costs less than waking a thread.
  const int64_t taps = rows * w.out * h.kernel * w.kernel;
  const int parts =
      static_cast<int>(std::clamp<int64_t>(taps / 65536, 1, std::min<int64_t>(rows, pool.size())));
  // t's length: X's row with its begin pad, or as far as the last output's last tap reads.
  const int64_t t_len =
      std::max(w.pad_begin + w.in, (w.out - 1) * w.stride + (w.kernel - 1) * w.dilation + 1);
  const float identity = kind == PlanePool::kMax ? -std::numeric_limits<float>::infinity() : 0;
  pool.run(parts, [&](int part) {
    std::vector<float> t(static_cast<size_t>(t_len), identity);
    for (int64_t r = rows * part / parts; r < rows * (part + 1) / parts; ++r) {
      const int64_t plane = r / h.out, oy = r % h.out, img = plane / c, ch = plane % c;
      const float* xplane = xp + img * xd.strides[0] + ch * xd.strides[1];
      float* yrow = yp + img * yd.strides[0] + ch * yd.strides[1] + oy * h.y_stride;
      if (kind == PlanePool::kMax)
        pool_row<true>(h, w, include_pad, xplane, yrow, oy, t.data());
      else
        pool_row<false>(h, w, include_pad, xplane, yrow, oy, t.data());
    }
  });
  return true;
}

}  // namespace geon::cpu
