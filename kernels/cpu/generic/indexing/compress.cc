// Compress (9; 11 allows a negative axis): the slices along `axis` (or the elements of the
// flattened input, without an axis) whose condition entry is true, as numpy.compress: the
// condition may be shorter than the axis (the rest is dropped), and longer only where its
// extra entries are false. The output length is known only from the condition's values.
#include "core/base/error.h"
#include "kernels/cpu/generic/indexing/ops.h"
#include "kernels/cpu/generic/indexing/positions.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

// The positions j < len where the condition is true; true entries past len are an error.
std::vector<int64_t> selected(const TensorRef& cond, int64_t len) {
  require(cond.desc.rank() == 1,
          [&] { return "condition must be 1-D, got shape " + dims_text(cond.desc.shape); });
  const int64_t n = cond.desc.shape[0];
  std::vector<uint8_t> flags(static_cast<size_t>(n));
  if (n > 0) assign(Operand{row_major(DType::kBool, Dims{n}), flags.data()}, src_of(cond));
  std::vector<int64_t> out;
  for (int64_t j = 0; j < n; ++j) {
    if (!flags[j]) continue;
    if (j >= len)
      fail(ErrorCode::kOutOfRange, "condition is true at position " + std::to_string(j) +
                                       ", past the " + std::to_string(len) +
                                       " entries it selects from");
    out.push_back(j);
  }
  return out;
}

void compress(KernelContext& ctx, std::optional<int64_t> axis_attr) {
  const TensorRef &x = ctx.input(0), &cond = ctx.input(1);
  const Dims &xs = x.desc.shape, &st = x.desc.strides;
  if (!axis_attr) {
    const std::vector<int64_t> sel = selected(cond, element_count(xs));
    const std::vector<int64_t> all = positions_of(xs, st);
    std::vector<int64_t> base(sel.size());
    for (size_t i = 0; i < sel.size(); ++i) base[i] = x.desc.offset + all[sel[i]];
    const int64_t zero = 0;
    gather_positions(x, base, std::span<const int64_t>(&zero, 1),
                     ctx.output(0, {static_cast<int64_t>(sel.size())}));
    return;
  }
  const int r = x.desc.rank();
  require(r >= 1, "an axis needs input of rank >= 1, got a scalar");
  require(*axis_attr >= -r && *axis_attr < r, [&] {
    return "axis " + std::to_string(*axis_attr) + " is out of range for input of rank " +
           std::to_string(r);
  });
  const auto axis = static_cast<size_t>(*axis_attr < 0 ? *axis_attr + r : *axis_attr);
  const std::vector<int64_t> sel = selected(cond, xs[axis]);
  Dims shape = xs;
  shape[axis] = static_cast<int64_t>(sel.size());
  // Output rows are (outer position, selected index); each row is one slice past the axis.
  const std::vector<int64_t> outer =
      positions_of(std::span(xs).first(axis), std::span(st).first(axis));
  std::vector<int64_t> base;
  base.reserve(outer.size() * sel.size());
  for (int64_t o : outer)
    for (int64_t j : sel) base.push_back(x.desc.offset + o + j * st[axis]);
  const std::vector<int64_t> inner =
      positions_of(std::span(xs).subspan(axis + 1), std::span(st).subspan(axis + 1));
  gather_positions(x, base, inner, ctx.output(0, shape));
}

}  // namespace

Reason supports_compress(const Graph& g, const Node& n) {
  if (Reason r = movable_dtype_reason(input_dtype(g, n, 0), "the input")) return r;
  if (!has_input(n, 1)) return "Compress needs a condition input";
  if (input_dtype(g, n, 1) != DType::kBool)
    return "condition has dtype " + std::string(dtype_name(input_dtype(g, n, 1))) +
           ", must be bool";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_compress(const Graph& /*g*/, const Node& n) {
  const std::optional<int64_t> axis =
      n.attr("axis") ? std::optional<int64_t>(attr_int(n, "axis", 0)) : std::nullopt;
  return make_node_kernel(n, [axis](KernelContext& ctx) { compress(ctx, axis); });
}

}  // namespace geon::cpu
