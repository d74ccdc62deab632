// CumSum and CumProd along the axis given by input 1 (an int32 or int64 scalar, read at every
// run): y_k = x_0 + ... + x_k, or without x_k (exclusive: y_0 is 0, or 1 for the product), or
// from the other end (reverse). The input is read as a dense [outer, n, inner] array of its
// compute type and walked along n a block of columns at a time, a running total per column, so
// the inner loop runs over contiguous memory whichever axis is chosen. Integers wrap, as numpy's
// do: they accumulate in uint64 (no signed overflow, no promotion of narrow unsigned products to
// int) and keep their low bits; float16 and bfloat16 accumulate in float.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/generic/ordering/common.h"
#include "kernels/cpu/generic/ordering/ops.h"

namespace geon::cpu {
namespace {

using ordering::AxisSplit;

struct Params {
  bool product = false;
  bool exclusive = false;
  bool reverse = false;
};

template <class T>
using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, T>;

template <class T>
void cumulative(KernelContext& ctx, const Params& p, const IntsInput& axis_in) {
  const TensorRef& x = ctx.input(0);
  const int rank = x.desc.rank();
  require(rank >= 1, "the input must have rank >= 1, got a scalar");
  const std::vector<int64_t> axis_v = axis_in.read(ctx, "the axis (input 1)");
  require(axis_v.size() == 1, [&] {
    return "the axis (input 1) must hold one value, got " + std::to_string(axis_v.size());
  });
  const int axis = ordering::checked_axis(axis_v[0], rank, "the axis (input 1)");
  const TensorRef& y = ctx.output(0, x.desc.shape);
  const AxisSplit s = ordering::split_at(x.desc.shape, axis);
  if (s.outer * s.n * s.inner == 0) return;
  std::vector<std::byte> xs, ys;
  constexpr DType compute = ordering::dtype_of<T>();
  const T* xp = static_cast<const T*>(stage_input(x, {}, compute, xs));
  T* yp = static_cast<T*>(stage_output(y, {}, compute, ys));
  const int64_t blocks = (s.inner + ordering::kColumns - 1) / ordering::kColumns;
  parallel_rows(s.outer * blocks, s.n * std::min(s.inner, ordering::kColumns),
                [&](int64_t lo, int64_t hi) {
                  using A = Acc<T>;
                  std::vector<A> acc(static_cast<size_t>(std::min(s.inner, ordering::kColumns)));
                  for (int64_t item = lo; item < hi; ++item) {
                    const int64_t o = item / blocks, first = item % blocks * ordering::kColumns;
                    const int64_t width = std::min(ordering::kColumns, s.inner - first);
                    const int64_t at = o * s.n * s.inner + first;
                    std::fill(acc.begin(), acc.begin() + width, A(p.product ? 1 : 0));
                    for (int64_t step = 0; step < s.n; ++step) {
                      const int64_t k = p.reverse ? s.n - 1 - step : step;
                      const T* xr = xp + at + k * s.inner;
                      T* yr = yp + at + k * s.inner;
                      for (int64_t i = 0; i < width; ++i) {
                        const A before = acc[i];
                        acc[i] = p.product ? static_cast<A>(acc[i] * static_cast<A>(xr[i]))
                                           : static_cast<A>(acc[i] + static_cast<A>(xr[i]));
                        yr[i] = static_cast<T>(p.exclusive ? before : acc[i]);
                      }
                    }
                  }
                });
  store_output(y, {}, compute, ys);
}

}  // namespace

Reason supports_cumulative(const Graph& g, const Node& n) {
  if (!has_input(n, 0) || !has_input(n, 1)) return n.op + " needs its data and axis inputs";
  const DType t = input_dtype(g, n, 0);
  if (Reason r = ordering::compute_type_reason(t, "the input")) return r;
  if (output_dtype(g, n, 0) != t) return "the output's dtype must be the input's";
  const DType at = input_dtype(g, n, 1);
  if (at != DType::kInt32 && at != DType::kInt64)
    return "the axis (input 1) is " + std::string(dtype_name(at)) + ", not int32 or int64";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_cumulative(const Graph& g, const Node& n) {
  const Params p{n.op == "CumProd", attr_int(n, "exclusive", 0) != 0,
                 attr_int(n, "reverse", 0) != 0};
  const IntsInput axis = ints_input(g, n, 1);
  return make_node_kernel(n, [p, axis](KernelContext& ctx) {
    ordering::with_compute_type(ctx.input(0).desc.dtype,
                                [&](auto t) { cumulative<decltype(t)>(ctx, p, axis); });
  });
}

}  // namespace geon::cpu
