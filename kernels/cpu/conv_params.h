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

// Dense channels-last strides for (N, C, D1...): C fastest, then the spatial dims in order.
Dims channels_last_strides(const Dims& shape);
TensorDesc channels_last(DType t, const Dims& shape);
// Whether a view is dense channels-last (strides of length-1 dims do not matter).
bool is_channels_last(const TensorDesc& d);
// Whether the bytes two views can touch overlap (empty views touch nothing).
bool shares_memory(const void* a, const TensorDesc& da, const void* b, const TensorDesc& db);

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

// One block of a (forward) convolution's output, for splitting it across threads: images
// [first, last) when by_image, else output rows [first, last) of the first spatial dim, with
// the input it reads (the same range of images, or input rows [x_first, x_first + x_count) of
// that dim) and the block's own geometry (its output length and the pads it still needs).
// The rows a sliding window reads for output rows [first, last) of one dim: `extent` input rows
// from every `stride`-th, over `in` real rows after `pad_begin` padded ones. The real rows
// [x_first, x_first + x_count) and the pads left at the block's two edges (none between blocks).
// Convolutions and pooling split one image by rows with it.
struct WindowRows {
  int64_t x_first = 0, x_count = 0, pad_begin = 0, pad_end = 0;
};
WindowRows window_rows(int64_t extent, int64_t stride, int64_t pad_begin, int64_t in, int64_t first,
                       int64_t last);

struct ConvBlock {
  int dim = 0;  // the dim of X and Y it narrows: 0 (images), 2 (rows) or 3 (pixels of one row)
  int64_t x_first = 0, x_count = 0, y_first = 0, y_count = 0;
  ConvGeometry geo;
};
ConvBlock conv_block(const ConvGeometry& geo, const Dims& x, bool by_image, int64_t first,
                     int64_t last);

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
