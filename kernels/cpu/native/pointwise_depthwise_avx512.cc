// The expansion row kernel of pointwise_depthwise_rows.h for inputs of few channels (C <= 24,
// MobileNetV2's 16 and 24), on AVX-512 machines. The tile kernel of the AVX2 file reloads the
// weights and restarts its accumulators every 6 pixels, and with 16 to 24 multiply-adds per
// output that fixed cost left it at about 70% of an FMA loop's rate even hot in L1 (Zen 4).
// Here one 16-channel block's C x 16 weights stay in C zmm registers for the whole row, and
// each pixel's C broadcasts feed one accumulator: about 98% of the rate on the same machine.
// Each output is bias + the C products added in input-channel order with FMA, as in the AVX2
// tile, so the two kernels agree bit for bit.
#include <immintrin.h>

#include <array>
#include <cstdint>
#include <utility>

#include "kernels/cpu/native/pointwise_depthwise_rows.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
#endif

#include "kernels/cpu/native/epilogue_avx2.h"

namespace geon::cpu::native {
namespace {

// P pixels of one 16-channel block: d0[i * 8] and d1[i * 8] (its two ring blocks; d1 null when
// the second lies past m) = act(x[i] · w + bias), the weights already in `w`.
template <int C, int P>
inline void expand_pixels(const float* x, const __m512 (&w)[C], __m512 bias, float* d0, float* d1,
                          const Epilogue& e) {
  __m512 a[P];
#pragma GCC unroll 16
  for (int i = 0; i < P; ++i) a[i] = bias;
#pragma GCC unroll 32
  for (int k = 0; k < C; ++k)
#pragma GCC unroll 16
    for (int i = 0; i < P; ++i) a[i] = _mm512_fmadd_ps(_mm512_set1_ps(x[i * C + k]), w[k], a[i]);
      // The halves by shuffle: GCC 12's cast and extract intrinsics start from an undefined
      // register, which its -Wmaybe-uninitialized reports.
#pragma GCC unroll 16
  for (int i = 0; i < P; ++i) {
    const __m256 low = __builtin_shufflevector(a[i], a[i], 0, 1, 2, 3, 4, 5, 6, 7);
    _mm256_store_ps(d0 + i * kRingBlock, activate(low, e));
    if (d1) {
      const __m256 high = __builtin_shufflevector(a[i], a[i], 8, 9, 10, 11, 12, 13, 14, 15);
      _mm256_store_ps(d1 + i * kRingBlock, activate(high, e));
    }
  }
}

// One ring row for C input channels: each 16-channel block in one pass over the row's pixels.
template <int C>
void expand_row(const PointwiseDepthwiseRows& job, const float* x_row, float* ring_row) {
  // Accumulators beside the C weight registers, of 32 (the epilogue's constants spill first).
  constexpr int P = C <= 16 ? 8 : 4;
  const Epilogue e = make_epilogue(job.act1, job.alpha1, job.beta1);
  const int64_t block_floats = (job.width + 2) * kRingBlock;
  const int64_t ring_blocks = job.m / kRingBlock;
  for (int64_t blk = 0; 2 * blk < ring_blocks; ++blk) {
    const float* wb = job.w1 + blk * C * 16;
    __m512 w[C];
#pragma GCC unroll 32
    for (int k = 0; k < C; ++k) w[k] = _mm512_load_ps(wb + k * 16);
    const __m512 bias = _mm512_load_ps(job.b1 + blk * 16);
    float* d0 = ring_row + 2 * blk * block_floats + kRingBlock;  // past the zero column
    float* d1 = 2 * blk + 1 < ring_blocks ? d0 + block_floats : nullptr;
    int64_t px = 0;
    for (; px + P <= job.width; px += P)
      expand_pixels<C, P>(x_row + px * C, w, bias, d0 + px * kRingBlock,
                          d1 ? d1 + px * kRingBlock : nullptr, e);
    for (; px < job.width; ++px)
      expand_pixels<C, 1>(x_row + px * C, w, bias, d0 + px * kRingBlock,
                          d1 ? d1 + px * kRingBlock : nullptr, e);
  }
}

using ExpandRow = void (*)(const PointwiseDepthwiseRows&, const float*, float*);

template <int... C>
constexpr auto make_rows(std::integer_sequence<int, C...>) {
  return std::array<ExpandRow, sizeof...(C)>{expand_row<C + 1>...};
}
constexpr auto kRows = make_rows(std::make_integer_sequence<int, kStationaryMaxChannels>());

}  // namespace

void expand_row_avx512(const PointwiseDepthwiseRows& job, const float* x_row, float* ring_row) {
  kRows[job.c - 1](job, x_row, ring_row);
}

}  // namespace geon::cpu::native

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
