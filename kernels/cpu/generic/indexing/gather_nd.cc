// GatherND (11; 12 adds batch_dims b): each index tuple of length k picks the slice
// data[batch..., i0, ..., ik-1, :] of each batch entry; the output is
// indices.shape[:-1] ++ data.shape[b + k:]. Slices are read in place through data's strides: a
// base position per tuple and one list of positions within a slice.
#include "core/base/error.h"
#include "kernels/cpu/generic/indexing/ops.h"
#include "kernels/cpu/generic/indexing/positions.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

void gather_nd(KernelContext& ctx, int64_t b) {
  const TensorRef &data = ctx.input(0), &idx = ctx.input(1);
  const Dims &ds = data.desc.shape, &is = idx.desc.shape, &st = data.desc.strides;
  const int r = data.desc.rank(), q = idx.desc.rank();
  require(r >= 1, "data must have rank >= 1, got a scalar");
  require(q >= 1, "indices must have rank >= 1, got a scalar");
  require(b >= 0 && b < std::min(q, r), [&] {
    return "batch_dims " + std::to_string(b) + " must be in [0, min(data rank " +
           std::to_string(r) + ", indices rank " + std::to_string(q) + "))";
  });
  for (int d = 0; d < b; ++d)
    require(is[d] == ds[d], [&] {
      return "batch dim " + std::to_string(d) + " of indices " + dims_text(is) +
             " differs from data's " + dims_text(ds);
    });
  const int64_t k = is.back();
  require(k >= 1 && k <= r - b, [&] {
    return "indices' last dim is " + std::to_string(k) + ", must be in [1, " +
           std::to_string(r - b) + "] (data rank minus batch_dims)";
  });
  Dims shape(is.begin(), is.end() - 1);
  shape.insert(shape.end(), ds.begin() + b + k, ds.end());
  // Small indices can pick large slices many times over: bounded like any run-time shape.
  check_output_size(data.desc.dtype, shape, "the GatherND output");
  const std::vector<int64_t> vals = read_indices(idx, "indices");
  // One base per (batch entry, tuple): the batch position plus each coordinate's stride.
  const std::vector<int64_t> batch_pos = positions_of(std::span(ds).first(static_cast<size_t>(b)),
                                                      std::span(st).first(static_cast<size_t>(b)));
  const auto tuples = static_cast<int64_t>(vals.size()) / k;
  // Batch dims of length 0 leave no tuples at all.
  const int64_t per_batch = tuples == 0 ? 1 : tuples / static_cast<int64_t>(batch_pos.size());
  std::vector<int64_t> base(static_cast<size_t>(tuples));
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t pos = data.desc.offset + batch_pos[t / per_batch];
    for (int64_t d = 0; d < k; ++d) {
      const int64_t at = t * k + d;
      const int64_t v = checked_index(
          vals[at], ds[b + d],
          "indices element " + std::to_string(at) + ", data axis " + std::to_string(b + d));
      pos += v * st[b + d];
    }
    base[t] = pos;
  }
  const std::vector<int64_t> inner =
      positions_of(std::span(ds).subspan(static_cast<size_t>(b + k)),
                   std::span(st).subspan(static_cast<size_t>(b + k)));
  gather_positions(data, base, inner, ctx.output(0, shape));
}

}  // namespace

Reason supports_gather_nd(const Graph& g, const Node& n) {
  if (Reason r = movable_dtype_reason(input_dtype(g, n, 0), "the data")) return r;
  return index_dtype_reason(g, n, 1, "indices");
}

std::unique_ptr<Kernel> create_gather_nd(const Graph& /*g*/, const Node& n) {
  const int64_t b = n.opset >= 12 ? attr_int(n, "batch_dims", 0) : 0;
  return make_node_kernel(n, [b](KernelContext& ctx) { gather_nd(ctx, b); });
}

}  // namespace geon::cpu
