// ReduceSum/Mean/Max/Min/Prod on the engine's reduce: the destination is viewed with the
// reduced dims kept as length 1 (unsqueezed when keepdims is 0), and the engine accumulates
// everything that maps onto one destination element. ReduceL1/L2/LogSum/LogSumExp/SumSquare
// (core/onnx/reduce.h: a sum between two elementwise maps) reduce the same way, the map before
// the sum fused into the engine's pass so |x| or x^2 is never stored.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/onnx/reduce.h"
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
  const DType t = input_dtype(g, n, 0);
  if (Reason r = engine_dtype_reason(t, "the input")) return r;
  if (t == DType::kBool && n.op != "ReduceMax" && n.op != "ReduceMin")
    return n.op + " of bool is not implemented";
  if (auto c = onnx::composed_reduction_of(n.op); c && !c->before.empty() && !c->max_shifted)
    if (Reason r = check_engine_op(c->before, t)) return r;
  return engine_dtype_reason(output_dtype(g, n, 0), "the output");
}

// dst (the result with the reduced dims as length 1) = after(sum(before(x))). Without a map
// after the sum, the engine sums straight into dst (integers stay exact); otherwise the sums are
// taken in double, mapped, and converted into dst once. LogSumExp first finds each sum's shift
// (the largest finite element) and sums exp(x - shift).
void reduce_composed(const onnx::ComposedReduce& c, const Operand& dst, const ConstOperand& x) {
  const DType xt = x.desc.dtype;
  if (c.after.empty()) {
    evaluate(single_op_expr(c.before, std::array{xt}), dst, std::array{x}, Reduce::kSum);
    return;
  }
  const Dims& kept = dst.desc.shape;
  const auto count = static_cast<size_t>(element_count(kept));
  std::vector<double> sums(count), shift;
  const Operand acc{row_major(DType::kDouble, kept), sums.data()};
  if (c.max_shifted) {
    shift.resize(count);
    const Operand top{row_major(DType::kDouble, kept), shift.data()};
    // The float types compute in float (exp(x - shift) <= 1 needs no more), double and the
    // integers in double.
    const bool narrow = is_floating(xt) && xt != DType::kDouble;
    const DType compute = narrow ? DType::kFloat : DType::kDouble;
    if (is_floating(xt)) {
      // Infinities are left out of the shift: x - inf would make an infinite element NaN.
      ExprBuilder b(std::array{xt, compute});
      b.apply("where", {b.apply("isinf", {b.input(0)}), b.input(1), b.input(0)});
      const ConstOperand lowest =
          ConstOperand::scalar(-std::numeric_limits<double>::infinity(), compute);
      evaluate(b.build(), top, std::array{x, lowest}, Reduce::kMax);
    } else {
      reduce(Reduce::kMax, top, x);
    }
    for (double& m : shift)
      if (!std::isfinite(m)) m = 0;  // nothing finite (or an empty sum): no shift
    // exp(-1 * shift + x), computed in the shift's dtype (the first argument's).
    std::vector<float> shift_f(narrow ? count : 0);
    std::copy(shift.begin(), shift.begin() + static_cast<int64_t>(shift_f.size()), shift_f.begin());
    const ConstOperand by =
        narrow ? ConstOperand(row_major(DType::kFloat, kept), shift_f.data()) : ConstOperand(top);
    ExprBuilder b(std::array{compute, xt});
    b.apply(c.before, {b.apply("add", {b.input(0), b.input(1)}, {-1, 1})});
    evaluate(b.build(), acc, std::array{by, x}, Reduce::kSum);
  } else if (c.before.empty()) {
    reduce(Reduce::kSum, acc, x);
  } else {
    evaluate(single_op_expr(c.before, std::array{xt}), acc, std::array{x}, Reduce::kSum);
  }
  const bool root = c.after == "sqrt";
  for (size_t i = 0; i < count; ++i) {
    sums[i] = root ? std::sqrt(sums[i]) : std::log(sums[i]);
    if (!shift.empty()) sums[i] += shift[i];
  }
  assign(dst, ConstOperand(acc));
}

// `axes` is read per run (a constant, or the run's axes tensor when the opset takes an input).
std::unique_ptr<Kernel> reduce_kernel(const Node& n, Reduce r, IntsInput axes_in,
                                      std::vector<int64_t> attr_axes, bool keepdims,
                                      bool noop_with_empty_axes) {
  const std::optional<onnx::ComposedReduce> composed = onnx::composed_reduction_of(n.op);
  return make_node_kernel(n, [=](KernelContext& ctx) {
    const TensorRef& src = ctx.input(0);
    const int rank = src.desc.rank();
    const std::vector<int64_t> axes = axes_in.present() ? axes_in.read(ctx, "the axes") : attr_axes;
    if (axes.empty() && noop_with_empty_axes) {
      // Nothing is reduced; a composed reduction still maps each element (x^2 for SumSquare).
      if (composed)
        reduce_composed(*composed, dst_of(ctx.output(0, src.desc.shape)), src_of(src));
      else
        assign(dst_of(ctx.output(0, src.desc.shape)), src_of(src));
      return;
    }
    std::vector<bool> reduced(rank, axes.empty());
    for (int64_t a : axes) {
      require(a >= -rank && a < rank, [&] {
        return "axis " + std::to_string(a) + " is out of range for an input of rank " +
               std::to_string(rank);
      });
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
    if (composed)
      reduce_composed(*composed, dst, src_of(src));
    else
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
