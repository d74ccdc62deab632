// Replays CUDA passes on the CPU: every tile, (output, segment) pair and block tree a launch
// would run, through the very GEON_HD bodies the kernels call, on host memory. The plans come
// from plan.h exactly as on the GPU path, so a replay checks everything but the CUDA runtime
// and the device's math library.
#pragma once

#include <type_traits>
#include <vector>

#include "kernels/cuda/cast.h"
#include "kernels/cuda/interpret.h"
#include "kernels/cuda/plan.h"
#include "kernels/cuda/reduce.h"
#include "kernels/cuda/typed.h"

namespace geon::cuda::testing {

template <class F, int Arity, unsigned Mask, bool BoolOut, bool CondFirst>
void typed_tile_for(int ci, const EwPass& p, int64_t k) {
  with_compute(ci, [&](auto t) {
    using T = decltype(t);
    if constexpr ((Mask & type_class<T>()) != 0) typed_tile<F, T, Arity, BoolOut, CondFirst>(p, k);
  });
}

inline void typed_tile_any(const EwPass& p, int64_t k) {
  const DevNode& n = p.e.nodes[0];
  switch (n.op) {
#define GEON_R1(F, name, mask, b, c) \
  case OpId::F:                      \
    return typed_tile_for<ops::F, 1, mask, b, c>(n.compute, p, k);
#define GEON_R2(F, name, mask, b, c) \
  case OpId::F:                      \
    return typed_tile_for<ops::F, 2, mask, b, c>(n.compute, p, k);
#define GEON_R3(F, name, mask, b, c) \
  case OpId::F:                      \
    return typed_tile_for<ops::F, 3, mask, b, c>(n.compute, p, k);
    GEON_CUDA_UNARY_OPS(GEON_R1)
    GEON_CUDA_BINARY_OPS(GEON_R2)
    GEON_CUDA_TERNARY_OPS(GEON_R3)
#undef GEON_R1
#undef GEON_R2
#undef GEON_R3
    default:
      break;
  }
}

// Runs an elementwise plan: typed when the plan says so, or forced through the interpreter.
inline void replay(const ElementwisePlan& plan, bool force_interpreter = false) {
  for (int64_t k = 0; k < plan.pass.tiles.count; ++k) {
    if (plan.typed && !force_interpreter)
      typed_tile_any(plan.pass, k);
    else
      interpret_tile(plan.pass, k);
  }
}

template <class F>
void with_rule_r(Reduce r, F&& f) {
  switch (r) {
    case Reduce::kMax:
      return f(std::integral_constant<Reduce, Reduce::kMax>{});
    case Reduce::kMin:
      return f(std::integral_constant<Reduce, Reduce::kMin>{});
    case Reduce::kProd:
      return f(std::integral_constant<Reduce, Reduce::kProd>{});
    default:
      return f(std::integral_constant<Reduce, Reduce::kSum>{});
  }
}

template <class F>
void with_acc_r(DType acc, F&& f) {
  if (acc == DType::kDouble)
    f(double{});
  else if (acc == DType::kInt64)
    f(int64_t{});
  else
    f(uint64_t{});
}

// One (output, segment) pair as the block kernel folds it: thread t takes tiles lo + t,
// lo + t + 256, ...; then the same tree as the shared-memory combine.
template <Reduce R, class A, class Source>
A block_pair(const ReducePass& p, int64_t o, int64_t s) {
  int64_t out_off[kMaxLoopOperands];
  output_offsets(p, o, out_off);
  const int64_t lo = segment_begin(p.red_tiles.count, p.segments, s);
  const int64_t hi = segment_begin(p.red_tiles.count, p.segments, s + 1);
  std::vector<A> lane(kBlockThreads, identity<R, A>());
  for (int t = 0; t < kBlockThreads; ++t)
    for (int64_t k = lo + t; k < hi; k += kBlockThreads)
      lane[t] = Source::template fold<R, A>(p, out_off, k, lane[t]);
  for (int w = kBlockThreads / 2; w > 0; w >>= 1)
    for (int t = 0; t < w; ++t) lane[t] = combine<R>(lane[t], lane[t + w]);
  return lane[0];
}

template <Reduce R, class A, class Source>
A thread_pair(const ReducePass& p, int64_t o, int64_t s) {
  int64_t out_off[kMaxLoopOperands];
  output_offsets(p, o, out_off);
  A acc = identity<R, A>();
  const int64_t lo = segment_begin(p.red_tiles.count, p.segments, s);
  const int64_t hi = segment_begin(p.red_tiles.count, p.segments, s + 1);
  for (int64_t k = lo; k < hi; ++k) acc = Source::template fold<R, A>(p, out_off, k, acc);
  return acc;
}

template <Reduce R, class A, class Source>
void replay_reduction_with(const ReductionPlan& plan) {
  const ReducePass& p = plan.pass;
  std::vector<A> partials(static_cast<size_t>(p.n_out * p.segments));
  for (int64_t o = 0; o < p.n_out; ++o)
    for (int64_t s = 0; s < p.segments; ++s)
      partials[o * p.segments + s] = plan.shape == ReduceShape::kBlockPerSegment
                                         ? block_pair<R, A, Source>(p, o, s)
                                         : thread_pair<R, A, Source>(p, o, s);
  for (int64_t o = 0; o < p.n_out; ++o) {
    if (!plan.finish_by_block) {
      finish_output<R, A>(p, partials.data(), o);
      continue;
    }
    std::vector<A> lane(kBlockThreads);
    for (int t = 0; t < kBlockThreads; ++t)
      lane[t] = fold_partials_strided<R, A>(p, partials.data(), o, t, kBlockThreads);
    for (int w = kBlockThreads / 2; w > 0; w >>= 1)
      for (int t = 0; t < w; ++t) lane[t] = combine<R>(lane[t], lane[t + w]);
    store_output(p, o, lane[0]);
  }
}

inline void replay(const ReductionPlan& plan) {
  const DevNode& n = plan.pass.e.nodes[0];
  with_rule_r(plan.rule, [&](auto r) {
    constexpr Reduce R = decltype(r)::value;
    if (!plan.typed) {
      with_acc_r(plan.acc,
                 [&](auto a) { replay_reduction_with<R, decltype(a), InterpretedFold>(plan); });
      return;
    }
    auto typed = [&](auto t) {
      using T = decltype(t);
      switch (n.op) {
        case OpId::Identity:
          return replay_reduction_with<R, double, TypedSource<ops::Identity, T, 1>>(plan);
        case OpId::Square:
          return replay_reduction_with<R, double, TypedSource<ops::Square, T, 1>>(plan);
        case OpId::Abs:
          return replay_reduction_with<R, double, TypedSource<ops::Abs, T, 1>>(plan);
        default:
          return replay_reduction_with<R, double, TypedSource<ops::SquaredDifference, T, 2>>(plan);
      }
    };
    if (n.compute == kCiFloat)
      typed(float{});
    else
      typed(double{});
  });
}

inline void replay(const CastPlan& plan) {
  for (int64_t k = 0; k < plan.pass.tiles.count; ++k) switch (plan.copy_bytes) {
      case 0:
        cast_tile(plan.pass, k);
        break;
      case 1:
        copy_tile<1>(plan.pass, k);
        break;
      case 2:
        copy_tile<2>(plan.pass, k);
        break;
      case 4:
        copy_tile<4>(plan.pass, k);
        break;
      case 8:
        copy_tile<8>(plan.pass, k);
        break;
      default:
        copy_tile<16>(plan.pass, k);
        break;
    }
}

}  // namespace geon::cuda::testing
