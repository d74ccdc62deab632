// The two transforms of the Winograd convolution F(4x4, 3x3) (winograd_conv.h), in AVX2 over 8
// channels at a time: a 6x6 input patch to its 36 transform points (V = Bt d B), and the 36
// points of a tile's products back to its 4x4 output pixels (Y = At m A) with the bias, the
// residual and the activation applied before the one store. Between them the products are 36
// matrix products, one per point, run by the tiles of conv_tiles.h.
#pragma once

#include <cstdint>

#include "kernels/cpu/native/conv_tiles.h"

namespace geon::cpu::native {

inline constexpr int kWinogradTile = 4;     // output pixels per tile side
inline constexpr int kWinogradPoints = 36;  // (4 + 3 - 1)^2 transform points per tile

struct WinogradJob {
  // Input (N, H, W, C) channels-last and dense; C a multiple of 8. Pads are implicit zeros.
  const float* x = nullptr;
  int64_t h = 0, w = 0, c = 0;
  int64_t pad_top = 0, pad_left = 0;
  // Output (N, OH, OW, K) channels-last and dense, K a multiple of 8; the residual, when
  // present, is read at the same offsets of `z` (which may be y itself).
  float* y = nullptr;
  const float* z = nullptr;
  int64_t out_h = 0, out_w = 0, k = 0;
  const float* bias = nullptr;  // K floats
  TileActivation activation = TileActivation::kNone;
  float alpha = 0, beta = 0;

  int64_t tiles_h() const { return (out_h + kWinogradTile - 1) / kWinogradTile; }
  int64_t tiles_w() const { return (out_w + kWinogradTile - 1) / kWinogradTile; }
};

// Tiles [first, first + count) of the job, numbered image by image, row by row, into
// v[point * point_stride + (tile - first) * C + c] (point_stride >= count * C).
void winograd_input_avx2(const WinogradJob& job, int64_t first, int64_t count, float* v,
                         int64_t point_stride);
// The same tiles from m[point * point_stride + (tile - first) * K + k] into y.
void winograd_output_avx2(const WinogradJob& job, int64_t first, int64_t count, const float* m,
                          int64_t point_stride);

}  // namespace geon::cpu::native
