// oneDNN 2.6's relu (slope 0) and clip, as post-ops and as eltwise primitives, give 0 or the
// lower bound for a NaN, where ONNX's max and min keep it (ONNX Runtime does too). Kernels that
// fuse such an activation bound their float inputs first and, where a NaN or infinity is among
// them or the product's sums could overflow (+inf - inf inside them is NaN), run the product
// without it and apply it after with the engine, which keeps NaN.
#pragma once

#include "core/engine/engine.h"
#include "kernels/cpu/conv_params.h"
#include "kernels/cpu/native/magnitude.h"

namespace geon::cpu {

// Whether oneDNN's form of `a` turns NaN into a number (Relu, LeakyRelu of slope 0, Clip,
// HardSigmoid's clip).
bool onednn_drops_nan(const Activation& a);
// The largest |element| of a float view (any strides; no data or no elements: 0), +infinity
// where one is NaN or infinite.
float max_abs(const TensorDesc& d, const void* data);
// The same for an operand, 0 for none.
inline float max_abs(const ConstOperand* v) { return v ? max_abs(v->desc, v->data) : 0.0f; }
// y = a(y) in place by the engine's ops, NaN kept.
void apply_activation(const Activation& a, const Operand& y);

}  // namespace geon::cpu
