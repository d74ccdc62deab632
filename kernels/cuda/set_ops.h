// The cuda set's families, one pair (supports, create) per import-rule shape; set_table.cc
// binds ONNX op names and opsets to them. Every supports() first refuses with the CUDA
// availability reason, so a machine without a GPU reports why for each node.
#pragma once

#include <memory>

#include "kernels/cuda/set_common.h"

namespace geon::cuda {

#define GEON_CUDA_FAMILY(name)                           \
  Reason supports_##name(const Graph& g, const Node& n); \
  std::unique_ptr<Kernel> create_##name(const Graph& g, const Node& n)

// set_elementwise.cc: every op of core/onnx/elementwise.h.
GEON_CUDA_FAMILY(elementwise);
// set_assign.cc: one device assign each (a transpose is an assign from a permuted view).
GEON_CUDA_FAMILY(identity);
GEON_CUDA_FAMILY(cast);
GEON_CUDA_FAMILY(cast_like);
GEON_CUDA_FAMILY(transpose);
GEON_CUDA_FAMILY(clip_attr);    // Clip before opset 11: min/max attributes
GEON_CUDA_FAMILY(clip_inputs);  // Clip from opset 11: optional min/max inputs
// set_reduce.cc: axes by attribute, or by constant input.
GEON_CUDA_FAMILY(reduce_attr);
GEON_CUDA_FAMILY(reduce_input);

#undef GEON_CUDA_FAMILY

}  // namespace geon::cuda
