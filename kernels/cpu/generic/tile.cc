// Tile: output position o of an axis reads input position o mod length, so the output is one
// gather (gather_rows.h; each copy of an input row is one memcpy). Dtypes it cannot copy
// (packed ones) take one assign: the output viewed as (r_0, d_0, r_1, d_1, ...) and the input
// as the same shape with stride 0 over each repeat.
#include <limits>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/gather_rows.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/text/ops.h"

namespace geon::cpu {
namespace {

using Ints = std::vector<int64_t>;

void tile_into(KernelContext& ctx, const Ints& repeats) {
  const TensorRef& src = ctx.input(0);
  const int r = src.desc.rank();
  require(static_cast<int>(repeats.size()) == r, [&] {
    return "repeats has " + std::to_string(repeats.size()) + " entries for an input of rank " +
           std::to_string(r);
  });
  Dims shape(r), split_shape;
  TensorDesc from = src.desc;
  from.shape.clear();
  from.strides.clear();
  for (int k = 0; k < r; ++k) {
    require(repeats[k] >= 0, [&] {
      return "repeats[" + std::to_string(k) + "] is negative (" + std::to_string(repeats[k]) + ")";
    });
    const int64_t len = src.desc.shape[k];
    require(len == 0 || repeats[k] <= std::numeric_limits<int64_t>::max() / len,
            "the tiled length overflows int64");
    shape[k] = len * repeats[k];
    split_shape.insert(split_shape.end(), {repeats[k], len});
    from.shape.insert(from.shape.end(), {repeats[k], len});
    from.strides.insert(from.strides.end(), {0, src.desc.strides[k]});
  }
  check_output_size(src.desc.dtype, shape, "the tiled output");
  const TensorRef& out = ctx.output(0, shape);
  if (element_count(shape) == 0) return;
  if (r > 0 && gather_width_ok(src.desc.dtype)) {
    std::vector<AxisMap> maps(r);
    for (int k = 0; k < r; ++k)
      for (int64_t o = 0; o < shape[k]; ++o)
        maps[k].offset.push_back(o % src.desc.shape[k] * src.desc.strides[k]);
    gather_rows(src, out, maps, nullptr);
    return;
  }
  if (ReshapeResult v = reshape(out.desc, split_shape); v.view) {
    assign(Operand{*v.view, out.data}, ConstOperand(from, src.data));
    return;
  }
  // An output whose strides do not split (not produced by this executor today): go through a
  // dense temporary of the same elements.
  const TensorDesc dense = row_major(out.desc.dtype, shape);
  std::vector<std::byte> tmp(dtype_bytes_for(dense.dtype, element_count(dense)));
  assign(Operand{*reshape(dense, split_shape).view, tmp.data()}, ConstOperand(from, src.data));
  assign(dst_of(out), ConstOperand(dense, tmp.data()));
}

}  // namespace

Reason supports_tile(const Graph& g, const Node& n) {
  // Tile assigns broadcast views: strings (handles) too.
  if (Reason r = string_or_engine_reason(input_dtype(g, n, 0), "the input")) return r;
  if (!has_input(n, 1)) return "Tile needs a repeats input";
  if (n.opset < 6) {
    if (!has_input(n, 2)) return "Tile-1 needs an axis input";
    if (Reason r = check_ints_input(g, n, 2, "axis")) return r;
  }
  return check_ints_input(g, n, 1, "repeats");
}

std::unique_ptr<Kernel> create_tile(const Graph& g, const Node& n) {
  const IntsInput repeats = ints_input(g, n, 1);
  if (n.opset >= 6)
    return make_node_kernel(
        n, [repeats](KernelContext& ctx) { tile_into(ctx, repeats.read(ctx, "repeats")); });
  // Tile-1: `tiles` copies along the one axis given by input 2.
  const IntsInput axis = ints_input(g, n, 2);
  return make_node_kernel(n, [repeats, axis](KernelContext& ctx) {
    const Ints tiles = repeats.read(ctx, "tiles"), at = axis.read(ctx, "axis");
    require(tiles.size() == 1 && at.size() == 1, "tiles and axis must each hold one value");
    const int rank = ctx.input(0).desc.rank();
    Ints all(static_cast<size_t>(rank), 1);
    all[normalize_axis(at[0], rank)] = tiles[0];
    tile_into(ctx, all);
  });
}

}  // namespace geon::cpu
