// geon's own direct convolution for 2-D Conv and geon.FusedConv with one group, where it beats
// oneDNN 2.6 on AVX2 machines (3x3 and larger kernels: ~1.7x; strided 1x1: ~2.5x; oneDNN's
// unstrided 1x1 kernels are as fast and keep those). Weights are packed once, at construction, into
// 16-channel blocks; a run pads the input into a per-thread buffer when the pads are not zero and
// runs the register tiles of conv_tiles.h across the session's thread pool.
#pragma once

#include <memory>

#include "core/graph/tensor_data.h"
#include "kernels/cpu/conv_params.h"

namespace geon::cpu {

class DirectConv {
 public:
  // Null where it does not apply or is not the faster choice: not 2-D, groups, ConvTranspose,
  // an unstrided 1x1 kernel, an activation it lacks, weights that are not dense float, or a machine
  // where native_kernels_preferred() is false.
  static std::unique_ptr<const DirectConv> make(const ConvAttrs& attrs, const Activation& act,
                                                const TensorData& weights);
  // Always made when the CPU has AVX2 + FMA and the node fits, whatever the policy: for tests.
  static std::unique_ptr<const DirectConv> make_for_test(const ConvAttrs& attrs,
                                                         const Activation& act,
                                                         const TensorData& weights);
  ~DirectConv();

  // dst = act(conv(x) + bias + z) with the packed weights, when x and dst are dense
  // channels-last float views, z (optional) is dst itself or a dense channels-last view clear
  // of it, and the pads are not negative. False, with nothing written, otherwise.
  bool run(const ConvGeometry& geo, const ConstOperand& x, const ConstOperand* bias,
           const ConstOperand* z, const Operand& dst) const;

 private:
  struct Impl;
  explicit DirectConv(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace geon::cpu
