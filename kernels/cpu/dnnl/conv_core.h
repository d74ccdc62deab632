// The oneDNN (de)convolution behind Conv, ConvTranspose and geon.FusedConv:
// dst = act(conv(x, w) + bias + z) over strided float views. The primitive runs channels-last
// (nwc / nhwc / ndhwc, where oneDNN 2.6 has its fast jit kernels, direct and depthwise): such
// src/dst views are read and written in place, any other layout is copied through a
// channels-last buffer. The exception, oneDNN's Winograd algorithm for some 3x3 layers
// (conv_core.cc), takes only its own blocked src/dst, reordered in and out per run. Constant
// weights are reordered once, at construction, into the primitive's blocked layout; a run whose
// primitive (per shapes and thread count, layout left to oneDNN) wants another layout gets a
// copy reordered once and kept. Primitives are cached under a mutex and run with per-thread
// scratchpads, so one object serves several threads at once.
#pragma once

#include <memory>
#include <string>

#include "core/engine/engine.h"
#include "core/graph/tensor_data.h"
#include "kernels/cpu/conv_params.h"

namespace geon::cpu {

struct DnnlConvOptions {
  std::string op;  // for messages: "Conv", "ConvTranspose", "FusedConv"
  ConvAttrs attrs;
  Activation activation;
  bool residual = false;  // z is given (FusedConv's Z)
};

class DnnlConv {
 public:
  // `weights`: the constant W (null when W arrives per run), packed here; `x_hint`: X's shape
  // as the graph knows it (-1 where unknown), to choose the packed layout for the usual shape.
  DnnlConv(DnnlConvOptions o, const TensorData* weights, const Dims& x_hint);
  ~DnnlConv();

  ConvGeometry geometry(const Dims& x, const Dims& w) const;
  // dst (of geometry().dst_shape) = act(conv(x, w) + bias + z); bias (M) and z (dst's shape)
  // may be null. Inputs are never written; dst may be z's memory.
  void run(const ConstOperand& x, const ConstOperand& w, const ConstOperand* bias,
           const ConstOperand* z, const Operand& dst) const;
  // Whether constant weights were prepacked at construction.
  bool prepacked() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// src/dst copies made by every DnnlConv of the process so far (views that were not dense
// channels-last): tests check that a channels-last run makes none.
int64_t dnnl_conv_layout_copies();
// Primitives made so far whose oneDNN implementation is a reference one ("ref:any"): tests
// check that a layer with a jit implementation never ends up there.
int64_t dnnl_conv_reference_primitives();
// Reorders of packed constant weights into another layout made so far (once per layout).
int64_t dnnl_conv_weight_repacks();
// Winograd primitives made so far (3x3 layers where oneDNN has one, see conv_core.cc).
int64_t dnnl_conv_winograd_primitives();
// Winograd primitives oneDNN had but left for the direct ones, their per-thread scratchpads
// over the budget for the threads running the layer's parts.
int64_t dnnl_conv_winograd_refusals();
// Blocks whose X held a NaN or infinity, run with the direct primitive where a Winograd one
// was chosen.
int64_t dnnl_conv_winograd_declines();

}  // namespace geon::cpu
