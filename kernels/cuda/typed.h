// The typed paths of the CUDA engine: one op on inputs already stored in its compute type, so
// a tile is loaded straight into registers (with one 16-byte load per operand when the inner
// dim is contiguous and aligned), computed with the shared functor and stored without any
// dtype dispatch. GEON_HD like the interpreter, so the CPU tests can replay them.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/base/hd.h"
#include "core/engine/op_functors.h"
#include "kernels/cuda/interpret.h"
#include "kernels/cuda/pass.h"
#include "kernels/cuda/reduce.h"
#include "kernels/cuda/tiling.h"

namespace geon::cuda {

// Elements per tile for compute type T: one 16-byte vector.
template <class T>
constexpr int typed_vec() {
  return static_cast<int>(16 / sizeof(T));
}

// bool is stored as a byte that may hold any nonzero value.
template <class S>
using StoredAs = std::conditional_t<std::is_same_v<S, bool>, uint8_t, S>;

template <class S, int V>
struct alignas(sizeof(StoredAs<S>) * V) Pack {
  StoredAs<S> v[V];
};

template <class S, class T>
GEON_HD T from_stored(StoredAs<S> s) {
  if constexpr (std::is_same_v<S, bool>)
    return static_cast<T>(s != 0);
  else
    return static_cast<T>(s);
}

// Loads the n (<= V) elements of a tile of storage type S as T. `vector` promises that a
// full tile of a contiguous operand is aligned for one Pack load.
template <class S, class T, int V>
GEON_HD void load_tile(const void* base, int64_t first, int64_t step, int64_t n, bool vector,
                       T* x) {
  const StoredAs<S>* src = static_cast<const StoredAs<S>*>(base) + first;
  if (vector && n == V && step == 1) {
    const Pack<S, V> pk = *reinterpret_cast<const Pack<S, V>*>(src);
    GEON_UNROLL
    for (int v = 0; v < V; ++v) x[v] = from_stored<S, T>(pk.v[v]);
  } else if (step == 0) {  // broadcast along the row: one load
    const T x0 = from_stored<S, T>(src[0]);
    GEON_UNROLL
    for (int v = 0; v < V; ++v) x[v] = x0;
  } else {
    GEON_UNROLL
    for (int v = 0; v < V; ++v)
      if (v < n) x[v] = from_stored<S, T>(src[v * step]);
  }
}

template <class R, int V>
GEON_HD void store_tile(void* base, int64_t first, int64_t step, int64_t n, bool vector,
                        const R* y) {
  StoredAs<R>* dst = static_cast<StoredAs<R>*>(base) + first;
  if (vector && n == V && step == 1) {
    Pack<R, V> pk;
    GEON_UNROLL
    for (int v = 0; v < V; ++v) pk.v[v] = static_cast<StoredAs<R>>(y[v]);
    *reinterpret_cast<Pack<R, V>*>(dst) = pk;
  } else {
    GEON_UNROLL
    for (int v = 0; v < V; ++v)
      if (v < n) dst[v * step] = static_cast<StoredAs<R>>(y[v]);
  }
}

// Loads, scales and applies F to a tile whose operand k + 1 is argument k of the node.
template <class F, class T, int Arity, bool CondFirst, int V, class R>
GEON_HD void typed_apply(const LoopPlan& plan, const DevExpr& e, const TilePos& t, bool vector,
                         const int64_t* base_off, R* y) {
  const DevNode& node = e.nodes[0];
  const OpParams params{node.alpha, node.beta};
  T x[3][V] = {};  // zeroed: lanes past a short tile are never used, but stay defined
  GEON_UNROLL
  for (int a = 0; a < Arity; ++a) {
    const int64_t first = base_off[1 + a] + tile_offset(plan, 1 + a, t);
    const int64_t step = inner_stride(plan, 1 + a);
    if (CondFirst && a == 0)
      load_tile<bool, T, V>(input_base(e, a), first, step, t.n, vector, x[a]);
    else
      load_tile<T, T, V>(input_base(e, a), first, step, t.n, vector, x[a]);
    if (node.scale[a] != 1.0) GEON_UNROLL
    for (int v = 0; v < V; ++v) x[a][v] = scaled(x[a][v], node.scale[a]);
  }
  GEON_UNROLL
  for (int v = 0; v < V; ++v) {
    if (v >= t.n) break;
    if constexpr (Arity == 1)
      y[v] = static_cast<R>(F::f(x[0][v], params));
    else if constexpr (Arity == 2)
      y[v] = static_cast<R>(F::f(x[0][v], x[1][v], params));
    else
      y[v] = static_cast<R>(F::f(x[0][v], x[1][v], x[2][v], params));
  }
}

// One tile of a typed elementwise pass.
template <class F, class T, int Arity, bool BoolOut, bool CondFirst>
GEON_HD void typed_tile(const EwPass& p, int64_t k) {
  constexpr int V = typed_vec<T>();
  using R = std::conditional_t<BoolOut, bool, T>;
  const TilePos t = tile_pos(p.tiles, k);
  const int64_t zero[kMaxLoopOperands] = {};
  R y[V] = {};
  typed_apply<F, T, Arity, CondFirst, V>(p.plan, p.e, t, p.vector, zero, y);
  store_tile<R, V>(p.dst, tile_offset(p.plan, 0, t), inner_stride(p.plan, 0), t.n, p.vector, y);
}

// A single typed op as the source of a reduction (sum of squares, L2 distance, ...).
template <class F, class T, int Arity>
struct TypedSource {
  template <Reduce R, class A>
  GEON_HD static A fold(const ReducePass& p, const int64_t* out_off, int64_t k, A acc) {
    constexpr int V = typed_vec<T>();
    const TilePos t = tile_pos(p.red_tiles, k);
    T y[V] = {};
    typed_apply<F, T, Arity, false, V>(p.red, p.e, t, p.vector, out_off, y);
    GEON_UNROLL
    for (int v = 0; v < V; ++v)
      if (v < t.n) acc = combine<R>(acc, static_cast<A>(y[v]));
    return acc;
  }
};

// The interpreter as the source of a reduction.
struct InterpretedFold {
  template <Reduce R, class A>
  GEON_HD static A fold(const ReducePass& p, const int64_t* out_off, int64_t k, A acc) {
    return fold_tile<R, A, InterpretedSource>(p, out_off, k, acc);
  }
};

}  // namespace geon::cuda
