// The indexing family's shared helpers (positions.h). gather_positions copies whole elements
// as 1, 2, 4, 8 or 16-byte words (complex128 and string handles are the 16), so one loop serves
// every dtype of that width; packed dtypes go element by element through load_scalar /
// store_scalar.
#include "kernels/cpu/generic/indexing/positions.h"

#include "core/base/error.h"
#include "core/dtype/scalar.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

template <typename U>
void gather_typed(const U* src, U* dst, std::span<const int64_t> base,
                  std::span<const int64_t> inner) {
  const auto rows = static_cast<int64_t>(base.size());
  const auto cols = static_cast<int64_t>(inner.size());
  parallel_rows(rows, cols, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const U* s = src + base[r];
      U* d = dst + r * cols;
      for (int64_t j = 0; j < cols; ++j) d[j] = s[inner[j]];
    }
  });
}

}  // namespace

Reason movable_dtype_reason(DType t, std::string_view what) {
  if (t == DType::kString) return std::nullopt;  // 16-byte handles, moved like complex128
  if (!is_numeric(t)) return std::string(what) + " has no known dtype";
  return std::nullopt;
}

Reason index_dtype_reason(const Graph& g, const Node& n, int i, std::string_view what) {
  if (!has_input(n, i)) return n.op + " needs " + std::string(what);
  const DType t = input_dtype(g, n, i);
  if (t != DType::kInt32 && t != DType::kInt64)
    return std::string(what) + " has dtype " + std::string(dtype_name(t)) +
           ", must be int32 or int64";
  return std::nullopt;
}

std::vector<int64_t> read_indices(const TensorRef& t, std::string_view what) {
  require(is_integer(t.desc.dtype), [&] {
    return std::string(what) + " must be an integer tensor, not " +
           std::string(dtype_name(t.desc.dtype));
  });
  std::vector<int64_t> out(static_cast<size_t>(element_count(t.desc)));
  if (!out.empty()) assign(Operand{row_major(DType::kInt64, t.desc.shape), out.data()}, src_of(t));
  return out;
}

int64_t checked_index(int64_t v, int64_t len, std::string_view where) {
  if (v < -len || v >= len)
    fail(ErrorCode::kOutOfRange, "index " + std::to_string(v) + " (" + std::string(where) +
                                     ") is out of range for length " + std::to_string(len));
  return v < 0 ? v + len : v;
}

std::vector<int64_t> positions_of(std::span<const int64_t> shape,
                                  std::span<const int64_t> strides) {
  std::vector<int64_t> out(static_cast<size_t>(element_count(shape)));
  if (out.empty()) return out;
  const int r = static_cast<int>(shape.size());
  std::vector<int64_t> coord(static_cast<size_t>(r), 0);
  int64_t pos = 0;
  for (int64_t& o : out) {
    o = pos;
    for (int k = r - 1; k >= 0; --k) {
      pos += strides[k];
      if (++coord[k] < shape[k]) break;
      pos -= strides[k] * shape[k];
      coord[k] = 0;
    }
  }
  return out;
}

std::string dims_text(std::span<const int64_t> d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + ")";
}

void gather_positions(const TensorRef& src, std::span<const int64_t> base,
                      std::span<const int64_t> inner, const TensorRef& out) {
  const DType t = out.desc.dtype;
  require(src.desc.dtype == t, "gather_positions: the source and output dtypes differ");
  const auto count = static_cast<int64_t>(base.size() * inner.size());
  require(element_count(out.desc) == count, "gather_positions: the output size does not match");
  if (count == 0) return;
  const TensorDesc dense = row_major(t, out.desc.shape);
  std::vector<std::byte> tmp;
  if (is_packed(t)) {
    // Sub-byte elements share bytes: one at a time, into a dense scratch.
    tmp.assign(static_cast<size_t>(dtype_bytes_for(t, count)), std::byte{0});
    int64_t i = 0;
    for (int64_t b : base)
      for (int64_t j : inner) store_scalar(t, tmp.data(), i++, load_scalar(t, src.data, b + j));
    assign(dst_of(out), ConstOperand(dense, tmp.data()));
    return;
  }
  const int64_t w = dtype_bytes_for(t, 1);
  std::byte* dst = nullptr;
  if (is_contiguous(out.desc)) {
    dst = static_cast<std::byte*>(out.data) + out.desc.offset * w;
  } else {
    tmp.resize(static_cast<size_t>(count * w));
    dst = tmp.data();
  }
  const void* s = src.data;
  switch (w) {
    case 1:
      gather_typed(static_cast<const uint8_t*>(s), reinterpret_cast<uint8_t*>(dst), base, inner);
      break;
    case 2:
      gather_typed(static_cast<const uint16_t*>(s), reinterpret_cast<uint16_t*>(dst), base, inner);
      break;
    case 4:
      gather_typed(static_cast<const uint32_t*>(s), reinterpret_cast<uint32_t*>(dst), base, inner);
      break;
    case 8:
      gather_typed(static_cast<const uint64_t*>(s), reinterpret_cast<uint64_t*>(dst), base, inner);
      break;
    case 16:
      gather_typed(static_cast<const Word16*>(s), reinterpret_cast<Word16*>(dst), base, inner);
      break;
    default:
      fail(ErrorCode::kNotSupported,
           "gather_positions: no copy for dtype " + std::string(dtype_name(t)));
  }
  if (!tmp.empty()) assign(dst_of(out), ConstOperand(dense, tmp.data()));
}

int element_axis(const Dims& ds, const Dims& is, int64_t axis_attr) {
  const auto r = static_cast<int64_t>(ds.size());
  require(r >= 1, "data must have rank >= 1, got a scalar");
  require(static_cast<int64_t>(is.size()) == r, [&] {
    return "indices has rank " + std::to_string(is.size()) + ", data has rank " +
           std::to_string(r) + "; they must match";
  });
  require(axis_attr >= -r && axis_attr < r, [&] {
    return "axis " + std::to_string(axis_attr) + " is out of range for data of rank " +
           std::to_string(r);
  });
  const int axis = static_cast<int>(axis_attr < 0 ? axis_attr + r : axis_attr);
  for (int d = 0; d < r; ++d)
    require(d == axis || is[d] <= ds[d], [&] {
      return "indices has shape " + dims_text(is) + ", longer than data's " + dims_text(ds) +
             " on axis " + std::to_string(d);
    });
  return axis;
}

}  // namespace geon::cpu
