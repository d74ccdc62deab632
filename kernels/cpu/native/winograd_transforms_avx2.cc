// winograd_input_avx2 / winograd_output_avx2 with Lavin and Gray's matrices for the points 0,
// ±1, ±2 and infinity. Compiled for AVX2 + FMA as conv_tiles_avx2.cc is; callers check the CPU.
// Each transform is two passes of the 1-D one, columns into a 6x6 (or 4x6) block of registers
// spilled to the stack, then rows; the constants are small integers, so the 1-D transforms are
// a few FMAs each.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "kernels/cpu/native/winograd_transforms.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif

#include "kernels/cpu/native/epilogue_avx2.h"

namespace geon::cpu::native {
namespace {

// r = Bt z, Bt = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0;
// 0 4 0 -5 0 1].
inline void input_1d(const __m256 z[6], __m256 r[6]) {
  const __m256 four = _mm256_set1_ps(4.0f), five = _mm256_set1_ps(5.0f);
  const __m256 two = _mm256_set1_ps(2.0f);
  const __m256 z4_minus_4z2 = _mm256_fnmadd_ps(four, z[2], z[4]);  // z4 - 4 z2
  const __m256 z3_minus_4z1 = _mm256_fnmadd_ps(four, z[1], z[3]);  // z3 - 4 z1
  const __m256 z4_minus_z2 = _mm256_sub_ps(z[4], z[2]);
  const __m256 z3_minus_z1 = _mm256_sub_ps(z[3], z[1]);
  r[0] = _mm256_add_ps(_mm256_fnmadd_ps(five, z[2], _mm256_mul_ps(four, z[0])), z[4]);
  r[1] = _mm256_add_ps(z4_minus_4z2, z3_minus_4z1);        // -4z1 - 4z2 + z3 + z4
  r[2] = _mm256_sub_ps(z4_minus_4z2, z3_minus_4z1);        // 4z1 - 4z2 - z3 + z4
  r[3] = _mm256_fmadd_ps(two, z3_minus_z1, z4_minus_z2);   // -2z1 - z2 + 2z3 + z4
  r[4] = _mm256_fnmadd_ps(two, z3_minus_z1, z4_minus_z2);  // 2z1 - z2 - 2z3 + z4
  r[5] = _mm256_add_ps(_mm256_fnmadd_ps(five, z[3], _mm256_mul_ps(four, z[1])), z[5]);
}

// r = At m, At = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1].
inline void output_1d(const __m256 m[6], __m256 r[4]) {
  const __m256 sum12 = _mm256_add_ps(m[1], m[2]), dif12 = _mm256_sub_ps(m[1], m[2]);
  const __m256 sum34 = _mm256_add_ps(m[3], m[4]), dif34 = _mm256_sub_ps(m[3], m[4]);
  r[0] = _mm256_add_ps(_mm256_add_ps(m[0], sum12), sum34);
  r[1] = _mm256_fmadd_ps(_mm256_set1_ps(2.0f), dif34, dif12);
  r[2] = _mm256_fmadd_ps(_mm256_set1_ps(4.0f), sum34, sum12);
  r[3] = _mm256_add_ps(_mm256_fmadd_ps(_mm256_set1_ps(8.0f), dif34, dif12), m[5]);
}

}  // namespace

void winograd_input_avx2(const WinogradJob& job, int64_t first, int64_t count, float* v,
                         int64_t point_stride) {
  const int64_t th = job.tiles_h(), tw = job.tiles_w(), per_image = th * tw;
  for (int64_t t = 0; t < count; ++t) {
    const int64_t tile = first + t, n = tile / per_image;
    const int64_t y0 = tile % per_image / tw * kWinogradTile - job.pad_top;
    const int64_t x0 = tile % per_image % tw * kWinogradTile - job.pad_left;
    // Each patch element's input pixel, null where the patch reads a pad.
    const float* at[6][6];
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) {
        const int64_t yy = y0 + i, xx = x0 + j;
        const bool inside = yy >= 0 && yy < job.h && xx >= 0 && xx < job.w;
        at[i][j] = inside ? job.x + ((n * job.h + yy) * job.w + xx) * job.c : nullptr;
      }
    float* out = v + t * job.c;
    for (int64_t c = 0; c < job.c; c += 8) {
      __m256 cols[6][6];  // cols[i][j]: row i of Bt d for patch column j
      for (int j = 0; j < 6; ++j) {
        __m256 z[6];
        for (int i = 0; i < 6; ++i)
          z[i] = at[i][j] ? _mm256_loadu_ps(at[i][j] + c) : _mm256_setzero_ps();
        __m256 r[6];
        input_1d(z, r);
        for (int i = 0; i < 6; ++i) cols[i][j] = r[i];
      }
      for (int i = 0; i < 6; ++i) {
        __m256 r[6];
        input_1d(cols[i], r);
        for (int j = 0; j < 6; ++j) _mm256_storeu_ps(out + (i * 6 + j) * point_stride + c, r[j]);
      }
    }
  }
}

void winograd_output_avx2(const WinogradJob& job, int64_t first, int64_t count, const float* m,
                          int64_t point_stride) {
  const Epilogue e = make_epilogue(job.activation, job.alpha, job.beta);
  const int64_t th = job.tiles_h(), tw = job.tiles_w(), per_image = th * tw;
  for (int64_t t = 0; t < count; ++t) {
    const int64_t tile = first + t, n = tile / per_image;
    const int64_t y0 = tile % per_image / tw * kWinogradTile;
    const int64_t x0 = tile % per_image % tw * kWinogradTile;
    const int rows = static_cast<int>(std::min<int64_t>(kWinogradTile, job.out_h - y0));
    const int cols = static_cast<int>(std::min<int64_t>(kWinogradTile, job.out_w - x0));
    const float* in = m + t * job.k;
    const int64_t out0 = ((n * job.out_h + y0) * job.out_w + x0) * job.k;
    for (int64_t k = 0; k < job.k; k += 8) {
      __m256 half[4][6];  // half[r][j]: row r of At m for column j
      for (int j = 0; j < 6; ++j) {
        __m256 z[6];
        for (int i = 0; i < 6; ++i) z[i] = _mm256_loadu_ps(in + (i * 6 + j) * point_stride + k);
        __m256 r[4];
        output_1d(z, r);
        for (int i = 0; i < 4; ++i) half[i][j] = r[i];
      }
      const __m256 bias = _mm256_loadu_ps(job.bias + k);
      for (int i = 0; i < rows; ++i) {
        __m256 r[4];
        output_1d(half[i], r);
        for (int j = 0; j < cols; ++j) {
          const int64_t at = out0 + (i * job.out_w + j) * job.k + k;
          __m256 s = _mm256_add_ps(r[j], bias);
          if (job.z) s = _mm256_add_ps(s, _mm256_loadu_ps(job.z + at));
          _mm256_storeu_ps(job.y + at, activate(s, e));
        }
      }
    }
  }
}

}  // namespace geon::cpu::native

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
