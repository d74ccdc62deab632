// GatherElements (11, 13): out[i][j][k] = data[indices[i][j][k]][j][k] for axis 0, and so on;
// the output has the indices' shape. Each output element's source position is the data view's
// own strides applied to the index's coordinates with the axis coordinate replaced, so any view
// of data is read in place. Indices may be shorter than data on the other axes, never longer.
#include "core/base/error.h"
#include "kernels/cpu/generic/indexing/ops.h"
#include "kernels/cpu/generic/indexing/positions.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

void gather_elements(KernelContext& ctx, int64_t axis_attr) {
  const TensorRef &data = ctx.input(0), &idx = ctx.input(1);
  const Dims &ds = data.desc.shape, &is = idx.desc.shape;
  const int axis = element_axis(ds, is, axis_attr);
  const std::vector<int64_t> vals = read_indices(idx, "indices");
  // Source positions: the index's coordinates through data's strides, the axis one zeroed and
  // replaced by the index's value.
  Dims strides = data.desc.strides;
  const int64_t axis_stride = strides[axis];
  strides[axis] = 0;
  std::vector<int64_t> base = positions_of(is, strides);
  const int64_t len = ds[axis];
  for (size_t i = 0; i < base.size(); ++i) {
    const int64_t v = checked_index(
        vals[i], len,
        "indices element " + std::to_string(i) + ", along axis " + std::to_string(axis));
    base[i] += data.desc.offset + v * axis_stride;
  }
  const TensorRef& out = ctx.output(0, is);
  const int64_t zero = 0;
  gather_positions(data, base, std::span<const int64_t>(&zero, 1), out);
}

}  // namespace

Reason supports_gather_elements(const Graph& g, const Node& n) {
  if (Reason r = movable_dtype_reason(input_dtype(g, n, 0), "the data")) return r;
  return index_dtype_reason(g, n, 1, "indices");
}

std::unique_ptr<Kernel> create_gather_elements(const Graph& /*g*/, const Node& n) {
  const int64_t axis = attr_int(n, "axis", 0);
  return make_node_kernel(n, [axis](KernelContext& ctx) { gather_elements(ctx, axis); });
}

}  // namespace geon::cpu
