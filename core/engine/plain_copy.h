// Plain copies (an identity pass of one dtype: Expand, Slice, Concat, Transpose, layout copies)
// without the chunk machinery of a fused expression. Rows contiguous on both sides are copied
// whole; copies that transpose (NCHW <-> NHWC, a 2-D Transpose) move blocks of 8 rows by 8
// elements (4 by 4 for 8-byte elements) through vector registers, transposed there, so both
// sides are read and written a vector at a time instead of one strided element at a time.
#pragma once

#include <cstdint>

#include "core/engine/loop_plan.h"

namespace geon {

// Copies operand 1 of plan p into operand 0 (elements of `elem_bytes` bytes, moved bit for
// bit) when the plan is such a transpose: one of the two runs along the inner dim with stride
// 1 and the other along the dim outside it, each at least a block long. Returns false, with
// nothing written, for every other plan.
bool copy_transposed(const LoopPlan& p, int elem_bytes, void* dst, const void* src);

// Copies operand 1 of plan p into operand 0 when both run along the inner dim with stride 1,
// a row at a time (they may be the same view, never otherwise overlapping). False, with
// nothing written, for every other plan.
bool copy_rows(const LoopPlan& p, int elem_bytes, void* dst, const void* src);

}  // namespace geon
