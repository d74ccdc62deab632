// 1x1 convolution -> depthwise convolution (-> 1x1 convolution with an optional residual) =>
// geon.FusedPointwiseDepthwise (the expand, depthwise and project layers of an inverted-
// residual block), so a kernel can run them per row tile without writing the intermediates
// whole. Runs after fuse_conv: each side may be a Conv or a geon.FusedConv carrying its bias
// and activation, only the projection with a residual, and each intermediate may have no
// reader but the next side.
//
// The node: inputs X, W1, B1, W2, B2, W3, B3, Z (absent ones -1, the last three when there is
// no projection); the 1x1 side's Conv and activation attributes under their own names, the
// depthwise side's under the same names with the prefix "dw_" (dw_strides, dw_group,
// dw_activation...), the projection's with "pj_"; `members` lists every side's members. Fuses
// only where a set in `sets` has a row whose supports() takes the node, with the projection
// when it takes that, else without (cpu.dnnl takes it on AVX2 machines, for intermediates large
// enough to leave the cache).
#pragma once

#include <span>

#include "core/graph/graph.h"
#include "core/runtime/kernel.h"

namespace geon {

// Returns the number of geon.FusedPointwiseDepthwise nodes made.
int fuse_pointwise_depthwise(Graph& g, std::span<const KernelSet* const> sets);

// The fused node's sides as the FusedConv nodes they were (X, W, B, Z inputs, X -1 but for
// the first side; their own attributes, without `members`): what kernels read the attributes
// from. projection_side has no W when the node does not project.
Node pointwise_side(const Node& fused);
Node depthwise_side(const Node& fused);
Node projection_side(const Node& fused);

}  // namespace geon
