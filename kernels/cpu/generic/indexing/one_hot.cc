// OneHot (9; 11 allows negative axes): output[..., d, ...] (d along the inserted axis) is
// on_value where the index at that position equals d, off_value elsewhere; indices of any real
// dtype are cast to int64, negative ones count from depth, and ones outside [-depth, depth)
// give an all-off row (the spec's rule). depth is one element of any real dtype (truncated to
// an integer); the output's size is bounded like every run-time-shaped output.
#include <cmath>
#include <cstring>

#include "core/base/error.h"
#include "core/dtype/scalar.h"
#include "kernels/cpu/generic/indexing/ops.h"
#include "kernels/cpu/generic/indexing/positions.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

// dst[o][d][i] = idx[o * inner + i] == d ? on : off, over (outer, depth) rows of `inner`.
template <typename U>
void fill_typed(std::byte* dst, const std::vector<int64_t>& idx, int64_t outer, int64_t depth,
                int64_t inner, const std::byte* values) {
  U off, on;
  std::memcpy(&off, values, sizeof(U));
  std::memcpy(&on, values + sizeof(U), sizeof(U));
  U* out = reinterpret_cast<U*>(dst);
  parallel_rows(outer * depth, inner, [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      const int64_t o = row / depth, d = row % depth;
      const int64_t* in = idx.data() + o * inner;
      U* y = out + row * inner;
      for (int64_t i = 0; i < inner; ++i) y[i] = in[i] == d ? on : off;
    }
  });
}

int64_t depth_of(const TensorRef& t) {
  require(element_count(t.desc) == 1, [&] {
    return "depth must hold exactly one element, got shape " + dims_text(t.desc.shape);
  });
  const Scalar s = load_scalar(t.desc.dtype, t.data, t.desc.offset);
  if (s.kind == Scalar::Kind::kFloat) {
    // Truncated toward zero, as the importer reads a constant depth.
    require(std::isfinite(s.re) && s.re >= 0 && s.re < 9.0e18,
            [&] { return "depth is " + std::to_string(s.re) + ", must be a non-negative count"; });
    return static_cast<int64_t>(s.re);
  }
  if (s.kind == Scalar::Kind::kUnsigned) {
    require(s.u < (uint64_t{1} << 62),
            [&] { return "depth " + std::to_string(s.u) + " is too large"; });
    return static_cast<int64_t>(s.u);
  }
  require(s.i >= 0,
          [&] { return "depth is " + std::to_string(s.i) + ", must be a non-negative count"; });
  return s.i;
}

void one_hot(KernelContext& ctx, int64_t axis_attr) {
  const TensorRef &indices = ctx.input(0), &values = ctx.input(2);
  const int64_t depth = depth_of(ctx.input(1));
  const DType t = values.desc.dtype;
  require(values.desc.rank() == 1 && values.desc.shape[0] == 2, [&] {
    return "values must be 1-D [off_value, on_value], got shape " + dims_text(values.desc.shape);
  });
  const Dims& is = indices.desc.shape;
  const int r = indices.desc.rank();
  require(axis_attr >= -r - 1 && axis_attr <= r, [&] {
    return "axis " + std::to_string(axis_attr) + " is out of range for output rank " +
           std::to_string(r + 1);
  });
  const auto axis = static_cast<size_t>(axis_attr < 0 ? axis_attr + r + 1 : axis_attr);
  Dims shape(is.begin(), is.begin() + static_cast<int64_t>(axis));
  shape.push_back(depth);
  shape.insert(shape.end(), is.begin() + static_cast<int64_t>(axis), is.end());
  check_output_size(t, shape, "the one-hot output");
  // Indices as int64 (floats truncate, as Cast does); negative ones wrapped, others left to
  // match no d.
  std::vector<int64_t> idx(static_cast<size_t>(element_count(is)));
  if (!idx.empty()) assign(Operand{row_major(DType::kInt64, is), idx.data()}, src_of(indices));
  for (int64_t& v : idx)
    if (v < 0 && v >= -depth) v += depth;
  const TensorRef& out = ctx.output(0, shape);
  const int64_t count = element_count(shape);
  if (count == 0) return;
  // [off, on] dense in the output dtype.
  const int64_t w = dtype_bytes_for(t, 1);
  std::vector<std::byte> pair(static_cast<size_t>(2 * w));
  assign(Operand{row_major(t, Dims{2}), pair.data()}, src_of(values));
  std::vector<std::byte> tmp;
  std::byte* dst = static_cast<std::byte*>(out.data) + out.desc.offset * w;
  if (!is_contiguous(out.desc)) {
    tmp.resize(static_cast<size_t>(count * w));
    dst = tmp.data();
  }
  int64_t outer = 1;
  for (size_t d = 0; d < axis; ++d) outer *= is[d];
  const int64_t inner = outer == 0 ? 0 : static_cast<int64_t>(idx.size()) / outer;
  switch (w) {
    case 1:
      fill_typed<uint8_t>(dst, idx, outer, depth, inner, pair.data());
      break;
    case 2:
      fill_typed<uint16_t>(dst, idx, outer, depth, inner, pair.data());
      break;
    case 4:
      fill_typed<uint32_t>(dst, idx, outer, depth, inner, pair.data());
      break;
    case 8:
      fill_typed<uint64_t>(dst, idx, outer, depth, inner, pair.data());
      break;
    default:
      fill_typed<Word16>(dst, idx, outer, depth, inner, pair.data());
      break;
  }
  if (!tmp.empty()) assign(dst_of(out), ConstOperand(row_major(t, shape), tmp.data()));
}

Reason real_number_reason(DType t, std::string_view what) {
  if (!is_numeric(t) || t == DType::kBool || is_complex(t))
    return std::string(what) + " has dtype " + std::string(dtype_name(t)) +
           ", must be a real number type";
  return std::nullopt;
}

}  // namespace

Reason supports_one_hot(const Graph& g, const Node& n) {
  if (!has_input(n, 0) || !has_input(n, 1) || !has_input(n, 2))
    return "OneHot needs indices, depth and values";
  if (Reason r = real_number_reason(input_dtype(g, n, 0), "indices")) return r;
  if (Reason r = real_number_reason(input_dtype(g, n, 1), "depth")) return r;
  const DType t = input_dtype(g, n, 2);
  if (Reason r = movable_dtype_reason(t, "values")) return r;
  if (is_packed(t)) return "values has the packed dtype " + std::string(dtype_name(t));
  return std::nullopt;
}

std::unique_ptr<Kernel> create_one_hot(const Graph& /*g*/, const Node& n) {
  const int64_t axis = attr_int(n, "axis", -1);
  return make_node_kernel(n, [axis](KernelContext& ctx) { one_hot(ctx, axis); });
}

}  // namespace geon::cpu
