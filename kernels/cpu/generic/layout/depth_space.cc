// DepthToSpace (1, 11: mode DCR or CRD, 13) and SpaceToDepth (1, 13): a reshape to six dims, a
// permutation and a reshape back. The output, seen as the permuted six-dim shape, takes one
// engine assign from the input's six-dim view, so every dtype and input layout moves in one
// pass; only an input whose strides cannot split into six dims is first made dense.
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/layout/ops.h"

namespace geon::cpu {
namespace {

// out = reshape(permute(reshape(x, split), perm), out_shape).
void rearrange(KernelContext& ctx, const Dims& split, const std::vector<int64_t>& perm,
               const Dims& out_shape) {
  const TensorRef& x = ctx.input(0);
  const TensorRef& out = ctx.output(0, out_shape);
  if (element_count(out_shape) == 0) return;
  Dims permuted(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) permuted[i] = split[perm[i]];
  std::vector<std::byte> tmp;
  const void* src = x.data;
  std::optional<TensorDesc> sv = reshape(x.desc, split).view;
  if (!sv) {
    const TensorDesc dense = row_major(x.desc.dtype, x.desc.shape);
    tmp.resize(static_cast<size_t>(dtype_bytes_for(dense.dtype, element_count(dense))));
    assign(Operand{dense, tmp.data()}, src_of(x));
    src = tmp.data();
    sv = reshape(dense, split).view;
  }
  const ConstOperand from(permute(*sv, perm), src);
  if (std::optional<TensorDesc> ov = reshape(out.desc, permuted).view) {
    assign(Operand{*ov, out.data}, from);
    return;
  }
  const TensorDesc dense = row_major(out.desc.dtype, permuted);
  std::vector<std::byte> otmp(
      static_cast<size_t>(dtype_bytes_for(dense.dtype, element_count(dense))));
  assign(Operand{dense, otmp.data()}, from);
  assign(dst_of(out), ConstOperand(*reshape(dense, out_shape).view, otmp.data()));
}

void check_nchw(const TensorDesc& d) {
  require(d.rank() == 4,
          [&] { return "input 0 must be 4-D (N, C, H, W), got " + layout_dims_text(d.shape); });
}

void depth_to_space(KernelContext& ctx, int64_t b, bool crd) {
  const TensorDesc& d = ctx.input(0).desc;
  check_nchw(d);
  const int64_t n = d.shape[0], c = d.shape[1], h = d.shape[2], w = d.shape[3];
  require(c % (b * b) == 0, [&] {
    return "input 0 has " + std::to_string(c) +
           " channels, not a multiple of blocksize^2 = " + std::to_string(b * b);
  });
  const int64_t oc = c / (b * b);
  Dims out{n, oc, h, w};
  require(h <= INT64_MAX / b && w <= INT64_MAX / b, "the output's spatial dims overflow");
  out[2] = h * b;
  out[3] = w * b;
  if (crd)
    rearrange(ctx, {n, oc, b, b, h, w}, {0, 1, 4, 2, 5, 3}, out);
  else
    rearrange(ctx, {n, b, b, oc, h, w}, {0, 3, 4, 1, 5, 2}, out);
}

void space_to_depth(KernelContext& ctx, int64_t b) {
  const TensorDesc& d = ctx.input(0).desc;
  check_nchw(d);
  const int64_t n = d.shape[0], c = d.shape[1], h = d.shape[2], w = d.shape[3];
  require(h % b == 0 && w % b == 0, [&] {
    return "input 0's spatial dims " + layout_dims_text({h, w}) +
           " are not multiples of blocksize " + std::to_string(b);
  });
  require(c <= INT64_MAX / (b * b), "the output's channel count overflows");
  rearrange(ctx, {n, c, h / b, b, w / b, b}, {0, 3, 5, 1, 2, 4}, {n, c * b * b, h / b, w / b});
}

Reason block_reason(const Graph& g, const Node& n) {
  if (Reason r = layout_movable_reason(input_dtype(g, n, 0), "input 0")) return r;
  const int64_t b = attr_int(n, "blocksize", 0);
  if (b <= 0 || b > (int64_t{1} << 20))
    return "attribute 'blocksize' must be in [1, 2^20], got " + std::to_string(b);
  return std::nullopt;
}

}  // namespace

Reason supports_depth_to_space(const Graph& g, const Node& n) {
  if (Reason r = block_reason(g, n)) return r;
  const std::string mode = n.opset >= 11 ? attr_string(n, "mode", "DCR") : "DCR";
  if (mode != "DCR" && mode != "CRD") return "attribute 'mode' is '" + mode + "'";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_depth_to_space(const Graph&, const Node& n) {
  const int64_t b = attr_int(n, "blocksize", 1);
  const bool crd = n.opset >= 11 && attr_string(n, "mode", "DCR") == "CRD";
  return make_node_kernel(n, [b, crd](KernelContext& ctx) { depth_to_space(ctx, b, crd); });
}

Reason supports_space_to_depth(const Graph& g, const Node& n) { return block_reason(g, n); }

std::unique_ptr<Kernel> create_space_to_depth(const Graph&, const Node& n) {
  const int64_t b = attr_int(n, "blocksize", 1);
  return make_node_kernel(n, [b](KernelContext& ctx) { space_to_depth(ctx, b); });
}

}  // namespace geon::cpu
