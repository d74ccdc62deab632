// The expression interpreter of the CUDA engine: evaluates an encoded expression (pass.h) at
// one element, node by node, with the shared functors of core/engine/op_functors.h. Fused
// expressions, mixed storage dtypes and every op of the table go through here; single ops on
// matching dtypes take the typed kernels instead (typed.h). GEON_HD, so the CPU tests can run
// it against the CPU engine.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/base/hd.h"
#include "core/engine/op_functors.h"
#include "kernels/cuda/op_list.h"
#include "kernels/cuda/pass.h"
#include "kernels/cuda/storage.h"
#include "kernels/cuda/value.h"

namespace geon::cuda {

// y = s * x as the CPU engine scales an argument (evaluate.cc, scale_chunk): floats multiply
// in their own type; integers multiply by the integral scale with wrap-around; a bool stays
// true unless the scale is zero.
template <class T>
GEON_HD T scaled(T x, double s) {
  if constexpr (std::is_same_v<T, bool>)
    return x && static_cast<int64_t>(s) != 0;
  else if constexpr (std::is_floating_point_v<T>)
    return x * static_cast<T>(s);
  else
    return ops::wrap_mul(x, static_cast<T>(static_cast<int64_t>(s)));
}

GEON_HD Value scale_value(Value v, int ci, double s) {
  Value r;
  with_compute(ci, [&](auto t) {
    using T = decltype(t);
    r = put(scaled(get<T>(v), s));
  });
  return r;
}

// F on compute type ci (which the host checked F supports).
template <class F, int Arity, unsigned Mask, bool BoolOut>
GEON_HD Value apply_functor(int ci, Value a, Value b, Value c, const OpParams& p) {
  Value r;
  with_compute(ci, [&](auto t) {
    using T = decltype(t);
    if constexpr ((Mask & type_class<T>()) != 0) {
      using R = std::conditional_t<BoolOut, bool, T>;
      if constexpr (Arity == 1)
        r = put(static_cast<R>(F::f(get<T>(a), p)));
      else if constexpr (Arity == 2)
        r = put(static_cast<R>(F::f(get<T>(a), get<T>(b), p)));
      else
        r = put(static_cast<R>(F::f(get<T>(a), get<T>(b), get<T>(c), p)));
    }
  });
  return r;
}

// The interpreter's op dispatch: one case per table entry.
GEON_HD_NOINLINE Value apply_op(OpId op, int ci, Value a, Value b, Value c, double alpha,
                                double beta) {
  const OpParams p{alpha, beta};
  switch (op) {
#define GEON_CASE1(F, name, mask, bool_out, cond) \
  case OpId::F:                                   \
    return apply_functor<ops::F, 1, mask, bool_out>(ci, a, b, c, p);
#define GEON_CASE2(F, name, mask, bool_out, cond) \
  case OpId::F:                                   \
    return apply_functor<ops::F, 2, mask, bool_out>(ci, a, b, c, p);
#define GEON_CASE3(F, name, mask, bool_out, cond) \
  case OpId::F:                                   \
    return apply_functor<ops::F, 3, mask, bool_out>(ci, a, b, c, p);
    GEON_CUDA_UNARY_OPS(GEON_CASE1)
    GEON_CUDA_BINARY_OPS(GEON_CASE2)
    GEON_CUDA_TERNARY_OPS(GEON_CASE3)
#undef GEON_CASE1
#undef GEON_CASE2
#undef GEON_CASE3
    default:
      return Value{};
  }
}

// The expression's value at one element; in_off[i] is input i's element offset. Each argument
// is converted to its node's compute type and scaled, as the CPU evaluator does per chunk.
GEON_HD Value eval_expr(const DevExpr& e, const int64_t* in_off) {
  Value vals[kMaxNodes];
  for (int k = 0; k < e.n_nodes; ++k) {
    const DevNode& n = e.nodes[k];
    Value a[3];
    for (int j = 0; j < n.arity; ++j) {
      const int arg = n.arg[j];
      if (arg >= 0)
        a[j] = load_compute(e.in_dtype[arg], input_base(e, arg), in_off[arg], n.compute);
      else
        a[j] = convert_value(vals[~arg], e.nodes[~arg].result, n.compute);
      if (n.scale[j] != 1.0) a[j] = scale_value(a[j], n.compute, n.scale[j]);
    }
    vals[k] = apply_op(n.op, n.compute, a[0], a[1], a[2], n.alpha, n.beta);
  }
  return vals[e.n_nodes - 1];
}

// One tile of an interpreted elementwise pass: evaluate and store with conversion.
GEON_HD void interpret_tile(const EwPass& p, int64_t k) {
  const TilePos t = tile_pos(p.tiles, k);
  const int ops = p.plan.operands;
  int64_t first[kMaxLoopOperands], step[kMaxLoopOperands];
  for (int o = 0; o < ops; ++o) {
    first[o] = tile_offset(p.plan, o, t);
    step[o] = inner_stride(p.plan, o);
  }
  const int result = p.e.result();
  for (int64_t v = 0; v < t.n; ++v) {
    int64_t off[kMaxInputs];
    for (int i = 0; i < p.e.n_in; ++i) off[i] = first[1 + i] + v * step[1 + i];
    const Value y = eval_expr(p.e, off);
    store_any(p.dst_dtype, p.dst, first[0] + v * step[0], scalar_of(y, result), p.cast);
  }
}

}  // namespace geon::cuda
