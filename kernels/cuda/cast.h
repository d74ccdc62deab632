// The bodies of the CUDA assign kernels: a cast reads each element as a Scalar and writes it
// in the destination's dtype (every numeric pair, with CastOptions), and a copy moves
// same-dtype elements as raw bits, 16 bytes at a time where the rows allow. GEON_HD, so the
// CPU tests replay them against the CPU engine's assign.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/base/hd.h"
#include "kernels/cuda/pass.h"
#include "kernels/cuda/storage.h"
#include "kernels/cuda/tiling.h"
#include "kernels/cuda/typed.h"

namespace geon::cuda {

GEON_HD void cast_tile(const CastPass& p, int64_t k) {
  const TilePos t = tile_pos(p.tiles, k);
  const int64_t d0 = tile_offset(p.plan, 0, t), ds = inner_stride(p.plan, 0);
  const int64_t s0 = tile_offset(p.plan, 1, t), ss = inner_stride(p.plan, 1);
  for (int64_t v = 0; v < t.n; ++v)
    store_any(p.dst_dtype, p.dst, d0 + v * ds, load_any(p.src_dtype, cast_source(p), s0 + v * ss),
              p.cast);
}

struct alignas(16) Bits128 {
  uint64_t lo, hi;
};

// The element type a copy of `Bytes`-wide elements moves.
template <int Bytes>
using RawElem = std::conditional_t<
    Bytes == 1, uint8_t,
    std::conditional_t<Bytes == 2, uint16_t,
                       std::conditional_t<Bytes == 4, uint32_t,
                                          std::conditional_t<Bytes == 8, uint64_t, Bits128>>>>;

template <int Bytes>
constexpr int copy_vec() {
  return Bytes >= 16 ? 1 : 16 / Bytes;
}

template <int Bytes>
GEON_HD void copy_tile(const CastPass& p, int64_t k) {
  using E = RawElem<Bytes>;
  constexpr int V = copy_vec<Bytes>();
  const TilePos t = tile_pos(p.tiles, k);
  E x[V] = {};
  load_tile<E, E, V>(cast_source(p), tile_offset(p.plan, 1, t), inner_stride(p.plan, 1), t.n,
                     p.vector, x);
  store_tile<E, V>(p.dst, tile_offset(p.plan, 0, t), inner_stride(p.plan, 0), t.n, p.vector, x);
}

}  // namespace geon::cuda
