// Reading a Conv, ConvTranspose or geon.FusedConv node for cpu.dnnl: what the kernel refuses
// (dtypes, ranks, attributes, activations) and the kernel itself, shared by conv.cc and
// conv_transpose.cc.
#pragma once

#include <memory>

#include "kernels/cpu/common.h"

namespace geon::cpu {

enum class ConvNodeKind { kConv, kConvTranspose, kFusedConv };

Reason conv_node_reason(const Graph& g, const Node& n, ConvNodeKind kind);
// The kernel: constant weights prepacked here, primitives made on first use per shape.
std::unique_ptr<Kernel> make_conv_kernel(const Graph& g, const Node& n, ConvNodeKind kind);

}  // namespace geon::cpu
