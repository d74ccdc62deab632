// ReduceSum/Mean/Max/Min/Prod on the engine's reduce: the destination is viewed with the
// reduced dims kept as length 1 (unsqueezed when keepdims is 0), and the engine accumulates
// everything that maps onto one destination element.
#include <algorithm>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

Reduce reduction_of(std::string_view op) {
  if (op == "ReduceSum") return Reduce::kSum;
  if (op == "ReduceMean") return Reduce::kMean;
  if (op == "ReduceMax") return Reduce::kMax;
  if (op == "ReduceMin") return Reduce::kMin;
  return Reduce::kProd;
}

Reason check(const Graph& g, const Node& n) {
  if (Reason r = engine_dtype_reason(input_dtype(g, n, 0), "the input")) return r;
  if (input_dtype(g, n, 0) == DType::kBool && n.op != "ReduceMax" && n.op != "ReduceMin")
    return n.op + " of bool is not implemented";
  return engine_dtype_reason(output_dtype(g, n, 0), "the output");
}

// `axes` is read per run (a constant, or the run's axes tensor when the opset takes an input).
std::unique_ptr<Kernel> reduce_kernel(const Node& n, Reduce r, IntsInput axes_in,
                                      std::vector<int64_t> attr_axes, bool keepdims,
                                      bool noop_with_empty_axes) {
  return make_node_kernel(n, [=](KernelContext& ctx) {
    const TensorRef& src = ctx.input(0);
    const int rank = src.desc.rank();
    const std::vector<int64_t> axes = axes_in.present() ? axes_in.read(ctx, "the axes") : attr_axes;
    if (axes.empty() && noop_with_empty_axes) {
      assign(dst_of(ctx.output(0, src.desc.shape)), src_of(src));
      return;
    }
    std::vector<bool> reduced(rank, axes.empty());
    for (int64_t a : axes) {
      require(a >= -rank && a < rank, "axis " + std::to_string(a) +
                                          " is out of range for an input of rank " +
                                          std::to_string(rank));
      reduced[a < 0 ? a + rank : a] = true;
    }
    Dims kept, out_shape;
    std::vector<int64_t> gone;
    for (int d = 0; d < rank; ++d) {
      kept.push_back(reduced[d] ? 1 : src.desc.shape[d]);
      if (!reduced[d] || keepdims) out_shape.push_back(kept.back());
      if (reduced[d]) gone.push_back(d);
    }
    const TensorRef& out = ctx.output(0, out_shape);
    Operand dst = dst_of(out);
    if (!keepdims) dst.desc = unsqueeze(dst.desc, gone);
    reduce(r, dst, src_of(src));
  });
}

}  // namespace

Reason supports_reduce_attr(const Graph& g, const Node& n) { return check(g, n); }
std::unique_ptr<Kernel> create_reduce_attr(const Graph&, const Node& n) {
  return reduce_kernel(n, reduction_of(n.op), IntsInput{},
                       attr_ints(n, "axes").value_or(std::vector<int64_t>{}),
                       attr_int(n, "keepdims", 1) != 0, false);
}

Reason supports_reduce_input(const Graph& g, const Node& n) {
  if (Reason r = check(g, n)) return r;
  return check_ints_input(g, n, 1, "axes");
}
std::unique_ptr<Kernel> create_reduce_input(const Graph& g, const Node& n) {
  return reduce_kernel(n, reduction_of(n.op), ints_input(g, n, 1), {},
                       attr_int(n, "keepdims", 1) != 0,
                       attr_int(n, "noop_with_empty_axes", 0) != 0);
}

}  // namespace geon::cpu
