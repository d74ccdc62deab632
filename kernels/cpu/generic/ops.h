// The cpu.generic families' entry points, one pair (supports, create) per import-rule shape.
// generic/table.cc binds ONNX op names and opsets to these; each family file implements its
// own. All kernels compute from the actual input descriptions, so symbolic shapes and
// broadcasting resolve at run time.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/cpu/common.h"

namespace geon::cpu {

// generic/params.cc: parameter inputs (shape, axes, starts...) that are either constants read
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

// generic/views.cc: a kernel for a view op (kernel.h: Kernel::view). `view` maps input 0's
// description (and the run's parameter inputs) to output 0's, nullopt when this run cannot
// be a view; `copy` fills a planned output instead (default: assign the view into it). Errors
// are prefixed with the op, as make_node_kernel does.
using ViewFn = std::function<std::optional<TensorDesc>(const TensorDesc&, const KernelContext&)>;
std::unique_ptr<Kernel> make_view_kernel(const Node& n, ViewFn view, FnKernel::Fn copy = {});

// generic/elementwise.cc: unary, binary, variadic, comparison, logic, activations, Where.
GEON_CPU_FAMILY(elementwise);
// generic/cast_clip.cc
GEON_CPU_FAMILY(identity);
GEON_CPU_FAMILY(cast);
GEON_CPU_FAMILY(cast_like);
GEON_CPU_FAMILY(clip_attr);    // Clip before opset 11: min/max attributes
GEON_CPU_FAMILY(clip_inputs);  // Clip from opset 11: optional min/max inputs
// generic/reduce.cc: axes by attribute (reduce_attr) or by input (reduce_input).
GEON_CPU_FAMILY(reduce_attr);
GEON_CPU_FAMILY(reduce_input);
// generic/views.cc and generic/concat.cc: a view of the input, assigned into the output.
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
// generic/shape.cc: shape computations, evaluated at run time from the actual shapes.
GEON_CPU_FAMILY(shape);
GEON_CPU_FAMILY(size);
GEON_CPU_FAMILY(gather);
GEON_CPU_FAMILY(constant_of_shape);
GEON_CPU_FAMILY(range);
// generic/split.cc, pad.cc, tile.cc, dropout.cc: data movement (Split copies every part;
// Dropout is an identity at inference).
GEON_CPU_FAMILY(split);
GEON_CPU_FAMILY(pad);
GEON_CPU_FAMILY(tile);
GEON_CPU_FAMILY(dropout);
// generic/scatter_nd.cc: ScatterND, every opset (reduction read from the node).
GEON_CPU_FAMILY(scatter_nd);
// generic/resize.cc (+ resize_plan.cc): Resize and Upsample, every opset.
GEON_CPU_FAMILY(resize);
// generic/norm.cc: BatchNormalization, InstanceNormalization, GroupNormalization,
// LayerNormalization, RMSNormalization, MeanVarianceNormalization, LpNormalization;
// generic/norm_lrn.cc: LRN; generic/softmax.cc: Softmax, LogSoftmax, Hardmax.
GEON_CPU_FAMILY(batch_norm);
GEON_CPU_FAMILY(instance_norm);
GEON_CPU_FAMILY(group_norm);
GEON_CPU_FAMILY(layer_norm);
GEON_CPU_FAMILY(rms_norm);
GEON_CPU_FAMILY(mvn);
GEON_CPU_FAMILY(lp_norm);
GEON_CPU_FAMILY(lrn);
GEON_CPU_FAMILY(softmax);
// generic/fused_elementwise.cc: geon.Elementwise (core/passes/fuse_elementwise.h).
GEON_CPU_FAMILY(fused_elementwise);
// generic/rnn/ (rnn.cc, gru.cc, lstm.cc, math.cc): the recurrent layers, every opset.
GEON_CPU_FAMILY(rnn);
GEON_CPU_FAMILY(gru);
GEON_CPU_FAMILY(lstm);
// generic/pool/pool.cc: MaxPool (Indices too), AveragePool, LpPool and the Global*Pool forms, every
// opset (one row each: attributes absent from older versions read as their defaults);
// generic/pool/roi.cc: MaxRoiPool; generic/pool/unpool.cc: MaxUnpool.
GEON_CPU_FAMILY(pool);
GEON_CPU_FAMILY(global_pool);
GEON_CPU_FAMILY(max_roi_pool);
GEON_CPU_FAMILY(max_unpool);
// generic/matmul.cc: MatMul and Gemm in integers, double, float16, bfloat16 (cpu.dnnl: float).
GEON_CPU_FAMILY(matmul);
GEON_CPU_FAMILY(gemm);
// generic/attention.cc: Attention (23, 24); generic/rotary_embedding.cc: RotaryEmbedding (23).
GEON_CPU_FAMILY(attention);
GEON_CPU_FAMILY(rotary_embedding);

// generic/norm_stage.cc: the normalisation and softmax families compute with plain loops on
// dense row-major arrays of norm_compute_dtype (double for double, else float).
DType norm_compute_dtype(DType t);
// A reason unless t is float, double, float16 or bfloat16; `what` names the operand.
Reason norm_dtype_reason(DType t, std::string_view what);
// `src` seen through `perm` (empty: as it is) as a dense row-major array of `compute`: src's
// own memory when it already is one, else a converted copy held in `scratch`.
const void* stage_input(const TensorRef& src, std::span<const int64_t> perm, DType compute,
                        std::vector<std::byte>& scratch);
// Where to compute `dst` seen through `perm`: dst's own memory when it is such an array, else
// `scratch`, which store_output then converts into dst (a no-op in the first case).
void* stage_output(const TensorRef& dst, std::span<const int64_t> perm, DType compute,
                   std::vector<std::byte>& scratch);
void store_output(const TensorRef& dst, std::span<const int64_t> perm, DType compute,
                  const std::vector<std::byte>& scratch);
// body(begin, end) over [0, count) in parts on the default thread pool, each item costing
// about `cost` elements of work.
void parallel_rows(int64_t count, int64_t cost, const std::function<void(int64_t, int64_t)>& body);

}  // namespace geon::cpu
