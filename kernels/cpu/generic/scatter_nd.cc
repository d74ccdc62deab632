// ScatterND (11, 13, 16: reduction none/add/mul; 18: max/min too): the output is a copy of
// data whose slices data[indices[i]] are replaced by (or combined with) updates[i]. Every index
// is checked (negative ones wrapped) before anything is written; slices are applied in index
// order, one after another, so duplicate indices under reduction "none" leave the last write.
// Strings (reduction "none" only) move as their 16-byte handles.
#include <cstring>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "kernels/cpu/generic/gather_rows.h"
#include "kernels/cpu/generic/indexing/combine.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

const char* engine_op(Reduction c) {
  switch (c) {
    case Reduction::kAdd:
      return "add";
    case Reduction::kMul:
      return "mul";
    case Reduction::kMax:
      return "max";
    default:
      return "min";
  }
}

std::string dims_text(const Dims& d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + ")";
}

// The element offset (in a dense data-shaped array) of each index tuple's slice, checked.
std::vector<int64_t> slice_offsets(const TensorRef& idx, const Dims& data_shape) {
  const Dims& is = idx.desc.shape;
  const auto k = is.back();
  const int64_t count = element_count(is);
  std::vector<int64_t> flat(static_cast<size_t>(count));
  assign(Operand{row_major(DType::kInt64, is), flat.data()}, src_of(idx));
  const int r = static_cast<int>(data_shape.size());
  int64_t slice = 1;
  for (int d = static_cast<int>(k); d < r; ++d) slice *= data_shape[d];
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(k == 0 ? 0 : count / k));
  if (k == 0) {
    // Each (empty) index tuple addresses the whole of data.
    out.assign(static_cast<size_t>(element_count(Dims(is.begin(), is.end() - 1))), 0);
    return out;
  }
  for (int64_t t = 0; t < count; t += k) {
    int64_t off = 0;
    for (int64_t d = 0; d < k; ++d) {
      const int64_t len = data_shape[d];
      int64_t v = flat[t + d];
      if (v < 0) v += len;
      if (v < 0 || v >= len)
        fail(ErrorCode::kInvalidArgument,
             "index " + std::to_string(flat[t + d]) + " (indices element " + std::to_string(t + d) +
                 ", data axis " + std::to_string(d) + ") is out of range for length " +
                 std::to_string(len));
      off = off * len + v;
    }
    out.push_back(off * slice);
  }
  return out;
}

template <typename T>
void combine_typed(T* out, const T* upd, const std::vector<int64_t>& offs, int64_t slice,
                   Reduction c) {
  for (size_t i = 0; i < offs.size(); ++i) {
    T* o = out + offs[i];
    const T* u = upd + static_cast<int64_t>(i) * slice;
    // Integers wrap (indexing/combine.h): a hostile model cannot reach signed overflow.
    for (int64_t j = 0; j < slice; ++j) o[j] = combine(o[j], u[j], c);
  }
}

// Native loops for the plain C++ types; false for the others (float16, packed...).
bool combine_native(DType t, void* out, const void* upd, const std::vector<int64_t>& offs,
                    int64_t slice, Reduction c) {
#define GEON_SCATTER_CASE(D, T)                                                         \
  case DType::D:                                                                        \
    combine_typed<T>(static_cast<T*>(out), static_cast<const T*>(upd), offs, slice, c); \
    return true;
  switch (t) {
    GEON_SCATTER_CASE(kFloat, float)
    GEON_SCATTER_CASE(kDouble, double)
    GEON_SCATTER_CASE(kInt8, int8_t)
    GEON_SCATTER_CASE(kInt16, int16_t)
    GEON_SCATTER_CASE(kInt32, int32_t)
    GEON_SCATTER_CASE(kInt64, int64_t)
    GEON_SCATTER_CASE(kUInt8, uint8_t)
    GEON_SCATTER_CASE(kUInt16, uint16_t)
    GEON_SCATTER_CASE(kUInt32, uint32_t)
    GEON_SCATTER_CASE(kUInt64, uint64_t)
    default:
      return false;
  }
#undef GEON_SCATTER_CASE
}

void scatter_nd(KernelContext& ctx, Reduction c) {
  const TensorRef &data = ctx.input(0), &idx = ctx.input(1), &upd = ctx.input(2);
  const Dims& ds = data.desc.shape;
  const Dims& is = idx.desc.shape;
  const DType t = data.desc.dtype;
  require(!ds.empty(), "data must have rank >= 1");
  require(!is.empty(), "indices must have rank >= 1");
  const int64_t k = is.back();
  require(k >= 0 && k <= static_cast<int64_t>(ds.size()), [&] {
    return "indices' last dim (" + std::to_string(k) + ") exceeds data's rank " +
           std::to_string(ds.size());
  });
  Dims want(is.begin(), is.end() - 1);
  want.insert(want.end(), ds.begin() + k, ds.end());
  require(upd.desc.shape == want, [&] {
    return "updates has shape " + dims_text(upd.desc.shape) + ", expected " + dims_text(want);
  });
  require(upd.desc.dtype == t, "updates' dtype differs from data's");
  const std::vector<int64_t> offs = slice_offsets(idx, ds);

  const TensorRef& out = ctx.output(0, ds);
  if (element_count(ds) == 0) return;
  // Work on a dense data-shaped array: the output's memory when it is one.
  const TensorDesc dense = row_major(t, ds);
  std::vector<std::byte> tmp;
  void* base = out.data;
  TensorDesc work = out.desc;
  if (!is_contiguous(out.desc)) {
    tmp.resize(dtype_bytes_for(t, element_count(ds)));
    base = tmp.data();
    work = dense;
  }
  assign(Operand{work, base}, src_of(data));
  if (offs.empty()) {
    if (!tmp.empty()) assign(dst_of(out), ConstOperand(dense, tmp.data()));
    return;
  }
  // Dense updates, so slice i starts at i * slice.
  const Dims slice_shape(ds.begin() + k, ds.end());
  const int64_t slice = element_count(slice_shape);
  std::vector<std::byte> upd_tmp;
  const void* u = upd.data;
  int64_t u_off = upd.desc.offset;
  if (!is_contiguous(upd.desc)) {
    upd_tmp.resize(dtype_bytes_for(t, element_count(want)));
    assign(Operand{row_major(t, want), upd_tmp.data()}, src_of(upd));
    u = upd_tmp.data();
    u_off = 0;
  }
  // String handles are 16 plain bytes: copied like any whole-byte element.
  const bool whole_bytes = gather_width_ok(t) || t == DType::kString;
  const int64_t w = whole_bytes ? dtype_bytes_for(t, 1) : 0;
  auto* ob = static_cast<std::byte*>(base) + (whole_bytes ? work.offset * w : 0);
  const auto* ub = static_cast<const std::byte*>(u) + (whole_bytes ? u_off * w : 0);
  if (c == Reduction::kNone && whole_bytes) {
    for (size_t i = 0; i < offs.size(); ++i)
      std::memcpy(ob + offs[i] * w, ub + static_cast<int64_t>(i) * slice * w,
                  static_cast<size_t>(slice * w));
  } else if (c == Reduction::kNone || !whole_bytes || !combine_native(t, ob, ub, offs, slice, c)) {
    // Packed or converted dtypes: each slice through the engine, as views at element offsets.
    for (size_t i = 0; i < offs.size(); ++i) {
      TensorDesc o = row_major(t, slice_shape), s = o;
      o.offset = work.offset + offs[i];
      s.offset = u_off + static_cast<int64_t>(i) * slice;
      const Operand dst{o, base};
      if (c == Reduction::kNone)
        assign(dst, ConstOperand(s, u));
      else
        binary(engine_op(c), dst, ConstOperand(o, base), ConstOperand(s, u));
    }
  }
  if (!tmp.empty()) assign(dst_of(out), ConstOperand(dense, tmp.data()));
}

}  // namespace

Reason supports_scatter_nd(const Graph& g, const Node& n) {
  if (!has_input(n, 0) || !has_input(n, 1) || !has_input(n, 2))
    return "ScatterND needs data, indices and updates";
  const DType t = input_dtype(g, n, 0);
  const DType it = input_dtype(g, n, 1);
  if (it != DType::kInt64 && it != DType::kInt32) return "indices must be int64 or int32";
  const std::string red = attr_string(n, "reduction", "none");
  const std::optional<Reduction> c = reduction_of(red, n.opset);
  if (!c) return "reduction '" + red + "' is not valid at opset " + std::to_string(n.opset);
  if (*c == Reduction::kNone)
    return t == DType::kString ? std::nullopt : engine_dtype_reason(t, "data");
  if (t == DType::kString)
    return "reduction '" + red + "' does not apply to string data (only 'none' does)";
  return check_engine_op(engine_op(*c), t);
}

std::unique_ptr<Kernel> create_scatter_nd(const Graph& /*g*/, const Node& n) {
  const Reduction c = *reduction_of(attr_string(n, "reduction", "none"), n.opset);
  return make_node_kernel(n, [c](KernelContext& ctx) { scatter_nd(ctx, c); });
}

}  // namespace geon::cpu
