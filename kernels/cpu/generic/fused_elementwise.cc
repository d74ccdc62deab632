// geon.Elementwise on the CPU engine: the expression core/passes/fuse_elementwise.h encodes,
// evaluated by one engine call, reducing straight into the destination when the group ended in
// a reduction; so no member's intermediate is ever stored.
#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/onnx/elementwise.h"
#include "core/passes/fuse_elementwise.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

// Without a reduction the engine reads a chunk of every input before writing that chunk of
// the destination, so the output may take any input's memory (as ElementwiseKernel allows).
class FusedElementwiseKernel final : public FnKernel {
 public:
  FusedElementwiseKernel(Fn fn, int inputs) : FnKernel(std::move(fn)), inputs_(inputs) {}
  std::span<const int> in_place_inputs() const override {
    static constexpr std::array<int, 8> kFirst{0, 1, 2, 3, 4, 5, 6, 7};
    return std::span<const int>(kFirst).first(static_cast<size_t>(std::clamp(inputs_, 0, 8)));
  }

 private:
  int inputs_;
};

std::vector<DType> declared_dtypes(const Graph& g, const Node& n) {
  std::vector<DType> out;
  for (int i = 0; i < static_cast<int>(n.inputs.size()); ++i) out.push_back(input_dtype(g, n, i));
  return out;
}

}  // namespace

Reason supports_fused_elementwise(const Graph& g, const Node& n) {
  for (int i = 0; i < static_cast<int>(n.inputs.size()); ++i)
    if (!has_input(n, i)) return "geon.Elementwise: input " + std::to_string(i) + " is omitted";
  if (Reason r = onnx::engine_io_reason(g, n)) return r;
  try {
    const Expr x = fused_elementwise_expr(n, declared_dtypes(g, n));
    if (auto p = fused_elementwise_reduce(n))
      if (x.result() == DType::kBool && p->reduce != Reduce::kMax && p->reduce != Reduce::kMin)
        return "geon.Elementwise: a bool reduction other than max/min is not implemented";
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

std::unique_ptr<Kernel> create_fused_elementwise(const Graph& g, const Node& n) {
  const Node node = n;
  const std::optional<onnx::ReduceParams> reduce = fused_elementwise_reduce(n);
  auto built = std::make_shared<const Expr>(fused_elementwise_expr(n, declared_dtypes(g, n)));
  auto fn = [node, reduce, built](KernelContext& ctx) {
    const onnx::ElementwiseInputs in = onnx::elementwise_inputs(ctx);
    require(static_cast<int>(in.srcs.size()) == ctx.num_inputs(),
            "geon.Elementwise: every input is required");
    std::shared_ptr<const Expr> expr = built;
    if (expr->inputs != in.dtypes)
      expr = std::make_shared<const Expr>(fused_elementwise_expr(node, in.dtypes));
    if (!reduce) {
      evaluate(*expr, dst_of(ctx.output(0, in.shape)), in.srcs);
      return;
    }
    const onnx::ReducedShape rs = onnx::reduced_shape(in.shape, *reduce);
    Operand dst = dst_of(ctx.output(0, rs.out_shape));
    if (rs.identity) {
      evaluate(*expr, dst, in.srcs);
      return;
    }
    if (!rs.restore.empty()) dst.desc = unsqueeze(dst.desc, rs.restore);
    evaluate(*expr, dst, in.srcs, reduce->reduce);
  };
  if (reduce) return make_node_kernel(n, fn);
  return std::make_unique<FusedElementwiseKernel>(fn, static_cast<int>(n.inputs.size()));
}

}  // namespace geon::cpu
