// geon's own Winograd convolution F(4x4, 3x3) for 3x3 Conv and geon.FusedConv layers with unit
// strides and dilations, one group and 8k channels on AVX2 machines, where oneDNN 2.6 has no
// Winograd kernel (its own is AVX-512 only). A 4x4 output tile takes 36 multiplications per
// channel pair instead of 144, in 36 matrix products over the tiles. The products run on
// conv_tiles.h's register tiles; the transforms are winograd_transforms.h's. Outputs differ from
// the direct algorithm's by ~1e-6 of their scale, well inside ONNX's rtol of 1e-3.
#pragma once

#include <memory>

#include "core/graph/tensor_data.h"
#include "kernels/cpu/conv_params.h"

namespace geon::cpu {

class WinogradConv {
 public:
  // Null where it does not apply or is not the faster choice: see make_for_test, plus layers
  // wider than 256 channels (their transformed weights, 4x the plain ones, stream from memory
  // for every chunk of tiles: ResNet-50's 512-channel layers at batch 1 ran at 0.6x the direct
  // kernels' speed) and machines where native_kernels_preferred() is false.
  static std::unique_ptr<const WinogradConv> make(const ConvAttrs& attrs, const Activation& act,
                                                  const TensorData& weights);
  // Made whenever the CPU has AVX2 + FMA and the node fits: 3x3 kernel, unit strides and
  // dilations, one group, C and K multiples of 8, an activation the epilogue has, dense float
  // weights. For tests.
  static std::unique_ptr<const WinogradConv> make_for_test(const ConvAttrs& attrs,
                                                           const Activation& act,
                                                           const TensorData& weights);
  ~WinogradConv();

  // Whether every run of this geometry, whatever its batch, has the tiles run() asks for.
  bool takes_every_run(const ConvGeometry& geo) const;
  // dst = act(conv(x) + bias + z), under DirectConv::run's conditions (dense channels-last
  // float views, z null, dst itself or clear of it, pads not negative), x clear of dst, and
  // enough tiles for the transforms to pay (`min_tiles`: 0 for the policy's count). False, with
  // nothing written, otherwise.
  bool run(const ConvGeometry& geo, const ConstOperand& x, const ConstOperand* bias,
           const ConstOperand* z, const Operand& dst, int64_t min_tiles = 0) const;

 private:
  struct Impl;
  explicit WinogradConv(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Runs WinogradConv took so far, process-wide: tests check that a layer reached it.
int64_t winograd_conv_runs();

}  // namespace geon::cpu
