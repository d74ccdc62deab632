// The head split and merge around an Attention node, absorbed into it. Exporters write
// multi-head attention over 3-D projections as
//   Q = Transpose(Reshape(q, (B, S, H, D)), (0, 2, 1, 3))   (K and V alike, Kᵀ left to
//   fuse_attention) -> Attention -> Transpose((0, 2, 1, 3)) -> Reshape((B, S, H·Dv))
// ONNX Attention takes 3-D Q, K and V with q_num_heads / kv_num_heads and gives the 3-D output
// itself, with exactly these semantics: the node then reads the projections and writes the
// merged heads in place, where the trailing Reshape of a transposed view had to copy. Fires only
// when every Reshape and Transpose has one reader and is not a graph output, the lengths are
// static and match, and a set in `sets` takes the rewritten node.
#pragma once

#include <span>

#include "core/graph/graph.h"
#include "core/runtime/kernel.h"

namespace geon {

// Returns the number of Attention nodes rewritten.
int absorb_attention_heads(Graph& g, std::span<const KernelSet* const> sets);

}  // namespace geon
