// run_conv_tiles_avx2: the 6x16 register tile. Compiled for AVX2 + FMA whatever the build's
// target (the standard headers come first, so only this file's own functions take it); the
// callers check the CPU first. The accumulators are named variables, not an array: GCC keeps
// an array in memory across the tap loop and stores it on every step (3x slower).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/native/conv_tiles.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif

#include "kernels/cpu/native/epilogue_avx2.h"

namespace geon::cpu::native {
namespace {

// out[i][0..16) = act(bias + sum over taps t and channels c of x[i][tap t][c] * w[t][c][0..16)
// + z[i]) for the MR pixels whose input starts at xs[i]; zs null: no residual.
template <int MR>
void tile(const float* const* xs, const int64_t* taps, int taps_count, int64_t channels,
          const float* w, const float* bias, float* const* ys, const float* const* zs,
          const Epilogue& e) {
  __m256 a00, a01, a10, a11, a20, a21, a30, a31, a40, a41, a50, a51;
  a00 = a10 = a20 = a30 = a40 = a50 = _mm256_loadu_ps(bias);
  a01 = a11 = a21 = a31 = a41 = a51 = _mm256_loadu_ps(bias + 8);
  for (int t = 0; t < taps_count; ++t) {
    const int64_t o = taps[t];
    // Pixels past MR read pixel 0's input: loaded, never used.
    const float* x0 = xs[0] + o;
    const float* x1 = xs[MR > 1 ? 1 : 0] + o;
    const float* x2 = xs[MR > 2 ? 2 : 0] + o;
    const float* x3 = xs[MR > 3 ? 3 : 0] + o;
    const float* x4 = xs[MR > 4 ? 4 : 0] + o;
    const float* x5 = xs[MR > 5 ? 5 : 0] + o;
#pragma GCC unroll 4
    for (int64_t c = 0; c < channels; ++c) {
      const __m256 b0 = _mm256_load_ps(w), b1 = _mm256_load_ps(w + 8);
      w += kTileChannels;
      __m256 a;
#define GEON_TILE_STEP(i)                      \
  if (MR > i) {                                \
    a = _mm256_broadcast_ss(x##i + c);         \
    a##i##0 = _mm256_fmadd_ps(a, b0, a##i##0); \
    a##i##1 = _mm256_fmadd_ps(a, b1, a##i##1); \
  }
      GEON_TILE_STEP(0)
      GEON_TILE_STEP(1)
      GEON_TILE_STEP(2)
      GEON_TILE_STEP(3)
      GEON_TILE_STEP(4)
      GEON_TILE_STEP(5)
#undef GEON_TILE_STEP
    }
  }
#define GEON_TILE_STORE(i)                                          \
  if (MR > i) {                                                     \
    if (zs) {                                                       \
      a##i##0 = _mm256_add_ps(a##i##0, _mm256_loadu_ps(zs[i]));     \
      a##i##1 = _mm256_add_ps(a##i##1, _mm256_loadu_ps(zs[i] + 8)); \
    }                                                               \
    _mm256_storeu_ps(ys[i], activate(a##i##0, e));                  \
    _mm256_storeu_ps(ys[i] + 8, activate(a##i##1, e));              \
  }
  GEON_TILE_STORE(0)
  GEON_TILE_STORE(1)
  GEON_TILE_STORE(2)
  GEON_TILE_STORE(3)
  GEON_TILE_STORE(4)
  GEON_TILE_STORE(5)
#undef GEON_TILE_STORE
}

// tile<MR>'s work for a last block of at most 8 output channels (K = 24 or 40, say): only the
// low 8 lanes, half the FMAs (a full tile spent half its work on zero weights). Each lane
// adds the same products in the same order as in tile<MR>, so the results are the same bit
// for bit. Six accumulators wait on the FMA latency, but still take 4 cycles per channel on a
// Zen 4 against the full tile's 6.
template <int MR>
void half_tile(const float* const* xs, const int64_t* taps, int taps_count, int64_t channels,
               const float* w, const float* bias, float* const* ys, const float* const* zs,
               const Epilogue& e) {
  __m256 a0, a1, a2, a3, a4, a5;
  a0 = a1 = a2 = a3 = a4 = a5 = _mm256_loadu_ps(bias);
  for (int t = 0; t < taps_count; ++t) {
    const int64_t o = taps[t];
    const float* x0 = xs[0] + o;
    const float* x1 = xs[MR > 1 ? 1 : 0] + o;
    const float* x2 = xs[MR > 2 ? 2 : 0] + o;
    const float* x3 = xs[MR > 3 ? 3 : 0] + o;
    const float* x4 = xs[MR > 4 ? 4 : 0] + o;
    const float* x5 = xs[MR > 5 ? 5 : 0] + o;
#pragma GCC unroll 4
    for (int64_t c = 0; c < channels; ++c) {
      const __m256 b = _mm256_load_ps(w);
      w += kTileChannels;
#define GEON_HALF_STEP(i) \
  if (MR > i) a##i = _mm256_fmadd_ps(_mm256_broadcast_ss(x##i + c), b, a##i);
      GEON_HALF_STEP(0)
      GEON_HALF_STEP(1)
      GEON_HALF_STEP(2)
      GEON_HALF_STEP(3)
      GEON_HALF_STEP(4)
      GEON_HALF_STEP(5)
#undef GEON_HALF_STEP
    }
  }
#define GEON_HALF_STORE(i)                                      \
  if (MR > i) {                                                 \
    if (zs) a##i = _mm256_add_ps(a##i, _mm256_loadu_ps(zs[i])); \
    _mm256_storeu_ps(ys[i], activate(a##i, e));                 \
  }
  GEON_HALF_STORE(0)
  GEON_HALF_STORE(1)
  GEON_HALF_STORE(2)
  GEON_HALF_STORE(3)
  GEON_HALF_STORE(4)
  GEON_HALF_STORE(5)
#undef GEON_HALF_STORE
}

// tile<1>'s work (one pixel: a matrix-vector product when the tile is a small Gemm's row) with
// four partial sums per half, over channels c mod 4. tile<1> keeps one accumulator per half, a
// chain of dependent FMAs that runs at a quarter of the FMA rate; here four chains do not wait
// on each other. The partial sums add up in a fixed order, so results do not vary run to run.
void tile_one(const float* const* xs, const int64_t* taps, int taps_count, int64_t channels,
              const float* w, const float* bias, float* const* ys, const float* const* zs,
              const Epilogue& e) {
  __m256 p00 = _mm256_loadu_ps(bias), p01 = _mm256_loadu_ps(bias + 8);
  __m256 p10 = _mm256_setzero_ps(), p11 = p10, p20 = p10, p21 = p10, p30 = p10, p31 = p10;
  for (int t = 0; t < taps_count; ++t) {
    const float* x = xs[0] + taps[t];
    int64_t c = 0;
    for (; c + 4 <= channels; c += 4, w += 4 * kTileChannels) {
#define GEON_ONE_STEP(j)                                                              \
  {                                                                                   \
    const __m256 a = _mm256_broadcast_ss(x + c + j);                                  \
    p##j##0 = _mm256_fmadd_ps(a, _mm256_load_ps(w + j * kTileChannels), p##j##0);     \
    p##j##1 = _mm256_fmadd_ps(a, _mm256_load_ps(w + j * kTileChannels + 8), p##j##1); \
  }
      GEON_ONE_STEP(0)
      GEON_ONE_STEP(1)
      GEON_ONE_STEP(2)
      GEON_ONE_STEP(3)
#undef GEON_ONE_STEP
    }
    for (; c < channels; ++c, w += kTileChannels) {
      const __m256 a = _mm256_broadcast_ss(x + c);
      p00 = _mm256_fmadd_ps(a, _mm256_load_ps(w), p00);
      p01 = _mm256_fmadd_ps(a, _mm256_load_ps(w + 8), p01);
    }
  }
  __m256 a0 = _mm256_add_ps(_mm256_add_ps(p00, p10), _mm256_add_ps(p20, p30));
  __m256 a1 = _mm256_add_ps(_mm256_add_ps(p01, p11), _mm256_add_ps(p21, p31));
  if (zs) {
    a0 = _mm256_add_ps(a0, _mm256_loadu_ps(zs[0]));
    a1 = _mm256_add_ps(a1, _mm256_loadu_ps(zs[0] + 8));
  }
  _mm256_storeu_ps(ys[0], activate(a0, e));
  _mm256_storeu_ps(ys[0] + 8, activate(a1, e));
}

using TileFn = void (*)(const float* const*, const int64_t*, int, int64_t, const float*,
                        const float*, float* const*, const float* const*, const Epilogue&);
constexpr TileFn kTiles[kTilePixels + 1] = {nullptr, tile_one, tile<2>, tile<3>,
                                            tile<4>, tile<5>,  tile<6>};
// No one-pixel entry: a lone pixel keeps tile_one (its four chains beat one 8-lane chain),
// through the scratch tile.
constexpr TileFn kHalfTiles[kTilePixels + 1] = {
    nullptr, nullptr, half_tile<2>, half_tile<3>, half_tile<4>, half_tile<5>, half_tile<6>};

}  // namespace

void run_conv_tiles_avx2(const ConvTiles& job, int64_t first, int64_t last) {
  if (first >= last) return;  // an empty job has no tiles to divide by
  const Epilogue e = make_epilogue(job.activation, job.alpha, job.beta);
  const int64_t tiles = job.tiles(), pixels = job.pixels();
  const int64_t plane = job.out_h * job.out_w;
  const int64_t block_floats = static_cast<int64_t>(job.taps_count) * job.channels * kTileChannels;
  // The last block of a K that is not a multiple of 16 goes through this scratch tile.
  alignas(32) float tail_y[kTilePixels][kTileChannels] = {};
  alignas(32) float tail_z[kTilePixels][kTileChannels] = {};
  // The range's first tile and its first pixel's position by division, every later one by
  // stepping: five divisions a tile were a tenth of a small Gemm's time (the committed MLP at
  // batch 64 on one thread: 25.8 -> 25.0 us a run). The pixel loop leaves (n, oh, ow) at the
  // next tile's first pixel.
  int64_t block = first / tiles, t = first % tiles;
  const int64_t start = t * kTilePixels;
  int64_t n = start / plane, oh = start % plane / job.out_w, ow = start % plane % job.out_w;
  for (int64_t item = first; item < last; ++item) {
    const int64_t k0 = block * kTileChannels;
    const int64_t p0 = t * kTilePixels;
    const int m = static_cast<int>(std::min<int64_t>(kTilePixels, pixels - p0));
    const float* xs[kTilePixels];
    float* ys[kTilePixels];
    const float* zs[kTilePixels];
    for (int i = 0; i < m; ++i) {
      const int64_t p = p0 + i;
      xs[i] = job.x + n * job.x_image + oh * job.stride_h * job.x_row +
              ow * job.stride_w * job.channels;
      ys[i] = job.y + p * job.k + k0;
      zs[i] = job.z ? job.z + p * job.k + k0 : nullptr;
      if (++ow == job.out_w) {
        ow = 0;
        if (++oh == job.out_h) {
          oh = 0;
          ++n;
        }
      }
    }
    const int64_t valid = std::min<int64_t>(kTileChannels, job.k - k0);
    const bool half = valid <= kTileChannels / 2 && m > 1;
    const bool tail = valid < (half ? kTileChannels / 2 : kTileChannels);
    float* const* out = ys;
    const float* const* res = job.z ? zs : nullptr;
    float* tail_ys[kTilePixels];
    const float* tail_zs[kTilePixels];
    if (tail) {
      for (int i = 0; i < m; ++i) {
        tail_ys[i] = tail_y[i];
        tail_zs[i] = tail_z[i];
        if (job.z) std::memcpy(tail_z[i], zs[i], sizeof(float) * valid);
      }
      out = tail_ys;
      res = job.z ? tail_zs : nullptr;
    }
    (half ? kHalfTiles : kTiles)[m](xs, job.taps, job.taps_count, job.channels,
                                    job.weights + block * block_floats, job.bias + k0, out, res, e);
    if (tail)
      for (int i = 0; i < m; ++i) std::memcpy(ys[i], tail_y[i], sizeof(float) * valid);
    if (++t == tiles) {
      t = 0;
      ++block;
      n = oh = ow = 0;
    }
  }
}

}  // namespace geon::cpu::native

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
