// What Conv, ConvTranspose and geon.FusedConv compute, independent of oneDNN (cpu.dnnl and
// cpu.generic's direct Conv share it): the node's attributes, the geometry of one run (kernel,
// strides, dilations and the begin/end pads that auto_pad and output_shape resolve to, by the
// ONNX spec's formulas) and the fused activation.
#pragma once

#include <string>
#include <vector>

#include "kernels/cpu/common.h"

namespace geon::cpu {

enum class ConvAutoPad { kNotSet, kSameUpper, kSameLower, kValid };

// The attributes as the node gives them; empty vectors take the ONNX defaults per run.
struct ConvAttrs {
  bool transpose = false;  // ConvTranspose
  ConvAutoPad auto_pad = ConvAutoPad::kNotSet;
  int64_t group = 1;
  std::vector<int64_t> kernel_shape, strides, dilations, pads;
  std::vector<int64_t> output_padding, output_shape;  // ConvTranspose only
};

// Reads and checks the attributes; a reason when they are malformed.
Reason read_conv_attrs(const Node& n, bool transpose, ConvAttrs* out);

// One run's geometry over the spatial dims. pad_end may be negative for ConvTranspose (an
// output_padding or output_shape that reaches past the last input's footprint), and so may
// pad_begin (output_shape larger than the full footprint).
struct ConvGeometry {
  Dims kernel, strides, dilations, pad_begin, pad_end;
  Dims dst_shape;  // (N, output channels, spatial...)
  int spatial() const { return static_cast<int>(kernel.size()); }
};

// The geometry for X and W of these shapes; throws geon::Error (naming `op`) when they do
// not fit together.
ConvGeometry conv_geometry(const ConvAttrs& a, const Dims& x, const Dims& w, const std::string& op);

// The activation of geon.FusedConv (and geon.FusedMatMul): Y = act(...).
enum class ActivationKind {
  kNone,
  kRelu,
  kLeakyRelu,
  kClip,
  kSigmoid,
  kTanh,
  kHardSigmoid,
  kHardSwish,
  kElu,
  kGelu
};
struct Activation {
  ActivationKind kind = ActivationKind::kNone;
  float alpha = 0, beta = 0;  // LeakyRelu / Elu alpha; Clip min / max; HardSigmoid alpha / beta
};
// The node's `activation`, `activation_alpha`, `activation_beta`, with each op's ONNX defaults
// where alpha or beta is absent; a reason for an unknown activation.
Reason read_activation(const Node& n, Activation* out);

}  // namespace geon::cpu
