// oneDNN 2.6's relu (slope 0) and clip, as post-ops and as eltwise primitives, give 0 or the
// lower bound for a NaN, where ONNX's max and min keep it (ONNX Runtime does too). Kernels that
// fuse such an activation check their float inputs first and, where a NaN or infinity is among
// them, run the product without it and apply it after with the engine, which keeps NaN.
#pragma once

#include "core/engine/engine.h"
#include "kernels/cpu/conv_params.h"

namespace geon::cpu {

// Whether oneDNN's form of `a` turns NaN into a number (Relu, LeakyRelu of slope 0, Clip,
// HardSigmoid's clip).
bool onednn_drops_nan(const Activation& a);
// Whether a float view (any strides; no data or no elements: true) holds no NaN or infinity.
bool all_finite(const TensorDesc& d, const void* data);
// The same for an operand, true for none.
inline bool all_finite(const ConstOperand* v) { return !v || all_finite(v->desc, v->data); }
// y = a(y) in place by the engine's ops, NaN kept.
void apply_activation(const Activation& a, const Operand& y);

}  // namespace geon::cpu
