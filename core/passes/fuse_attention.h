// The scaled-dot-product attention pattern exporters emit, rewritten into one ONNX Attention
// node (opset 23 semantics, 4-D Q/K/V):
//   MatMul(Q, Transpose(K)) -> [Div or Mul by a constant scalar] -> [Add mask] ->
//   Softmax over the key axis -> MatMul(., V)
// Matched on axes: the first MatMul must contract Q's head axis with Kᵀ's, the Softmax must run
// over the key-sequence axis (the one Kᵀ brings), the second MatMul must contract that axis with
// V's sequence axis. Fires only when every intermediate has one reader and is not a graph
// output, the mask covers the whole key axis (Attention would pad a shorter one with -inf), and
// a set in `sets` has an Attention row whose supports() takes the new node.
#pragma once

#include <span>

#include "core/graph/graph.h"
#include "core/runtime/kernel.h"

namespace geon {

// Returns the number of Attention nodes made.
int fuse_attention(Graph& g, std::span<const KernelSet* const> sets);

}  // namespace geon
