// The cpu.generic families' entry points, one pair (supports, create) per import-rule shape.
// generic_table.cc binds ONNX op names and opsets to these; each family file implements its
// own. All kernels compute from the actual input descriptions, so symbolic shapes and
// broadcasting resolve at run time.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/cpu/common.h"

namespace geon::cpu {

// generic_params.cc: parameter inputs (shape, axes, starts...) that are either constants read
// once in create(), or host tensors read at every run and validated against the data then.
struct IntsInput {
  int index = -1;  // the node's input position; -1 when the input is omitted
  std::optional<std::vector<int64_t>> constant;
  bool present() const { return index >= 0; }
  // The contents: the constant, or the run's tensor ({} when omitted). `what` names it in errors.
  std::vector<int64_t> read(const KernelContext& ctx, std::string_view what) const;
};
IntsInput ints_input(const Graph& g, const Node& n, int i);
// A reason unless input i is omitted or a (constant or run-time) integer tensor.
Reason check_ints_input(const Graph& g, const Node& n, int i, std::string_view what);
// Every element of an integer host tensor of rank 0 or 1, as int64.
std::vector<int64_t> read_ints(const TensorRef& t, std::string_view what);

// Outputs whose size comes from run-time values (ConstantOfShape, Range, Expand) are refused
// above this many bytes, so a model cannot make a run allocate without limit.
inline constexpr int64_t kMaxRunTimeOutputBytes = int64_t{1} << 34;
// Throws kResourceExhausted (naming `what`) when a `dtype` tensor of `shape` is above the limit
// or its element count overflows; negative lengths are kInvalidArgument.
void check_output_size(DType dtype, const Dims& shape, std::string_view what);

// A kernel whose geon::Errors are rethrown as "<op>: <reason>", so a message from a view
// function (squeeze, broadcast_shapes...) still says which op failed; the executor adds the
// node's name.
std::unique_ptr<Kernel> make_node_kernel(const Node& n, FnKernel::Fn fn);

// generic_views.cc: a kernel for a view op (kernel.h: Kernel::view). `view` maps input 0's
// description (and the run's parameter inputs) to output 0's, nullopt when this run cannot
// be a view; `copy` fills a planned output instead (default: assign the view into it). Errors
// are prefixed with the op, as make_node_kernel does.
using ViewFn = std::function<std::optional<TensorDesc>(const TensorDesc&, const KernelContext&)>;
std::unique_ptr<Kernel> make_view_kernel(const Node& n, ViewFn view, FnKernel::Fn copy = {});

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
// generic_shape.cc: shape computations, evaluated at run time from the actual shapes.
GEON_CPU_FAMILY(shape);
GEON_CPU_FAMILY(size);
GEON_CPU_FAMILY(gather);
GEON_CPU_FAMILY(constant_of_shape);
GEON_CPU_FAMILY(range);

#undef GEON_CPU_FAMILY

}  // namespace geon::cpu
