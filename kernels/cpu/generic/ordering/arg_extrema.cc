// ArgMax and ArgMin: the int64 index of the largest (smallest) element along `axis`, the first
// one or with select_last_index the last one among equals. A NaN counts as the extremum, as in
// numpy (the reference): the first NaN wins, or the last with select_last_index. The input is
// read as a dense [outer, n, inner] array of its compute type; lines along the last axis are
// scanned for the extremum and then its position, other axes a block of columns at a time, so
// the comparisons run along contiguous memory whichever axis is chosen.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/cpu/generic/ordering/common.h"
#include "kernels/cpu/generic/ordering/ops.h"

namespace geon::cpu {
namespace {

using ordering::AxisSplit;

struct Params {
  bool max = true;
  int64_t axis = 0;
  bool keepdims = true;
  bool last = false;
};

// Whether v replaces the current best b.
template <class T>
bool better(T v, T b, const Params& p) {
  if (ordering::is_nan(b)) return p.last && ordering::is_nan(v);
  if (ordering::is_nan(v)) return true;
  if (p.last) return p.max ? v >= b : v <= b;
  return p.max ? v > b : v < b;
}

// One contiguous line (the axis is the last dim): the extremum first, over 8 lanes the compiler
// vectorises, then its first (or last) position; a NaN anywhere makes the answer the first (or
// last) NaN.
template <class T>
int64_t line_arg(const T* x, int64_t n, const Params& p) {
  T lanes[8];
  std::fill(lanes, lanes + 8, x[0]);
  bool nan = false;
  int64_t k = 0;
  for (; k + 8 <= n; k += 8)
    for (int l = 0; l < 8; ++l) {
      const T v = x[k + l];
      nan |= ordering::is_nan(v);
      lanes[l] = p.max ? (v > lanes[l] ? v : lanes[l]) : (v < lanes[l] ? v : lanes[l]);
    }
  T best = x[0];
  for (; k < n; ++k) {
    nan |= ordering::is_nan(x[k]);
    best = p.max ? (x[k] > best ? x[k] : best) : (x[k] < best ? x[k] : best);
  }
  for (T l : lanes) best = p.max ? (l > best ? l : best) : (l < best ? l : best);
  nan |= ordering::is_nan(best);  // x[0] seeds every lane and is never replaced when NaN
  auto hit = [&](T v) { return nan ? ordering::is_nan(v) : v == best; };
  if (p.last) {
    for (k = n - 1; k > 0; --k)
      if (hit(x[k])) return k;
    return 0;
  }
  for (k = 0; k < n - 1; ++k)
    if (hit(x[k])) return k;
  return n - 1;
}

template <class T>
void arg_extrema(KernelContext& ctx, const Params& p) {
  const TensorRef& x = ctx.input(0);
  const int rank = x.desc.rank();
  require(rank >= 1, "the input must have rank >= 1, got a scalar");
  const int axis = ordering::checked_axis(p.axis, rank, "axis");
  Dims out_shape = x.desc.shape;
  if (p.keepdims)
    out_shape[axis] = 1;
  else
    out_shape.erase(out_shape.begin() + axis);
  const TensorRef& y = ctx.output(0, out_shape);
  const AxisSplit s = ordering::split_at(x.desc.shape, axis);
  if (s.outer * s.inner == 0) return;
  require(s.n > 0, [&] {
    return "axis " + std::to_string(axis) + " is empty: there is no element to choose";
  });
  std::vector<std::byte> xs, ys;
  const T* xp = static_cast<const T*>(stage_input(x, {}, ordering::dtype_of<T>(), xs));
  auto* yp = static_cast<int64_t*>(stage_output(y, {}, DType::kInt64, ys));
  const int64_t blocks = (s.inner + ordering::kColumns - 1) / ordering::kColumns;
  parallel_rows(s.outer * blocks, s.n * std::min(s.inner, ordering::kColumns),
                [&](int64_t lo, int64_t hi) {
                  std::vector<T> best(static_cast<size_t>(std::min(s.inner, ordering::kColumns)));
                  for (int64_t item = lo; item < hi; ++item) {
                    if (s.inner == 1) {
                      yp[item] = line_arg(xp + item * s.n, s.n, p);
                      continue;
                    }
                    const int64_t o = item / blocks, first = item % blocks * ordering::kColumns;
                    const int64_t width = std::min(ordering::kColumns, s.inner - first);
                    const T* col = xp + o * s.n * s.inner + first;
                    int64_t* where = yp + o * s.inner + first;
                    std::copy(col, col + width, best.begin());
                    std::fill(where, where + width, int64_t{0});
                    for (int64_t k = 1; k < s.n; ++k) {
                      const T* row = col + k * s.inner;
                      for (int64_t i = 0; i < width; ++i)
                        if (better(row[i], best[i], p)) best[i] = row[i], where[i] = k;
                    }
                  }
                });
  store_output(y, {}, DType::kInt64, ys);
}

}  // namespace

Reason supports_arg_extrema(const Graph& g, const Node& n) {
  if (!has_input(n, 0)) return n.op + " needs its data input";
  if (Reason r = ordering::compute_type_reason(input_dtype(g, n, 0), "the input")) return r;
  if (output_dtype(g, n, 0) != DType::kInt64) return "the output must be int64";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_arg_extrema(const Graph&, const Node& n) {
  const Params p{n.op == "ArgMax", attr_int(n, "axis", 0), attr_int(n, "keepdims", 1) != 0,
                 n.opset >= 12 && attr_int(n, "select_last_index", 0) != 0};
  return make_node_kernel(n, [p](KernelContext& ctx) {
    ordering::with_compute_type(ctx.input(0).desc.dtype,
                                [&](auto t) { arg_extrema<decltype(t)>(ctx, p); });
  });
}

}  // namespace geon::cpu
