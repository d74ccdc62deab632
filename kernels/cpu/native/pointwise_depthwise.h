// geon's own fused 1x1 + 3x3 depthwise convolution, optionally followed by a 1x1 projection
// with a residual (geon.FusedPointwiseDepthwise: the expand, depthwise and project layers of an
// inverted-residual block): neither intermediate is written whole. Each thread walks its
// output rows and expands only the input rows their windows need into a ring of three rows in
// 8-channel blocks (a few hundred KiB that stay in L2), from which the depthwise window reads;
// a projected row goes from the depthwise row, still in L1, through the 6x16 tiles of
// conv_tiles.h. On AVX2 machines the 6x-wide intermediate otherwise went to memory and back,
// and the depthwise layer read it channels-last at half the blocked rate.
#pragma once

#include <memory>

#include "core/graph/tensor_data.h"
#include "kernels/cpu/conv_params.h"

namespace geon::cpu {

struct PointwiseDepthwiseWeights {
  const TensorData* w1 = nullptr;  // (M, C, 1, 1)
  const TensorData* b1 = nullptr;  // (M) or null
  Activation act1;
  const TensorData* w2 = nullptr;  // (M, 1, 3, 3)
  const TensorData* b2 = nullptr;  // (M) or null
  Activation act2;
  int64_t stride = 1;  // the depthwise stride in both dims (1 or 2); its pads are 1 on every side
  const TensorData* w3 = nullptr;  // (K, M, 1, 1), or null for no projection
  const TensorData* b3 = nullptr;  // (K) or null
  Activation act3;                 // applied after the residual, as FusedConv's
};

class PointwiseDepthwise {
 public:
  // Null when the CPU lacks AVX2 + FMA, an activation is one the epilogue lacks, M is not a
  // multiple of 8, the stride is not 1 or 2, or a tensor is not dense float of those shapes.
  static std::unique_ptr<const PointwiseDepthwise> make(const PointwiseDepthwiseWeights& w);
  ~PointwiseDepthwise();

  int64_t in_channels() const;
  int64_t out_channels() const;  // K when projecting, else M
  bool projects() const;
  // The output shape for X of shape (N, C, H, W).
  Dims output_shape(const Dims& x) const;
  // d = act2(depthwise(act1(x · W1 + B1)) + B2), dst = d, or act3(d · W3 + B3 + z) when
  // projecting, split by output rows across the session's pool, for x (N, C, H, W), dst
  // (N, out_channels(), OH, OW) and z (dst's shape, projecting only; null for none) dense
  // channels-last float views, dst overlapping neither. False, with nothing written, otherwise.
  bool run(const ConstOperand& x, const ConstOperand* z, const Operand& dst) const;

 private:
  struct Impl;
  explicit PointwiseDepthwise(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace geon::cpu
