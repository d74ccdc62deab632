// The cpu.generic families' entry points, one pair (supports, create) per import-rule shape.
// generic_table.cc binds ONNX op names and opsets to these; each family file implements its
// own. All kernels compute from the actual input descriptions, so symbolic shapes and
// broadcasting resolve at run time.
#pragma once

#include <memory>

#include "kernels/cpu/common.h"

namespace geon::cpu {

#define GEON_CPU_FAMILY(name)                            \
  Reason supports_##name(const Graph& g, const Node& n); \
  std::unique_ptr<Kernel> create_##name(const Graph& g, const Node& n)

// generic_elementwise.cc: unary, binary, variadic, comparison, logic, activations, Where.
GEON_CPU_FAMILY(elementwise);
// generic_cast_clip.cc
GEON_CPU_FAMILY(identity);
GEON_CPU_FAMILY(cast);
GEON_CPU_FAMILY(cast_like);
GEON_CPU_FAMILY(clip_attr);    // Clip before opset 11: min/max attributes
GEON_CPU_FAMILY(clip_inputs);  // Clip from opset 11: optional min/max inputs
// generic_reduce.cc: axes by attribute (reduce_attr) or by input (reduce_input).
GEON_CPU_FAMILY(reduce_attr);
GEON_CPU_FAMILY(reduce_input);
// generic_views.cc and generic_concat.cc: a view of the input, assigned into the output.
GEON_CPU_FAMILY(transpose);
GEON_CPU_FAMILY(reshape);
GEON_CPU_FAMILY(flatten);
GEON_CPU_FAMILY(squeeze_attr);
GEON_CPU_FAMILY(squeeze_input);
GEON_CPU_FAMILY(unsqueeze_attr);
GEON_CPU_FAMILY(unsqueeze_input);
GEON_CPU_FAMILY(expand);
GEON_CPU_FAMILY(slice_attr);
GEON_CPU_FAMILY(slice_input);
GEON_CPU_FAMILY(concat);

#undef GEON_CPU_FAMILY

}  // namespace geon::cpu
