// 1x1 convolution -> depthwise convolution => geon.FusedPointwiseDepthwise (the expand and
// depthwise layers of an inverted-residual block), so a kernel can run both per row tile
// without writing the 1x1 output whole. Runs after fuse_conv: either side may be a Conv or a
// geon.FusedConv carrying its bias and activation, neither with a residual, and the 1x1
// output may have no reader but the depthwise one.
//
// The node: inputs X, W1, B1, W2, B2 (a B absent as -1); the 1x1 side's Conv attributes and
// activation attributes under their own names, the depthwise side's under the same names with
// the prefix "dw_" (dw_strides, dw_pads, dw_group, dw_activation...); `members` lists both
// sides' members. Fuses only where a set in `sets` has a row whose supports() takes the node
// (cpu.dnnl takes it on AVX2 machines, for intermediates large enough to leave the cache).
#pragma once

#include <span>

#include "core/graph/graph.h"
#include "core/runtime/kernel.h"

namespace geon {

// Returns the number of geon.FusedPointwiseDepthwise nodes made.
int fuse_pointwise_depthwise(Graph& g, std::span<const KernelSet* const> sets);

// The fused node's two sides as the FusedConv nodes they were (X, W, B inputs; their own
// attributes, without `members`): what kernels read the attributes from.
Node pointwise_side(const Node& fused);
Node depthwise_side(const Node& fused);

}  // namespace geon
