// Helpers of the sequence family: owned host copies of tensors (a list keeps its elements past
// the run step that made them), and positions checked as ONNX's sequence ops define them.
#pragma once

#include <string_view>

#include "core/runtime/executor.h"
#include "kernels/cpu/common.h"

namespace geon::cpu {

// A dense host copy of t, owned. A string tensor's copy holds the same handles: their text
// lives as long as the run (outputs get text of their own when the run ends).
OwnedTensor owned_copy(const TensorRef& t);
// Output i filled with a copy of t (shape from t).
void output_copy(KernelContext& ctx, int i, const OwnedTensor& t);
// A position input (int32 or int64 scalar) as an index in [0, size) (or [0, size] when
// `inclusive`, for inserts); negative positions count from the end. Throws naming `what`.
int64_t list_position(const TensorRef& t, int64_t size, bool inclusive, std::string_view what);
// A reason unless n has at least `inputs` inputs (the first `inputs` given) and one output.
Reason require_arity(const Node& n, size_t inputs);
// A reason unless value v is a sequence/optional (list) or a tensor, as `list` asks.
Reason require_kind(const Graph& g, int v, bool list, std::string_view what);

}  // namespace geon::cpu
