// Unique (11): the distinct elements of the flattened input, or the distinct slices along
// `axis`, sorted ascending (sorted = 1; slices compare lexicographically) or in order of first
// occurrence; with the first occurrence of each (indices), each input entry's place in Y
// (inverse_indices) and how often each occurs (counts). As numpy.unique: NaNs sort last and
// count as one value, -0.0 equals 0.0, and Y copies each group's first occurrence. Entries are
// compared as keys staged by the engine in int64, uint64, double or complex128, which hold
// every value of the narrower dtypes exactly; strings as their handles, ordered by their bytes
// (numpy's order of str: UTF-8 byte order is code point order) and equal when the bytes are.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/strings/strings.h"
#include "kernels/cpu/generic/indexing/ops.h"
#include "kernels/cpu/generic/indexing/positions.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

// Three-way comparison of single keys; NaN after every number and equal to NaN.
int compare_key(double a, double b) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  return a < b ? -1 : (b < a ? 1 : 0);
}
int compare_key(std::complex<double> a, std::complex<double> b) {
  const int c = compare_key(a.real(), b.real());
  return c != 0 ? c : compare_key(a.imag(), b.imag());
}
int compare_key(StringElem a, StringElem b) {
  // string_view compares as unsigned bytes (char_traits<char>), as memcmp does.
  const int c = a.view().compare(b.view());
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}
template <typename K>
int compare_key(K a, K b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

struct Groups {
  std::vector<int64_t> first;    // per unique entry: its first row
  std::vector<int64_t> inverse;  // per row: its unique entry
  std::vector<int64_t> counts;   // per unique entry
};

// Unique rows of a dense (rows, len) key array, in ascending order.
template <typename K>
Groups group_rows(const K* keys, int64_t rows, int64_t len) {
  auto compare = [&](int64_t a, int64_t b) {
    for (int64_t j = 0; j < len; ++j)
      if (int c = compare_key(keys[a * len + j], keys[b * len + j])) return c;
    return 0;
  };
  std::vector<int64_t> order(static_cast<size_t>(rows));
  std::iota(order.begin(), order.end(), 0);
  // Stable, so each group starts with its first occurrence.
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return compare(a, b) < 0; });
  Groups g;
  g.inverse.resize(static_cast<size_t>(rows));
  for (size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || compare(order[i - 1], order[i]) != 0) {
      g.first.push_back(order[i]);
      g.counts.push_back(0);
    }
    g.inverse[order[i]] = static_cast<int64_t>(g.first.size()) - 1;
    ++g.counts.back();
  }
  return g;
}

DType key_dtype(DType t) {
  if (t == DType::kString) return DType::kString;
  if (is_complex(t)) return DType::kComplex128;
  if (is_floating(t)) return DType::kDouble;
  if (is_integer(t) && is_signed(t)) return DType::kInt64;
  return DType::kUInt64;  // unsigned integers and bool
}

// The groups in order of first occurrence instead of sorted.
void by_first_occurrence(Groups& g) {
  std::vector<int64_t> order(g.first.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int64_t a, int64_t b) { return g.first[a] < g.first[b]; });
  std::vector<int64_t> rank(order.size());
  Groups out;
  for (size_t k = 0; k < order.size(); ++k) {
    rank[order[k]] = static_cast<int64_t>(k);
    out.first.push_back(g.first[order[k]]);
    out.counts.push_back(g.counts[order[k]]);
  }
  out.inverse = std::move(g.inverse);
  for (int64_t& v : out.inverse) v = rank[v];
  g = std::move(out);
}

void write_ints(KernelContext& ctx, int i, const std::vector<int64_t>& v) {
  const Dims shape{static_cast<int64_t>(v.size())};
  const TensorRef& out = ctx.output(i, shape);
  if (!v.empty()) assign(dst_of(out), ConstOperand(row_major(DType::kInt64, shape), v.data()));
}

struct Params {
  std::optional<int64_t> axis;
  bool sorted;
  bool wants[4];
};

void unique(KernelContext& ctx, const Params& p) {
  const TensorRef& x = ctx.input(0);
  const Dims& xs = x.desc.shape;
  const int r = x.desc.rank();
  int axis = -1;
  if (p.axis) {
    require(r >= 1, "an axis needs input of rank >= 1, got a scalar");
    require(*p.axis >= -r && *p.axis < r, [&] {
      return "axis " + std::to_string(*p.axis) + " is out of range for input of rank " +
             std::to_string(r);
    });
    axis = static_cast<int>(*p.axis < 0 ? *p.axis + r : *p.axis);
  }
  // Keys as (rows, len): the axis brought to the front, or every element its own row.
  TensorDesc view = x.desc;
  if (axis > 0) {
    std::vector<int64_t> perm{axis};
    for (int d = 0; d < r; ++d)
      if (d != axis) perm.push_back(d);
    view = permute(x.desc, perm);
  }
  const int64_t count = element_count(xs);
  const int64_t rows = axis < 0 ? count : xs[axis];
  const int64_t len = rows == 0 ? 0 : count / rows;
  const DType k = key_dtype(x.desc.dtype);
  std::vector<std::byte> keys(static_cast<size_t>(dtype_bytes_for(k, std::max<int64_t>(count, 1))));
  if (count > 0) assign(Operand{row_major(k, view.shape), keys.data()}, ConstOperand(view, x.data));
  Groups g;
  if (rows > 0 && len == 0) {
    // Every slice is empty, so all are equal: one group.
    g.first = {0};
    g.counts = {rows};
    g.inverse.assign(static_cast<size_t>(rows), 0);
  } else if (k == DType::kString) {
    g = group_rows(reinterpret_cast<const StringElem*>(keys.data()), rows, len);
  } else if (k == DType::kComplex128) {
    g = group_rows(reinterpret_cast<const std::complex<double>*>(keys.data()), rows, len);
  } else if (k == DType::kDouble) {
    g = group_rows(reinterpret_cast<const double*>(keys.data()), rows, len);
  } else if (k == DType::kInt64) {
    g = group_rows(reinterpret_cast<const int64_t*>(keys.data()), rows, len);
  } else {
    g = group_rows(reinterpret_cast<const uint64_t*>(keys.data()), rows, len);
  }
  if (!p.sorted) by_first_occurrence(g);
  const auto n_unique = static_cast<int64_t>(g.first.size());

  // Y: each group's first occurrence, copied from x.
  const Dims& st = x.desc.strides;
  if (axis < 0) {
    const std::vector<int64_t> all = positions_of(xs, st);
    std::vector<int64_t> base(g.first.size());
    for (size_t u = 0; u < base.size(); ++u) base[u] = x.desc.offset + all[g.first[u]];
    const int64_t zero = 0;
    gather_positions(x, base, std::span<const int64_t>(&zero, 1), ctx.output(0, {n_unique}));
  } else {
    Dims shape = xs;
    shape[axis] = n_unique;
    const auto a = static_cast<size_t>(axis);
    const std::vector<int64_t> outer = positions_of(std::span(xs).first(a), std::span(st).first(a));
    std::vector<int64_t> base;
    base.reserve(outer.size() * g.first.size());
    for (int64_t o : outer)
      for (int64_t f : g.first) base.push_back(x.desc.offset + o + f * st[axis]);
    const std::vector<int64_t> inner =
        positions_of(std::span(xs).subspan(a + 1), std::span(st).subspan(a + 1));
    gather_positions(x, base, inner, ctx.output(0, shape));
  }
  if (p.wants[1]) write_ints(ctx, 1, g.first);
  if (p.wants[2]) write_ints(ctx, 2, g.inverse);
  if (p.wants[3]) write_ints(ctx, 3, g.counts);
}

}  // namespace

Reason supports_unique(const Graph& g, const Node& n) {
  if (Reason r = movable_dtype_reason(input_dtype(g, n, 0), "the input")) return r;
  if (is_packed(input_dtype(g, n, 0)))
    return "the input has the packed dtype " + std::string(dtype_name(input_dtype(g, n, 0)));
  const int64_t sorted = attr_int(n, "sorted", 1);
  if (sorted != 0 && sorted != 1) return "sorted is " + std::to_string(sorted) + ", not 0 or 1";
  for (int i = 1; i < 4; ++i)
    if (static_cast<int>(n.outputs.size()) > i && n.outputs[i] >= 0 &&
        output_dtype(g, n, i) != DType::kInt64)
      return "output " + std::to_string(i) + " must be int64";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_unique(const Graph& /*g*/, const Node& n) {
  Params p{};
  if (n.attr("axis")) p.axis = attr_int(n, "axis", 0);
  p.sorted = attr_int(n, "sorted", 1) != 0;
  for (int i = 0; i < 4; ++i)
    p.wants[i] = static_cast<int>(n.outputs.size()) > i && n.outputs[i] >= 0;
  return make_node_kernel(n, [p](KernelContext& ctx) { unique(ctx, p); });
}

}  // namespace geon::cpu
