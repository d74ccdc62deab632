// QDQ fusion: the QuantizeLinear / DequantizeLinear patterns of a QDQ model (as
// onnxruntime.quantization.quantize_static writes them) become nodes that keep tensors 8-bit
// between layers, matched before constant folding turns the weights' DequantizeLinear into
// float constants. Per-tensor (de)quantization of activations, per-tensor or per-output-channel
// weights; where a pattern differs in any way, the graph is left as it is.
//
// 1. DQ(X) -> Conv(·, DQ(W const int8), [DQ(B const int32) | B const float]) -> [Relu] -> Q
//    becomes geon.QConv; when that Q is read only by a DQ of the same parameters whose only
//    reader is an Add with DQ(Z) of another 8-bit tensor of the output's shape, the Add, an
//    optional Relu and the Q after them join it (Z, the residual, is added as 8-bit data).
//    Gemm (transA 0, alpha 1, beta 1) or MatMul of a 2-D DQ(X) by DQ(W const int8), C a vector,
//    becomes geon.QGemm the same way.
// 2. DQ(X) -> op -> Q with the same scale and zero point, where op only moves or selects values
//    (MaxPool, Flatten, Reshape, Transpose, Squeeze, Unsqueeze): op runs on X's
//    8-bit data itself (Q(op(DQ(x))) == op(x) exactly: DQ is increasing, Q undoes DQ).
// The DequantizeLinear nodes left with no reader go.
//
// geon.QConv (opset 1), inputs (-1 where absent):
//   0 X, 1 X_scale, 2 X_zero_point        8-bit activations, per tensor
//   3 W, 4 W_scale, 5 W_zero_point        int8 constant, per tensor or per output channel
//   6 B, 7 B_scale, 8 B_zero_point        int32 constant with its parameters, or a float
//                                         constant alone (7 and 8 absent), or none
//   9 Y_scale, 10 Y_zero_point            the output's quantization (Y's dtype is the zero
//                                         point's)
//   11 Z, 12 Z_scale, 13 Z_zero_point     the residual, 8-bit, Y's shape
//   14 C_scale, 15 C_zero_point           the convolution's own quantization before the Add
// attributes: Conv's, `activation` ("" or "Relu", applied to the convolution's result),
// `sum_activation` ("" or "Relu", applied after the residual Add), `members`.
// geon.QGemm (opset 1) takes the same inputs with X of shape (N, K) and W of (M, K) with
// attribute trans_b 1, or of (K, M) with trans_b 0 (W_scale per tensor or per output column);
// its "convolution" is the product X·Wᵀ or X·W, a 1x1 convolution of N one-pixel images.
// Zero points are always given for X, Y, Z and C (the pass makes zero constants where the model
// omits them). With x = (X - X_zp)·X_scale and likewise w, b, z:
//   c = activation(Conv(x, w, b))
//   no Z:   Y = saturate(round(c / Y_scale) + Y_zp)
//   with Z: C = saturate(round(c / C_scale) + C_zp)
//           Y = saturate(round(sum_activation((C - C_zp)·C_scale + z) / Y_scale) + Y_zp)
// where round is half to even, as QuantizeLinear rounds. A kernel computes the same up to the
// rounding of its float arithmetic (an integer accumulator instead of float sums; products by
// X_scale·W_scale / Y_scale instead of the separate multiplications and division).
#pragma once

#include <span>

#include "core/graph/graph.h"
#include "core/runtime/kernel.h"

namespace geon {

struct QdqFusions {
  int convs = 0;         // geon.QConv nodes made
  int gemms = 0;         // geon.QGemm nodes made
  int residuals = 0;     // of them, with a residual Add
  int pass_through = 0;  // ops moved onto 8-bit data
};

// Fuses only where a set in `sets` has a geon.QConv (geon.QGemm) row whose supports() takes the
// node, and moves the ops of 2. only where a set runs them on 8-bit data.
QdqFusions fuse_qdq(Graph& g, std::span<const KernelSet* const> sets);

}  // namespace geon
