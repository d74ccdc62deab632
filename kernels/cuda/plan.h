// Planning a CUDA pass on the host: encoding an Expr for the device, choosing the typed or
// interpreted kernel, the vector width and alignment, the reduction's split into kept and
// reduced dims, its segments and the grids. Pure C++ with no CUDA calls: the CPU tests run the
// very plans the GPU path launches and replay them with the GEON_HD kernel bodies.
#pragma once

#include <cstdint>
#include <span>

#include "core/engine/engine.h"
#include "kernels/cuda/pass.h"

namespace geon::cuda {

// Elements per thread-tile of the interpreted and cast kernels (they do not vectorise loads).
inline constexpr int kScalarTileVec = 4;

struct Grid {
  unsigned blocks = 0;  // 0: nothing to launch
  unsigned threads = kBlockThreads;
};

// A grid-stride grid for `items` work items: enough blocks to fill the device, no more.
Grid items_grid(int64_t items, int multiprocessors);

// The expression with ops as CUDA table ids and types as compute indices. Throws
// geon::Error(kNotSupported) beyond kMaxNodes nodes or kMaxInputs inputs, or for an op the
// CUDA table does not have for that type.
DevExpr encode_expr(const Expr& expr);

// The same values with fewer nodes: mul(d, d) with d = sub(x, y) used nowhere else becomes
// squared_difference(x, y), and mul(x, x) of one input becomes square(x); both are the same
// functor composition, so results are bit-identical. Unused nodes are dropped.
DevExpr simplify(const DevExpr& e);

// True when every operand that is contiguous along the innermost dim starts each row on a
// boundary of vec elements: element_bytes[k] * (address of its first element) and every outer
// stride allow one vector access per tile. `outer` adds the strides and offsets of a
// reduction's kept dims.
bool vectors_aligned(const LoopPlan& p, std::span<const uintptr_t> base,
                     std::span<const int> element_bytes, int vec, const LoopPlan* outer = nullptr);

struct ElementwisePlan {
  EwPass pass;
  bool typed = false;  // one op on matching dtypes: typed kernel of pass.e.nodes[0]
  Grid grid;
};
ElementwisePlan plan_elementwise(const DevExpr& e, const Operand& dst,
                                 std::span<const ConstOperand> in, std::span<const int64_t> shape,
                                 const CastOptions& cast, int multiprocessors);

enum class ReduceShape : uint8_t {
  kBlockPerSegment,   // a block folds one segment, tree within the block
  kThreadPerSegment,  // a thread folds one segment; neighbouring threads, neighbouring outputs
};

// The loop plan's dims cut into those the destination keeps (operand 0's stride != 0) and
// those it reduces, each group in plan order and coalesced again.
struct ReduceSplit {
  LoopPlan out, red;
};
ReduceSplit split_reduction(const LoopPlan& p);

struct ReductionPlan {
  ReducePass pass;
  bool typed = false;
  Reduce rule = Reduce::kSum;  // the combine rule (a mean sums)
  DType acc = DType::kDouble;  // accumulator: double, int64 or uint64 (core's rule)
  ReduceShape shape = ReduceShape::kBlockPerSegment;
  bool finish_by_block = false;  // many segments per output: a block combines them
  Grid first, finish;            // first.blocks == 0 when the loop is empty (identities only)
};
ReductionPlan plan_reduction(const DevExpr& e, Reduce r, const Operand& dst,
                             std::span<const ConstOperand> in, std::span<const int64_t> shape,
                             const CastOptions& cast, int multiprocessors);
// Whether a single op has a typed first pass (typed.h TypedSource) for compute index ci.
bool has_typed_reduce(OpId op, int ci);

struct CastPlan {
  CastPass pass;
  int copy_bytes = 0;  // > 0: a raw copy of elements this wide; 0: a cast
  Grid grid;
};
CastPlan plan_cast(const Operand& dst, const ConstOperand& src, const CastOptions& cast,
                   int multiprocessors);

}  // namespace geon::cuda
