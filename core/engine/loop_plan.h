// The loop plan of one elementwise pass: the loop shape and, for every operand, its strides
// over that shape. Built on the host from tensor descriptions (generalized broadcasting, dim
// reordering, coalescing); read on the host and on CUDA devices through the GEON_HD functions,
// so it is a fixed-size plain struct that can be passed to a kernel by value.
#pragma once

#include <cstdint>
#include <span>

#include "core/base/hd.h"
#include "core/desc/desc.h"

namespace geon {

inline constexpr int kMaxLoopRank = 16;
inline constexpr int kMaxLoopOperands = 8;

struct LoopPlan {
  int rank = 0;      // after coalescing; 0 = a single element
  int operands = 0;  // the destination is operand 0
  int64_t length[kMaxLoopRank] = {};
  int64_t stride[kMaxLoopOperands][kMaxLoopRank] = {};  // in elements, any sign, 0 = broadcast
  int64_t offset[kMaxLoopOperands] = {};                // element offset of the first element
};

// The loop shape of operands under the generalized broadcasting rule of the design notes:
// every shape is 1-extended on the left to the longest rank and the loop length of each dim is
// the largest operand length there; every other length must divide it (an operand shorter
// than the loop is read modulo its own length). Throws geon::Error naming the shapes when a
// length does not divide.
Dims loop_shape(std::span<const TensorDesc* const> operands);

// Builds the plan for operands (destination first) over `shape`. Dims where an operand is
// shorter than the loop are split so that modulo indexing becomes stride 0 on a sub-dim;
// dims are then ordered by decreasing largest |stride| (the innermost dim is the densest) and
// adjacent dims merged wherever every operand allows. Length-1 dims disappear.
LoopPlan make_loop_plan(std::span<const TensorDesc* const> operands,
                        std::span<const int64_t> shape);

GEON_HD int64_t loop_elements(const LoopPlan& p) {
  int64_t n = 1;
  for (int d = 0; d < p.rank; ++d) n *= p.length[d];
  return n;
}

// Product of all dims but the innermost: the number of rows the inner loop runs over.
GEON_HD int64_t loop_rows(const LoopPlan& p) {
  int64_t n = 1;
  for (int d = 0; d + 1 < p.rank; ++d) n *= p.length[d];
  return n;
}

GEON_HD int64_t loop_inner(const LoopPlan& p) { return p.rank == 0 ? 1 : p.length[p.rank - 1]; }

// Element offset of operand `op` at the start of row `row` (inner index 0).
GEON_HD int64_t row_offset(const LoopPlan& p, int op, int64_t row) {
  int64_t off = p.offset[op];
  for (int d = p.rank - 2; d >= 0; --d) {
    const int64_t len = p.length[d];
    off += (row % len) * p.stride[op][d];
    row /= len;
  }
  return off;
}

// The rows of a plan in order with every operand's offset at the start of the current row:
// next() adds a stride (and carries) where row_offset divides once per dim and operand, which
// was most of a pass over short rows (an NCHW broadcast of 56-element rows).
struct RowCursor {
  explicit RowCursor(const LoopPlan& plan) : p(&plan) {
    for (int o = 0; o < plan.operands; ++o) offset[o] = plan.offset[o];
  }
  void next() {
    for (int d = p->rank - 2; d >= 0; --d) {
      for (int o = 0; o < p->operands; ++o) offset[o] += p->stride[o][d];
      if (++index[d] < p->length[d]) return;
      for (int o = 0; o < p->operands; ++o) offset[o] -= p->stride[o][d] * p->length[d];
      index[d] = 0;
    }
  }
  const LoopPlan* p;
  int64_t index[kMaxLoopRank] = {};
  int64_t offset[kMaxLoopOperands] = {};
};

// Element offset of operand `op` at linear loop index `i` (row-major over the loop shape).
GEON_HD int64_t element_offset(const LoopPlan& p, int op, int64_t i) {
  if (p.rank == 0) return p.offset[op];
  const int64_t inner = p.length[p.rank - 1];
  return row_offset(p, op, i / inner) + (i % inner) * p.stride[op][p.rank - 1];
}

}  // namespace geon
