// TopK: the k largest (or smallest) elements along `axis` and their int64 indices, in order
// (largest first, or smallest first); equal values keep the lower index first, as the spec
// asks. NaN counts as larger than every number (numpy's sort order, which the reference
// follows). k is the attribute before opset 10, then input 1 (one int64, read at every run) and
// must lie in [0, n]. sorted = 0 leaves the order to the implementation: it is sorted here too.
// Each line along the axis is read out of a dense [outer, n, inner] array of the input's
// compute type as (key, index) entries: a small k keeps a heap of the best k, a larger one
// selects and sorts.
#include <algorithm>
#include <bit>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/generic/ordering/common.h"
#include "kernels/cpu/generic/ordering/ops.h"

namespace geon::cpu {
namespace {

using ordering::AxisSplit;

struct Params {
  int64_t axis = -1;
  bool largest = true;
  std::optional<int64_t> k_attr;  // before opset 10
  IntsInput k_in;                 // from opset 10
};

// An unsigned key per value whose order is the output order: larger keys first. Floats map
// through their bits (sign-magnitude to two's order), with every NaN made the positive quiet
// NaN (above +inf) and -0 made +0 (equal values tie); signed integers flip their sign bit.
// Smallest-first flips every bit (`flip`). Sorting keys needs no NaN tests in the comparisons,
// and the mapping is branch-free: value signs are random, so branches on them mispredict.
template <class T>
struct KeyOf {
  using type = std::make_unsigned_t<T>;
};
template <>
struct KeyOf<float> {
  using type = uint32_t;
};
template <>
struct KeyOf<double> {
  using type = uint64_t;
};
template <class T>
using Key = typename KeyOf<T>::type;

template <class T>
Key<T> order_key(T v, Key<T> flip) {
  using U = Key<T>;
  constexpr int kTop = static_cast<int>(sizeof(U)) * 8 - 1;
  constexpr U sign = U(1) << kTop;
  if constexpr (std::is_floating_point_v<T>) {
    const T plus = v + T(0);  // -0 + 0 is +0; everything else is unchanged
    const U bits = std::isnan(v) ? std::bit_cast<U>(std::numeric_limits<T>::quiet_NaN())
                                 : std::bit_cast<U>(plus);
    const U negative = static_cast<U>(U(0) - (bits >> kTop));  // all ones when negative
    return static_cast<U>(bits ^ (negative | sign) ^ flip);
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<U>(static_cast<U>(v) ^ sign ^ flip);
  } else {
    return static_cast<U>(v ^ flip);
  }
}

int64_t read_k(KernelContext& ctx, const Params& p) {
  if (p.k_attr) return *p.k_attr;
  const std::vector<int64_t> k = p.k_in.read(ctx, "K (input 1)");
  require(k.size() == 1,
          [&] { return "K (input 1) must hold one value, got " + std::to_string(k.size()); });
  return k[0];
}

template <class T>
void top_k(KernelContext& ctx, const Params& p) {
  const TensorRef& x = ctx.input(0);
  const int rank = x.desc.rank();
  require(rank >= 1, "the input must have rank >= 1, got a scalar");
  const int axis = ordering::checked_axis(p.axis, rank, "axis");
  const int64_t k = read_k(ctx, p);
  const int64_t n = x.desc.shape[axis];
  require(k >= 0 && k <= n, [&] {
    return "K is " + std::to_string(k) + ", must be in [0, " + std::to_string(n) +
           "] (the length of axis " + std::to_string(axis) + ")";
  });
  Dims out_shape = x.desc.shape;
  out_shape[axis] = k;
  const TensorRef& values = ctx.output(0, out_shape);
  // A node listing only Values still needs the indices somewhere: a local buffer.
  TensorRef local;
  if (ctx.num_outputs() < 2) local.desc = row_major(DType::kInt64, out_shape);
  const TensorRef& indices = ctx.num_outputs() < 2 ? local : ctx.output(1, out_shape);
  const AxisSplit s = ordering::split_at(x.desc.shape, axis);
  if (s.outer * s.inner * k == 0) return;
  constexpr DType compute = ordering::dtype_of<T>();
  std::vector<std::byte> xs, vs, is;
  const T* xp = static_cast<const T*>(stage_input(x, {}, compute, xs));
  T* vp = static_cast<T*>(stage_output(values, {}, compute, vs));
  auto* ip = static_cast<int64_t*>(stage_output(indices, {}, DType::kInt64, is));
  const bool largest = p.largest;
  struct Entry {
    Key<T> key;
    int64_t index;
  };
  const Key<T> flip = largest ? Key<T>(0) : static_cast<Key<T>>(~Key<T>(0));
  // Larger key first, then the lower index: a strict total order, so the result is
  // deterministic however the sort proceeds.
  auto first = [](const Entry& a, const Entry& b) {
    return a.key != b.key ? a.key > b.key : a.index < b.index;
  };
  parallel_rows(s.outer * s.inner, n + k * 16, [&](int64_t lo, int64_t hi) {
    const bool few = k * 8 < n;
    std::vector<Entry> line(static_cast<size_t>(few ? k : n));
    for (int64_t item = lo; item < hi; ++item) {
      const int64_t o = item / s.inner, i = item % s.inner;
      const T* src = xp + o * n * s.inner + i;
      if (few) {
        // A heap of the k best so far, the one that would come last on top. A later element
        // enters only with a strictly larger key: on equal keys its higher index loses.
        for (int64_t j = 0; j < k; ++j) line[j] = {order_key(src[j * s.inner], flip), j};
        std::make_heap(line.begin(), line.end(), first);
        for (int64_t j = k; j < n; ++j) {
          const Key<T> key = order_key(src[j * s.inner], flip);
          if (key <= line.front().key) continue;
          std::pop_heap(line.begin(), line.end(), first);
          line.back() = {key, j};
          std::push_heap(line.begin(), line.end(), first);
        }
        std::sort_heap(line.begin(), line.end(), first);
      } else {
        for (int64_t j = 0; j < n; ++j) line[j] = {order_key(src[j * s.inner], flip), j};
        std::nth_element(line.begin(), line.begin() + (k - 1), line.end(), first);
        std::sort(line.begin(), line.begin() + k, first);
      }
      const int64_t at = o * k * s.inner + i;
      for (int64_t j = 0; j < k; ++j) {
        vp[at + j * s.inner] = src[line[j].index * s.inner];
        ip[at + j * s.inner] = line[j].index;
      }
    }
  });
  store_output(values, {}, compute, vs);
  if (indices.data) store_output(indices, {}, DType::kInt64, is);
}

}  // namespace

Reason supports_top_k(const Graph& g, const Node& n) {
  if (!has_input(n, 0)) return "TopK needs its data input";
  const DType t = input_dtype(g, n, 0);
  if (Reason r = ordering::compute_type_reason(t, "the input")) return r;
  auto listed = [&](int i) { return static_cast<int>(n.outputs.size()) > i && n.outputs[i] >= 0; };
  if (listed(0) && output_dtype(g, n, 0) != t) return "the values' dtype must be the input's";
  if (listed(1) && output_dtype(g, n, 1) != DType::kInt64) return "the indices must be int64";
  if (n.opset < 10) return std::nullopt;
  if (!has_input(n, 1)) return "TopK needs K (input 1) from opset 10";
  return check_ints_input(g, n, 1, "K (input 1)");
}

std::unique_ptr<Kernel> create_top_k(const Graph& g, const Node& n) {
  Params p;
  p.axis = attr_int(n, "axis", -1);
  p.largest = attr_int(n, "largest", 1) != 0;
  if (n.opset < 10)
    p.k_attr = attr_int(n, "k", 0);
  else
    p.k_in = ints_input(g, n, 1);
  return make_node_kernel(n, [p](KernelContext& ctx) {
    ordering::with_compute_type(ctx.input(0).desc.dtype,
                                [&](auto t) { top_k<decltype(t)>(ctx, p); });
  });
}

}  // namespace geon::cpu
