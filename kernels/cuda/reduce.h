// Reductions in the CUDA kernels: the accumulator rules of the CPU engine (accumulate.cc:
// double for float results, int64 for signed and bool, uint64 for unsigned; NaN propagates
// through max and min) and the per-thread pieces of the two-pass reduction: fold the elements
// of one output's segment in a fixed order, then combine the segments' partials in order and
// store. GEON_HD, so the CPU tests replay whole reductions thread by thread.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/base/hd.h"
#include "core/engine/engine.h"
#include "kernels/cuda/interpret.h"
#include "kernels/cuda/pass.h"
#include "kernels/cuda/storage.h"
#include "kernels/cuda/value.h"

namespace geon::cuda {

// The kernels combine with one of four rules; mean is a sum divided at the end.
GEON_HD Reduce combine_rule(Reduce r) { return r == Reduce::kMean ? Reduce::kSum : r; }

template <Reduce R, class A>
GEON_HD A combine(A a, A b) {
  if constexpr (R == Reduce::kSum) {
    if constexpr (std::is_floating_point_v<A>)
      return a + b;
    else
      return static_cast<A>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  } else if constexpr (R == Reduce::kProd) {
    if constexpr (std::is_floating_point_v<A>)
      return a * b;
    else
      return static_cast<A>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else if constexpr (R == Reduce::kMax) {
    if constexpr (std::is_floating_point_v<A>)
      return (a > b || std::isnan(a)) ? a : b;
    else
      return a > b ? a : b;
  } else {
    if constexpr (std::is_floating_point_v<A>)
      return (a < b || std::isnan(a)) ? a : b;
    else
      return a < b ? a : b;
  }
}

template <Reduce R, class A>
GEON_HD A identity() {
  if constexpr (R == Reduce::kProd)
    return A(1);
  else if constexpr (R == Reduce::kMax)
    return std::is_floating_point_v<A> ? -std::numeric_limits<A>::infinity()
                                       : std::numeric_limits<A>::lowest();
  else if constexpr (R == Reduce::kMin)
    return std::is_floating_point_v<A> ? std::numeric_limits<A>::infinity()
                                       : std::numeric_limits<A>::max();
  else
    return A(0);
}

// The mean of `count` values whose sum is a (integer means of nothing are 0).
template <class A>
GEON_HD A mean_of(A a, int64_t count) {
  if constexpr (std::is_floating_point_v<A>)
    return a / static_cast<A>(count);
  else
    return count == 0 ? A(0) : static_cast<A>(a / static_cast<A>(count));
}

// A value of compute type ci as accumulator A.
template <class A>
GEON_HD A acc_of(Value v, int ci) {
  A r{};
  with_compute(ci, [&](auto t) { r = static_cast<A>(get<decltype(t)>(v)); });
  return r;
}

// The interpreted expression as a source of accumulator values.
struct InterpretedSource {
  template <class A>
  GEON_HD static A at(const ReducePass& p, const int64_t* off) {
    return acc_of<A>(eval_expr(p.e, off + 1), p.e.result());
  }
};

// Folds the elements of reduced-space tile k of output `o` into acc, in tile order.
// out_off[op] is element_offset(p.out, op, o).
template <Reduce R, class A, class Source>
GEON_HD A fold_tile(const ReducePass& p, const int64_t* out_off, int64_t k, A acc) {
  const TilePos t = tile_pos(p.red_tiles, k);
  const int ops = p.red.operands;
  int64_t first[kMaxLoopOperands], step[kMaxLoopOperands];
  for (int o = 0; o < ops; ++o) {
    first[o] = out_off[o] + tile_offset(p.red, o, t);
    step[o] = inner_stride(p.red, o);
  }
  for (int64_t v = 0; v < t.n; ++v) {
    int64_t off[kMaxLoopOperands];
    for (int o = 0; o < ops; ++o) off[o] = first[o] + v * step[o];
    acc = combine<R>(acc, Source::template at<A>(p, off));
  }
  return acc;
}

// out_off[k] = element_offset(p.out, k, o); a fixed trip count keeps out_off in registers.
GEON_HD void output_offsets(const ReducePass& p, int64_t o, int64_t* out_off) {
  GEON_UNROLL
  for (int k = 0; k < kMaxLoopOperands; ++k)
    out_off[k] = k < p.out.operands ? element_offset(p.out, k, o) : 0;
}

// Output o's final accumulator: divided for a mean, converted into the destination.
template <class A>
GEON_HD void store_output(const ReducePass& p, int64_t o, A acc) {
  if (p.mean) acc = mean_of(acc, p.n_red);
  store_any(p.dst_dtype, p.dst, element_offset(p.out, 0, o), scalar_of(acc), p.cast);
}

// Second pass for output o by one thread: partials[o * segments + s] combined in segment
// order (loaded eight at a time, so the loads overlap), then stored.
template <Reduce R, class A>
GEON_HD void finish_output(const ReducePass& p, const A* partials, int64_t o) {
  constexpr int kBatch = 8;
  const A* part = partials + o * p.segments;
  A acc = identity<R, A>();
  int64_t s = 0;
  for (; s + kBatch <= p.segments; s += kBatch) {
    A v[kBatch];
    GEON_UNROLL
    for (int j = 0; j < kBatch; ++j) v[j] = part[s + j];
    GEON_UNROLL
    for (int j = 0; j < kBatch; ++j) acc = combine<R>(acc, v[j]);
  }
  for (; s < p.segments; ++s) acc = combine<R>(acc, part[s]);
  store_output(p, o, acc);
}

// The second pass by a block (many segments, few outputs): thread t folds segments t,
// t + threads, ... in order, then the block's fixed tree combines the threads.
template <Reduce R, class A>
GEON_HD A fold_partials_strided(const ReducePass& p, const A* partials, int64_t o, int64_t t,
                                int64_t threads) {
  A acc = identity<R, A>();
  for (int64_t s = t; s < p.segments; s += threads)
    acc = combine<R>(acc, partials[o * p.segments + s]);
  return acc;
}

}  // namespace geon::cuda
