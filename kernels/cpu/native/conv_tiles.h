// The inner loop of the native direct convolution: output pixels in tiles of up to 6, output
// channels in blocks of 16, each tile a 6x16 block of accumulators in AVX2 registers summed
// over every kernel tap and input channel, then bias, residual and activation applied before
// the one store. Input and output are channels-last; the input is already padded, so no tap
// needs a bounds check.
#pragma once

#include <cstdint>

namespace geon::cpu::native {

inline constexpr int kTileChannels = 16;  // output channels per block
inline constexpr int kTilePixels = 6;     // output pixels per tile

enum class TileActivation { kNone, kRelu, kLeakyRelu, kClip };

struct ConvTiles {
  // Padded input (N, HP, WP, C), dense; strides in floats.
  const float* x = nullptr;
  int64_t x_image = 0, x_row = 0;
  int64_t channels = 0;                // C
  int64_t stride_h = 1, stride_w = 1;  // the convolution's strides
  const int64_t* taps = nullptr;       // each tap's offset in floats from a pixel's
  int taps_count = 0;                  //   first input element
  const float* weights = nullptr;      // [block][tap][c][16], zero past K
  const float* bias = nullptr;         // blocks * 16 floats, zero past K
  // Output (N, OH, OW, K) channels-last, dense; the residual, when present, is read at the
  // same offsets of `z` (which may be y itself).
  float* y = nullptr;
  const float* z = nullptr;
  int64_t batch = 0, out_h = 0, out_w = 0, k = 0;
  TileActivation activation = TileActivation::kNone;
  float alpha = 0, beta = 0;  // LeakyRelu's slope; Clip's bounds

  int64_t pixels() const { return batch * out_h * out_w; }
  int64_t blocks() const { return (k + kTileChannels - 1) / kTileChannels; }
  int64_t tiles() const { return (pixels() + kTilePixels - 1) / kTilePixels; }
};

// Computes work items [first, last) of blocks() * tiles(), block-major (item = block * tiles()
// + tile), so that a thread's range reuses one block's weights across many tiles.
// Needs AVX2 and FMA (cpu_has_avx2_fma()).
void run_conv_tiles_avx2(const ConvTiles& job, int64_t first, int64_t last);

}  // namespace geon::cpu::native
