// Elementwise ONNX ops on the CPU engine. The ONNX-to-engine mapping and the fused
// expression of each node live in core/onnx/elementwise.h, shared with the cuda set; this
// file binds them to cpu.generic's op coverage and the CPU engine's evaluate.
#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#include "core/base/error.h"
#include "core/onnx/elementwise.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/text/ops.h"

namespace geon::cpu {
namespace {

// The engine evaluates chunk by chunk, reading a chunk of every input before writing that
// chunk of the destination, and takes an input that is the very same view as the destination
// as it is; so the output may take the memory of any input (the executor pairs only inputs of
// the output's dtype and shape).
class ElementwiseKernel final : public FnKernel {
 public:
  ElementwiseKernel(Fn fn, int inputs) : FnKernel(std::move(fn)), inputs_(inputs) {}
  std::span<const int> in_place_inputs() const override {
    static constexpr std::array<int, 8> kFirst{0, 1, 2, 3, 4, 5, 6, 7};
    return std::span<const int>(kFirst).first(static_cast<size_t>(std::clamp(inputs_, 0, 8)));
  }

 private:
  int inputs_;
};

}  // namespace

Reason supports_elementwise(const Graph& g, const Node& n) {
  if (n.op == "Equal" && input_dtype(g, n, 0) == DType::kString)
    return supports_equal_string(g, n);  // text/cast_equal.cc
  return onnx::elementwise_reason(g, n, "cpu.generic", check_engine_op);
}

std::unique_ptr<Kernel> create_elementwise(const Graph& g, const Node& n) {
  if (n.op == "Equal" && input_dtype(g, n, 0) == DType::kString) return create_equal_string(g, n);
  const onnx::ElementwiseSpec spec = onnx::elementwise_spec(n);
  // The expression for the dtypes the graph declares is built once here; a call whose inputs
  // have other dtypes (or a graph that does not know them) builds its own.
  std::vector<DType> declared;
  bool known = true;
  for (int i = 0; i < static_cast<int>(n.inputs.size()); ++i) {
    if (!has_input(n, i)) continue;
    declared.push_back(input_dtype(g, n, i));
    known = known && declared.back() != DType::kUndefined;
  }
  std::shared_ptr<const Expr> built;
  if (known && !declared.empty()) {
    try {
      built = std::make_shared<const Expr>(onnx::elementwise_expr(spec, declared));
    } catch (const Error&) {
      // Left to the call, which reports it with the actual inputs.
    }
  }
  return std::make_unique<ElementwiseKernel>(
      [spec, built](KernelContext& ctx) {
        const onnx::ElementwiseInputs in = onnx::elementwise_inputs(ctx, spec);
        const TensorRef& out = ctx.output(0, in.shape);
        if (built && built->inputs == in.dtypes)
          evaluate(*built, dst_of(out), in.srcs);
        else
          evaluate(onnx::elementwise_expr(spec, in.dtypes), dst_of(out), in.srcs);
      },
      static_cast<int>(n.inputs.size()));
}

}  // namespace geon::cpu
