// Elementwise ONNX ops on the CUDA engine: each node is one fused expression (built by
// core/onnx/elementwise.h, as for cpu.generic) evaluated over the device inputs with numpy
// broadcasting of their actual shapes.
#include "core/onnx/elementwise.h"

#include "kernels/cuda/set_ops.h"

namespace geon::cuda {

Reason supports_elementwise(const Graph& g, const Node& n) {
  if (Reason r = unavailable_reason()) return r;
  return onnx::elementwise_reason(g, n, "cuda", check_cuda_op);
}

std::unique_ptr<Kernel> create_elementwise(const Graph&, const Node& n) {
  const onnx::ElementwiseSpec spec = onnx::elementwise_spec(n);
  return make_device_kernel(n, [spec](KernelContext& ctx, const Options& opt) {
    for (int i = 0; i < ctx.num_inputs(); ++i)
      if (ctx.input(i).present()) device_src(ctx.input(i), opt, "input " + std::to_string(i));
    const onnx::ElementwiseInputs in = onnx::elementwise_inputs(ctx, spec);
    const Operand dst = device_dst(ctx.output(0, in.shape), opt, "the output");
    cuda::evaluate(onnx::elementwise_expr(spec, in.dtypes), dst, in.srcs, Reduce::kNone, opt);
  });
}

}  // namespace geon::cuda
