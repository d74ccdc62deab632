// Elementwise ONNX ops on the CPU engine. The ONNX-to-engine mapping and the fused
// expression of each node live in core/onnx/elementwise.h, shared with the cuda set; this
// file binds them to cpu.generic's op coverage and the CPU engine's evaluate.
#include "core/onnx/elementwise.h"

#include "kernels/cpu/generic_ops.h"

namespace geon::cpu {

Reason supports_elementwise(const Graph& g, const Node& n) {
  return onnx::elementwise_reason(g, n, "cpu.generic", check_engine_op);
}

std::unique_ptr<Kernel> create_elementwise(const Graph&, const Node& n) {
  const onnx::ElementwiseSpec spec = onnx::elementwise_spec(n);
  return make_kernel([spec](KernelContext& ctx) {
    const onnx::ElementwiseInputs in = onnx::elementwise_inputs(ctx);
    const TensorRef& out = ctx.output(0, in.shape);
    evaluate(onnx::elementwise_expr(spec, in.dtypes), dst_of(out), in.srcs);
  });
}

}  // namespace geon::cpu
