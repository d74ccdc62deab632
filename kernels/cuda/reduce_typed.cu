// Typed first passes of reductions: a single op on float or double inputs stored in that type
// (plain sums and extrema, sums of squares and of absolute values, and the L2 distance that
// the host rewrites from sub-then-square), read with 16-byte loads where aligned.
#include "kernels/cuda/kernels.cuh"

namespace geon::cuda {
namespace {

template <class F, int Arity, class T>
void launch_typed_reduce(const ReducePass& p, Reduce rule, ReduceShape shape, Grid g,
                         void* partials, cudaStream_t s) {
  with_rule(rule, [&](auto r) {
    launch_first_pass<decltype(r)::value, double, TypedSource<F, T, Arity>>(p, shape, g.blocks,
                                                                            g.threads, partials, s);
  });
}

template <class F, int Arity>
bool launch_for_type(int ci, const ReducePass& p, Reduce rule, ReduceShape shape, Grid g,
                     void* partials, cudaStream_t s) {
  if (ci == kCiFloat)
    launch_typed_reduce<F, Arity, float>(p, rule, shape, g, partials, s);
  else if (ci == kCiDouble)
    launch_typed_reduce<F, Arity, double>(p, rule, shape, g, partials, s);
  else
    return false;
  return true;
}

}  // namespace

bool launch_reduce_typed(const ReducePass& p, OpId op, int ci, Reduce rule, ReduceShape shape,
                         Grid g, void* partials, cudaStream_t s) {
  if (!has_typed_reduce(op, ci)) return false;
  switch (op) {
    case OpId::Identity:
      return launch_for_type<ops::Identity, 1>(ci, p, rule, shape, g, partials, s);
    case OpId::Square:
      return launch_for_type<ops::Square, 1>(ci, p, rule, shape, g, partials, s);
    case OpId::Abs:
      return launch_for_type<ops::Abs, 1>(ci, p, rule, shape, g, partials, s);
    default:
      return launch_for_type<ops::SquaredDifference, 2>(ci, p, rule, shape, g, partials, s);
  }
}

}  // namespace geon::cuda
