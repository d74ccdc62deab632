// The two row kernels of the fused 1x1 + depthwise convolution (pointwise_depthwise.h): one
// expands an input row through the 1x1 weights into a row of the ring buffer, the other runs
// the 3x3 depthwise window over ring rows into one output row. A ring row is laid out in
// 8-channel blocks, [M / 8][W + 2][8] with zero columns at both ends: each depthwise pass then
// reads one block's contiguous pixels, which on AVX2 machines ran twice as fast as reading the
// same data channels-last (96 channels at 112x112: 0.6 against 1.2 ms on one thread).
#pragma once

#include <cstdint>

#include "kernels/cpu/native/conv_tiles.h"

namespace geon::cpu::native {

inline constexpr int kRingBlock = 8;  // channels per block of a ring row
// The most input channels expand_row_avx512 takes: its weights live in zmm registers.
inline constexpr int kStationaryMaxChannels = 24;

struct PointwiseDepthwiseRows {
  int64_t c = 0;              // input channels
  int64_t m = 0;              // channels of the intermediate and of the output, m % 8 == 0
  int64_t width = 0;          // input (and intermediate) row length W
  int64_t out_width = 0;      // output row length
  int64_t stride = 1;         // the depthwise stride, 1 or 2 (both dims)
  const float* w1 = nullptr;  // [ceil(m / 16)][c][16], zero past m
  const float* b1 = nullptr;  // ceil(m / 16) * 16, zero past m
  const float* w2 = nullptr;  // [m / 8][3][3][8]
  const float* b2 = nullptr;  // m
  TileActivation act1 = TileActivation::kNone, act2 = TileActivation::kNone;
  float alpha1 = 0, beta1 = 0, alpha2 = 0, beta2 = 0;

  int64_t ring_row_floats() const { return m * (width + 2); }
};

// ring_row (ring_row_floats(), 32-byte aligned, its two zero columns already written) =
// act1(x_row · W1 + B1) for one dense channels-last input row of `width` pixels.
void expand_row_avx2(const PointwiseDepthwiseRows& job, const float* x_row, float* ring_row);
// The same, bit for bit, for 1 <= job.c <= kStationaryMaxChannels on a CPU with AVX-512F.
void expand_row_avx512(const PointwiseDepthwiseRows& job, const float* x_row, float* ring_row);

// y_row (out_width pixels of m channels, channels-last) = act2(depthwise(rows) + B2), rows[r]
// the ring row under window row r, or null where that row lies in the padding.
void depthwise_row_avx2(const PointwiseDepthwiseRows& job, const float* const rows[3],
                        float* y_row);

}  // namespace geon::cpu::native
