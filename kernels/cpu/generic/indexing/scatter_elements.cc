// Scatter (9, 10) and ScatterElements (11; 16: reduction add/mul; 18: max/min): the output is
// a copy of data where output[indices[i][j][k]][j][k] (axis 0; and so on) is replaced by, or
// combined with, updates[i][j][k]. Every index is checked before anything is written, and the
// updates are applied in row-major order, so a repeated index under "none" keeps the last one.
// The work happens on a dense data-shaped array (the output's memory when it is one); float16
// and bfloat16 reductions run in float and round once at the end. Strings (reduction "none"
// only) move as 16-byte handles.
#include <complex>
#include <cstring>

#include "core/base/error.h"
#include "core/dtype/scalar.h"
#include "kernels/cpu/generic/indexing/combine.h"
#include "kernels/cpu/generic/indexing/ops.h"
#include "kernels/cpu/generic/indexing/positions.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

template <typename T>
void scatter_typed(void* work, const void* upd, const std::vector<int64_t>& pos,
                   const std::vector<int64_t>& upos, Reduction red) {
  T* w = static_cast<T*>(work);
  const T* u = static_cast<const T*>(upd);
  if constexpr (std::is_same_v<T, Word16>) {
    for (size_t i = 0; i < pos.size(); ++i) w[pos[i]] = u[upos[i]];
  } else {
    for (size_t i = 0; i < pos.size(); ++i) w[pos[i]] = combine(w[pos[i]], u[upos[i]], red);
  }
}

// The dtypes whose reductions run natively; float16 and bfloat16 run in float.
bool native_reduction(DType t) {
  return is_integer(t)
             ? !is_packed(t)
             : t == DType::kFloat || t == DType::kDouble || t == DType::kBool || is_complex(t);
}

// work[pos[i]] = combine(work[pos[i]], upd[upos[i]]) for i in order, in dtype t.
void scatter_into(DType t, void* work, const void* upd, const std::vector<int64_t>& pos,
                  const std::vector<int64_t>& upos, Reduction red) {
  if (red == Reduction::kNone) {
    if (is_packed(t)) {
      for (size_t i = 0; i < pos.size(); ++i)
        store_scalar(t, work, pos[i], load_scalar(t, upd, upos[i]));
      return;
    }
    switch (dtype_bytes_for(t, 1)) {
      case 1:
        return scatter_typed<uint8_t>(work, upd, pos, upos, red);
      case 2:
        return scatter_typed<uint16_t>(work, upd, pos, upos, red);
      case 4:
        return scatter_typed<uint32_t>(work, upd, pos, upos, red);
      case 8:
        return scatter_typed<uint64_t>(work, upd, pos, upos, red);
      default:
        return scatter_typed<Word16>(work, upd, pos, upos, red);
    }
  }
#define GEON_SCATTER_CASE(D, T) \
  case DType::D:                \
    return scatter_typed<T>(work, upd, pos, upos, red);
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
    GEON_SCATTER_CASE(kBool, BoolByte)
    GEON_SCATTER_CASE(kComplex64, std::complex<float>)
    GEON_SCATTER_CASE(kComplex128, std::complex<double>)
    default:
      fail(ErrorCode::kInternal, "no reduction loop for " + std::string(dtype_name(t)));
  }
#undef GEON_SCATTER_CASE
}

void scatter_elements(KernelContext& ctx, int64_t axis_attr, Reduction red) {
  const TensorRef &data = ctx.input(0), &idx = ctx.input(1), &upd = ctx.input(2);
  const Dims &ds = data.desc.shape, &is = idx.desc.shape;
  const DType t = data.desc.dtype;
  const int axis = element_axis(ds, is, axis_attr);
  require(upd.desc.shape == is, [&] {
    return "updates has shape " + dims_text(upd.desc.shape) + ", indices has shape " +
           dims_text(is) + "; they must match";
  });
  require(upd.desc.dtype == t, [&] {
    return "updates has dtype " + std::string(dtype_name(upd.desc.dtype)) + ", data has " +
           std::string(dtype_name(t));
  });
  const std::vector<int64_t> vals = read_indices(idx, "indices");
  // Positions in the dense work array, every index checked before anything is written.
  Dims dense = row_major(t, ds).strides;
  const int64_t axis_stride = dense[axis];
  dense[axis] = 0;
  std::vector<int64_t> pos = positions_of(is, dense);
  for (size_t i = 0; i < pos.size(); ++i)
    pos[i] += axis_stride * checked_index(vals[i], ds[axis],
                                          "indices element " + std::to_string(i) + ", along axis " +
                                              std::to_string(axis));

  const TensorRef& out = ctx.output(0, ds);
  if (element_count(ds) == 0) return;
  // The dtype the work array holds, and the work array: out's memory when it can be.
  const DType c = red == Reduction::kNone || native_reduction(t) ? t : DType::kFloat;
  const TensorDesc work_desc = row_major(c, ds);
  std::vector<std::byte> tmp;
  void* work = nullptr;
  if (c == t && !is_packed(t) && is_contiguous(out.desc)) {
    work = static_cast<std::byte*>(out.data) + dtype_bytes_for(t, out.desc.offset);
  } else {
    tmp.assign(static_cast<size_t>(dtype_bytes_for(c, element_count(ds))), std::byte{0});
    work = tmp.data();
  }
  assign(Operand{work_desc, work}, src_of(data));
  if (pos.empty()) {
    if (!tmp.empty()) assign(dst_of(out), ConstOperand(work_desc, work));
    return;
  }
  // Updates: read in place through their strides, or staged dense in the compute dtype.
  std::vector<std::byte> upd_tmp;
  const void* u = upd.data;
  TensorDesc ud = upd.desc;
  if (c != t) {
    ud = row_major(c, is);
    upd_tmp.resize(static_cast<size_t>(dtype_bytes_for(c, element_count(is))));
    assign(Operand{ud, upd_tmp.data()}, src_of(upd));
    u = upd_tmp.data();
  }
  std::vector<int64_t> upos = positions_of(is, ud.strides);
  for (int64_t& p : upos) p += ud.offset;
  scatter_into(c, work, u, pos, upos, red);
  if (!tmp.empty()) assign(dst_of(out), ConstOperand(work_desc, work));
}

}  // namespace

Reason supports_scatter_elements(const Graph& g, const Node& n) {
  if (!has_input(n, 2)) return n.op + " needs data, indices and updates";
  const DType t = input_dtype(g, n, 0);
  if (Reason r = movable_dtype_reason(t, "the data")) return r;
  if (input_dtype(g, n, 2) != t) return "updates' dtype differs from data's";
  if (Reason r = index_dtype_reason(g, n, 1, "indices")) return r;
  const std::string name = attr_string(n, "reduction", "none");
  const std::optional<Reduction> red = reduction_of(name, n.op == "Scatter" ? 9 : n.opset);
  if (!red) return "reduction '" + name + "' is not defined at opset " + std::to_string(n.opset);
  if (*red == Reduction::kNone) return std::nullopt;
  if (t == DType::kString)
    return "reduction '" + name + "' does not apply to string data (only 'none' does)";
  if (is_complex(t) && (*red == Reduction::kMax || *red == Reduction::kMin))
    return "reduction '" + name + "' has no order to use on complex data";
  if (!native_reduction(t) && t != DType::kFloat16 && t != DType::kBFloat16)
    return "reduction '" + name + "' is not implemented for " + std::string(dtype_name(t)) +
           " data (the spec does not allow that dtype)";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_scatter_elements(const Graph& /*g*/, const Node& n) {
  const int64_t axis = attr_int(n, "axis", 0);
  const Reduction red =
      *reduction_of(attr_string(n, "reduction", "none"), n.op == "Scatter" ? 9 : n.opset);
  return make_node_kernel(n, [axis, red](KernelContext& ctx) { scatter_elements(ctx, axis, red); });
}

}  // namespace geon::cpu
