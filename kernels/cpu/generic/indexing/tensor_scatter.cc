// TensorScatter (24): a KV-cache update. The output is past_cache with, for each batch entry b,
// the sequence positions [w_b, w_b + seq) along `axis` replaced by update[b] (w_b from
// write_indices, 0 when omitted). "linear" requires the run to fit; "circular" takes positions
// modulo the cache length, so a run wraps at most once (seq <= the cache length). Each batch
// entry is one or two engine assigns between views, so every dtype (packed ones too) works.
#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/indexing/ops.h"
#include "kernels/cpu/generic/indexing/positions.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

struct Params {
  int64_t axis;
  bool circular;
  bool has_indices;
};

void tensor_scatter(KernelContext& ctx, const Params& p) {
  const TensorRef &past = ctx.input(0), &upd = ctx.input(1);
  const Dims &ps = past.desc.shape, &us = upd.desc.shape;
  const int r = past.desc.rank();
  require(r >= 2, [&] {
    return "past_cache must have rank >= 2 (batch and sequence), got " + std::to_string(r);
  });
  require(p.axis >= -r && p.axis < r, [&] {
    return "axis " + std::to_string(p.axis) + " is out of range for past_cache of rank " +
           std::to_string(r);
  });
  const int axis = static_cast<int>(p.axis < 0 ? p.axis + r : p.axis);
  require(axis >= 1, "axis names dim 0, the batch dim; the sequence dim must come after it");
  require(upd.desc.dtype == past.desc.dtype, "update's dtype differs from past_cache's");
  require(upd.desc.rank() == r, [&] {
    return "update has shape " + dims_text(us) + ", past_cache has " + dims_text(ps) +
           "; the ranks must match";
  });
  for (int d = 0; d < r; ++d)
    require(d == axis ? us[d] <= ps[d] : us[d] == ps[d], [&] {
      return "update has shape " + dims_text(us) + ", past_cache has " + dims_text(ps) +
             (d == axis ? "; update is longer along the sequence axis " + std::to_string(d)
                        : "; they differ on axis " + std::to_string(d));
    });
  const int64_t batch = ps[0], max_len = ps[axis], seq = us[axis];
  std::vector<int64_t> starts(static_cast<size_t>(batch), 0);
  if (p.has_indices) {
    const TensorRef& wi = ctx.input(2);
    require(wi.desc.rank() == 1 && wi.desc.shape[0] == batch, [&] {
      return "write_indices has shape " + dims_text(wi.desc.shape) + ", must be (" +
             std::to_string(batch) + ") (one start per batch entry)";
    });
    starts = read_indices(wi, "write_indices");
  }
  for (int64_t b = 0; b < batch; ++b) {
    int64_t& w = starts[b];
    if (p.circular) {
      w = max_len == 0 ? 0 : (w % max_len + max_len) % max_len;
    } else if (w < 0 || w > max_len - seq) {
      fail(ErrorCode::kOutOfRange, "write_indices[" + std::to_string(b) + "] is " +
                                       std::to_string(w) + ": " + std::to_string(seq) +
                                       " entries from there do not fit the sequence length " +
                                       std::to_string(max_len) + " (mode linear)");
    }
  }
  const TensorRef& out = ctx.output(0, ps);
  if (element_count(ps) == 0) return;
  assign(dst_of(out), src_of(past));
  if (seq == 0) return;
  const int a = axis - 1;  // the sequence axis once the batch dim is selected away
  for (int64_t b = 0; b < batch; ++b) {
    const TensorDesc o = select(out.desc, 0, b), u = select(upd.desc, 0, b);
    const int64_t w = starts[b], first = std::min(seq, max_len - w);
    assign(Operand{narrow(o, a, w, first), out.data},
           ConstOperand(narrow(u, a, 0, first), upd.data));
    if (first < seq)  // circular: the rest wraps to the front
      assign(Operand{narrow(o, a, 0, seq - first), out.data},
             ConstOperand(narrow(u, a, first, seq - first), upd.data));
  }
}

}  // namespace

Reason supports_tensor_scatter(const Graph& g, const Node& n) {
  if (!has_input(n, 0) || !has_input(n, 1)) return "TensorScatter needs past_cache and update";
  const DType t = input_dtype(g, n, 0);
  if (Reason r = movable_dtype_reason(t, "past_cache")) return r;
  if (input_dtype(g, n, 1) != t) return "update's dtype differs from past_cache's";
  if (has_input(n, 2))
    if (Reason r = index_dtype_reason(g, n, 2, "write_indices")) return r;
  const std::string mode = attr_string(n, "mode", "linear");
  if (mode != "linear" && mode != "circular")
    return "mode '" + mode + "' is not linear or circular";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_tensor_scatter(const Graph& /*g*/, const Node& n) {
  const Params p{attr_int(n, "axis", -2), attr_string(n, "mode", "linear") == "circular",
                 has_input(n, 2)};
  return make_node_kernel(n, [p](KernelContext& ctx) { tensor_scatter(ctx, p); });
}

}  // namespace geon::cpu
