// The host's handles on the CUDA kernels: launchers looked up by op and compute type, defined
// in the .cu files that instantiate the kernels. Internal to kernels/cuda; the entry points
// (engine.h) choose a kernel with plan.h and launch it through these.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/dtype/dtype.h"
#include "core/engine/engine.h"
#include "kernels/cuda/op_list.h"
#include "kernels/cuda/pass.h"
#include "kernels/cuda/plan.h"

namespace geon::cuda {

using EwLauncher = void (*)(const EwPass&, Grid, cudaStream_t);

// Typed elementwise kernels (typed.h), or null where the op does not exist for ci. One per
// arity, each defined in its own .cu file.
EwLauncher typed_unary_launcher(OpId op, int ci);
EwLauncher typed_binary_launcher(OpId op, int ci);
EwLauncher typed_ternary_launcher(OpId op, int ci);

// The interpreted elementwise kernel (interpret.h).
void launch_interpret(const EwPass& p, Grid g, cudaStream_t s);

// Reductions: the first pass writes n_out * segments partials of accumulator type `acc`
// (double, int64 or uint64); `rule` is the combine rule (sum for a mean).
void launch_reduce_interpreted(const ReducePass& p, Reduce rule, DType acc, ReduceShape shape,
                               Grid g, void* partials, cudaStream_t s);
// The typed first pass for a single op on float or double inputs (typed.h TypedSource);
// false when there is none for this op and type.
bool launch_reduce_typed(const ReducePass& p, OpId op, int ci, Reduce rule, ReduceShape shape,
                         Grid g, void* partials, cudaStream_t s);
// The second pass: combine each output's partials in a fixed order and store into the
// destination, a thread per output or (by_block) a block per output.
void launch_reduce_finish(const ReducePass& p, Reduce rule, DType acc, bool by_block, Grid g,
                          const void* partials, cudaStream_t s);

// assign: element by element with conversion, or a plain copy of `bytes`-wide elements.
void launch_cast(const CastPass& p, Grid g, cudaStream_t s);
void launch_copy(const CastPass& p, int bytes, Grid g, cudaStream_t s);

}  // namespace geon::cuda
