// MatMul / Gemm post-op fusion: MatMul (or Gemm without transA, with beta 1 or no C) ->
// optional Add of a constant bias broadcast over the last axis (Gemm's C takes that place) ->
// optional Add of a residual of the output's own shape -> optional activation (activation.h)
// becomes one geon.FusedMatMul (fused.md: inputs A, B, Bias, Z; attributes trans_b, alpha,
// activation, activation_alpha, activation_beta, members). Fuses only where a set in `sets`
// has a geon.FusedMatMul row whose supports() takes the fused node (when it refuses only the
// activation, the rest fuses and the activation stays a node), and only when something follows
// the product (a Gemm alone stays a Gemm).
#pragma once

#include <span>

#include "core/graph/graph.h"
#include "core/runtime/kernel.h"

namespace geon {

// Returns the number of geon.FusedMatMul nodes made.
int fuse_matmul(Graph& g, std::span<const KernelSet* const> sets);

}  // namespace geon
