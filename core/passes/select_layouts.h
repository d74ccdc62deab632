// Layout selection: runs of 4-D and 5-D float intermediates (8-bit ones too, as between
// geon.QConv nodes) between convolutions and the layout-agnostic nodes around them (pooling,
// BatchNormalization, elementwise, fused elementwise) are marked channels-last (N, spatial...,
// C) on Value::layout, so cpu.dnnl's convolution reads and writes them in place with its fast
// nhwc kernels while every other kernel reads the same values through their strides. Graph
// inputs and outputs, constants and values read by nested graphs or by any other node keep the
// row-major layout.
#pragma once

#include <span>

#include "core/graph/graph.h"
#include "core/runtime/kernel.h"

namespace geon {

// Marks the values; returns how many were marked.
int select_layouts(Graph& g);
// Whether the sets (in priority order) run Conv on cpu.dnnl, whose kernels want channels-last.
bool channels_last_preferred(std::span<const KernelSet* const> sets);

}  // namespace geon
