// The row kernels of pointwise_depthwise_rows.h. Compiled for AVX2 + FMA whatever the build's
// target (the standard headers come first, so only this file's own functions take it); the
// callers check the CPU first. Accumulators are named variables, as in conv_tiles_avx2.cc.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "kernels/cpu/native/pointwise_depthwise_rows.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif

#include "kernels/cpu/native/epilogue_avx2.h"

namespace geon::cpu::native {
namespace {

// MR pixels x 16 channels of the expansion: d0[i * 8] and d1[i * 8] (the 16 channels' two
// ring blocks; d1 null when the second block lies past m) = act(x[i] · w + bias).
template <int MR>
void expand_tile(const float* x, int64_t c, const float* w, __m256 b0, __m256 b1, float* d0,
                 float* d1, const Epilogue& e) {
  __m256 a00, a01, a10, a11, a20, a21, a30, a31, a40, a41, a50, a51;
  a00 = a10 = a20 = a30 = a40 = a50 = b0;
  a01 = a11 = a21 = a31 = a41 = a51 = b1;
#pragma GCC unroll 4
  for (int64_t k = 0; k < c; ++k) {
    const __m256 w0 = _mm256_load_ps(w + k * 16), w1 = _mm256_load_ps(w + k * 16 + 8);
    __m256 a;
#define GEON_EXPAND_STEP(i)                    \
  if (MR > i) {                                \
    a = _mm256_broadcast_ss(x + i * c + k);    \
    a##i##0 = _mm256_fmadd_ps(a, w0, a##i##0); \
    a##i##1 = _mm256_fmadd_ps(a, w1, a##i##1); \
  }
    GEON_EXPAND_STEP(0)
    GEON_EXPAND_STEP(1)
    GEON_EXPAND_STEP(2)
    GEON_EXPAND_STEP(3)
    GEON_EXPAND_STEP(4)
    GEON_EXPAND_STEP(5)
#undef GEON_EXPAND_STEP
  }
#define GEON_EXPAND_STORE(i)                                            \
  if (MR > i) {                                                         \
    _mm256_store_ps(d0 + i * kRingBlock, activate(a##i##0, e));         \
    if (d1) _mm256_store_ps(d1 + i * kRingBlock, activate(a##i##1, e)); \
  }
  GEON_EXPAND_STORE(0)
  GEON_EXPAND_STORE(1)
  GEON_EXPAND_STORE(2)
  GEON_EXPAND_STORE(3)
  GEON_EXPAND_STORE(4)
  GEON_EXPAND_STORE(5)
#undef GEON_EXPAND_STORE
}

using ExpandTile = void (*)(const float*, int64_t, const float*, __m256, __m256, float*, float*,
                            const Epilogue&);
constexpr int kExpandPixels = 6;
constexpr ExpandTile kExpandTiles[kExpandPixels + 1] = {
    nullptr,        expand_tile<1>, expand_tile<2>, expand_tile<3>,
    expand_tile<4>, expand_tile<5>, expand_tile<6>};

// Four outputs of one 8-channel block: window row r's input columns loaded once and shared by
// the outputs whose windows overlap (6 columns at stride 1, 9 at stride 2).
template <int S>
void depthwise_quad(const float* const* rows, const int* taps, int n, const float* w, __m256 bias,
                    int64_t ox, int64_t m, float* y, const Epilogue& e) {
  __m256 a0 = bias, a1 = bias, a2 = bias, a3 = bias;
  for (int k = 0; k < n; ++k) {
    const float* q = rows[k] + ox * S * kRingBlock;
    const float* wr = w + taps[k] * 3 * kRingBlock;
    const __m256 w0 = _mm256_load_ps(wr), w1 = _mm256_load_ps(wr + 8), w2 = _mm256_load_ps(wr + 16);
    const auto col = [q](int j) { return _mm256_load_ps(q + j * kRingBlock); };
    if (S == 1) {
      __m256 i0 = col(0), i1 = col(1), i2 = col(2);
      a0 = _mm256_fmadd_ps(i0, w0, a0);
      a0 = _mm256_fmadd_ps(i1, w1, a0);
      a0 = _mm256_fmadd_ps(i2, w2, a0);
      a1 = _mm256_fmadd_ps(i1, w0, a1);
      a1 = _mm256_fmadd_ps(i2, w1, a1);
      a2 = _mm256_fmadd_ps(i2, w0, a2);
      i0 = col(3);
      a1 = _mm256_fmadd_ps(i0, w2, a1);
      a2 = _mm256_fmadd_ps(i0, w1, a2);
      a3 = _mm256_fmadd_ps(i0, w0, a3);
      i1 = col(4);
      a2 = _mm256_fmadd_ps(i1, w2, a2);
      a3 = _mm256_fmadd_ps(i1, w1, a3);
      i2 = col(5);
      a3 = _mm256_fmadd_ps(i2, w2, a3);
    } else {
      __m256 i0 = col(0), i1 = col(1), i2 = col(2);
      a0 = _mm256_fmadd_ps(i0, w0, a0);
      a0 = _mm256_fmadd_ps(i1, w1, a0);
      a0 = _mm256_fmadd_ps(i2, w2, a0);
      a1 = _mm256_fmadd_ps(i2, w0, a1);
      i0 = col(3);
      i1 = col(4);
      a1 = _mm256_fmadd_ps(i0, w1, a1);
      a1 = _mm256_fmadd_ps(i1, w2, a1);
      a2 = _mm256_fmadd_ps(i1, w0, a2);
      i0 = col(5);
      i2 = col(6);
      a2 = _mm256_fmadd_ps(i0, w1, a2);
      a2 = _mm256_fmadd_ps(i2, w2, a2);
      a3 = _mm256_fmadd_ps(i2, w0, a3);
      i0 = col(7);
      i1 = col(8);
      a3 = _mm256_fmadd_ps(i0, w1, a3);
      a3 = _mm256_fmadd_ps(i1, w2, a3);
    }
  }
  float* o = y + ox * m;
  _mm256_storeu_ps(o, activate(a0, e));
  _mm256_storeu_ps(o + m, activate(a1, e));
  _mm256_storeu_ps(o + 2 * m, activate(a2, e));
  _mm256_storeu_ps(o + 3 * m, activate(a3, e));
}

template <int S>
void depthwise_row(const PointwiseDepthwiseRows& job, const float* const rows[3], float* y) {
  const Epilogue e = make_epilogue(job.act2, job.alpha2, job.beta2);
  const int64_t block_floats = (job.width + 2) * kRingBlock;
  for (int64_t cb = 0; cb < job.m / kRingBlock; ++cb) {
    const float* w = job.w2 + cb * 9 * kRingBlock;
    const __m256 bias = _mm256_loadu_ps(job.b2 + cb * kRingBlock);
    const float* rr[3];
    int taps[3];
    int n = 0;
    for (int r = 0; r < 3; ++r)
      if (rows[r]) {
        rr[n] = rows[r] + cb * block_floats;
        taps[n++] = r;
      }
    float* yb = y + cb * kRingBlock;
    int64_t ox = 0;
    for (; ox + 4 <= job.out_width; ox += 4)
      depthwise_quad<S>(rr, taps, n, w, bias, ox, job.m, yb, e);
    for (; ox < job.out_width; ++ox) {
      __m256 a = bias;
      for (int k = 0; k < n; ++k) {
        const float* q = rr[k] + ox * S * kRingBlock;
        const float* wr = w + taps[k] * 3 * kRingBlock;
        for (int s = 0; s < 3; ++s)
          a = _mm256_fmadd_ps(_mm256_load_ps(q + s * kRingBlock), _mm256_load_ps(wr + s * 8), a);
      }
      _mm256_storeu_ps(yb + ox * job.m, activate(a, e));
    }
  }
}

}  // namespace

void expand_row_avx2(const PointwiseDepthwiseRows& job, const float* x_row, float* ring_row) {
  const Epilogue e = make_epilogue(job.act1, job.alpha1, job.beta1);
  const int64_t block_floats = (job.width + 2) * kRingBlock;
  const int64_t ring_blocks = job.m / kRingBlock;
  for (int64_t blk = 0; 2 * blk < ring_blocks; ++blk) {
    const float* w = job.w1 + blk * job.c * 16;
    const __m256 b0 = _mm256_load_ps(job.b1 + blk * 16), b1 = _mm256_load_ps(job.b1 + blk * 16 + 8);
    float* d0 = ring_row + 2 * blk * block_floats + kRingBlock;  // past the zero column
    float* d1 = 2 * blk + 1 < ring_blocks ? d0 + block_floats : nullptr;
    for (int64_t x = 0; x < job.width; x += kExpandPixels) {
      const int mr = static_cast<int>(std::min<int64_t>(kExpandPixels, job.width - x));
      kExpandTiles[mr](x_row + x * job.c, job.c, w, b0, b1, d0 + x * kRingBlock,
                       d1 ? d1 + x * kRingBlock : nullptr, e);
    }
  }
}

void depthwise_row_avx2(const PointwiseDepthwiseRows& job, const float* const rows[3],
                        float* y_row) {
  if (job.stride == 1)
    depthwise_row<1>(job, rows, y_row);
  else
    depthwise_row<2>(job, rows, y_row);
}

}  // namespace geon::cpu::native

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
