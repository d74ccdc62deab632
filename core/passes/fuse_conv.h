// Conv post-op fusion: Conv -> optional Add of a constant per-channel bias (folded into B) ->
// optional Add of a residual of the output's own shape -> optional activation (activation.h)
// becomes one geon.FusedConv (fused.md: inputs X, W, B, Z; Conv's attributes plus activation,
// activation_alpha, activation_beta and members). Fuses only where a set in `sets` has a
// geon.FusedConv row whose supports() takes the fused node; when it refuses only the activation,
// the rest fuses and the activation stays a node of its own.
#pragma once

#include <span>

#include "core/graph/graph.h"
#include "core/runtime/kernel.h"

namespace geon {

// Returns the number of geon.FusedConv nodes made.
int fuse_conv(Graph& g, std::span<const KernelSet* const> sets);

}  // namespace geon
