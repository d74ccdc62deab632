// How the CUDA kernels cut a loop plan into work: the shared index arithmetic of
// core/engine/loop_plan.h (row_offset, loop_rows, loop_inner) plus the thread-to-element
// mapping. Every kernel thread finds its elements through these GEON_HD functions, so the CPU
// tests can replay every thread of a launch and compare its offsets with the CPU engine's.
#pragma once

#include <cstdint>

#include "core/base/hd.h"
#include "core/engine/loop_plan.h"

// Short fixed-count loops unroll on the device (so small arrays stay in registers); the host
// compiler has no such pragma.
#if defined(__CUDA_ARCH__)
#define GEON_UNROLL _Pragma("unroll")
#else
#define GEON_UNROLL
#endif

namespace geon::cuda {

inline constexpr int kBlockThreads = 256;

// Stride of operand `op` along the innermost loop dim (0 for a rank-0 plan).
GEON_HD int64_t inner_stride(const LoopPlan& p, int op) {
  return p.rank == 0 ? 0 : p.stride[op][p.rank - 1];
}

// A loop cut into tiles: `vec` consecutive inner elements of one row each (the last tile of a
// row may be shorter). A tile is what one thread loads, computes and stores at once, so with
// vec = 16 bytes / element size a contiguous, aligned row is read with 16-byte loads.
struct Tiles {
  int64_t rows = 0, inner = 0, per_row = 0, count = 0;
  int vec = 1;
};

GEON_HD Tiles make_tiles(const LoopPlan& p, int vec) {
  Tiles t;
  t.vec = vec;
  t.rows = loop_rows(p);
  t.inner = loop_inner(p);
  t.per_row = (t.inner + vec - 1) / vec;
  t.count = t.rows * t.per_row;
  return t;
}

// Row and first inner index of tile k, and how many elements it holds.
struct TilePos {
  int64_t row, j0, n;
};

GEON_HD TilePos tile_pos(const Tiles& t, int64_t k) {
  TilePos p;
  if (t.rows == 1) {  // one row: no division (the common coalesced case)
    p.row = 0;
    p.j0 = k * t.vec;
  } else {
    p.row = k / t.per_row;
    p.j0 = (k - p.row * t.per_row) * t.vec;
  }
  const int64_t left = t.inner - p.j0;
  p.n = left < t.vec ? left : t.vec;
  return p;
}

// Offset of operand `op` at the first element of a tile; element v of the tile is at
// tile_offset + v * inner_stride.
GEON_HD int64_t tile_offset(const LoopPlan& p, int op, const TilePos& t) {
  return row_offset(p, op, t.row) + t.j0 * inner_stride(p, op);
}

// Grid-stride loops: thread `thread` of block `block` takes work items first, first + step,
// ... with step = threads in the grid.
GEON_HD int64_t grid_first(int64_t block, int64_t thread, int64_t block_threads) {
  return block * block_threads + thread;
}

// [lo, hi) of segment s when `count` items are cut into `segments` contiguous segments.
GEON_HD int64_t segment_begin(int64_t count, int64_t segments, int64_t s) {
  return segments == 0 ? 0 : count * s / segments;
}

}  // namespace geon::cuda
