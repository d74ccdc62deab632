// ReduceSum/Mean/Max/Min/Prod on the CUDA engine's deterministic reduce. The node's axes
// and shapes follow core/onnx/reduce.h (shared with cpu.generic); the destination is viewed
// with the reduced dims restored as length 1, and the engine accumulates onto it.
#include "core/onnx/reduce.h"

#include "core/desc/views.h"
#include "kernels/cuda/set_ops.h"

namespace geon::cuda {
namespace {

Reason check(const Graph& g, const Node& n, bool axes_from_input) {
  if (Reason r = unavailable_reason()) return r;
  return onnx::reduce_reason(g, n, axes_from_input);
}

std::unique_ptr<Kernel> reduce_kernel(const Node& n, onnx::ReduceParams p) {
  return make_device_kernel(n, [p](KernelContext& ctx, const Options& opt) {
    const TensorRef& src = ctx.input(0);
    const onnx::ReducedShape shape = onnx::reduced_shape(src.desc.shape, p);
    Operand dst = device_dst(ctx.output(0, shape.out_shape), opt, "the output");
    const ConstOperand x = device_src(src, opt, "input 0");
    if (shape.identity) {
      cuda::assign(dst, x, opt);
      return;
    }
    if (!shape.restore.empty()) dst.desc = unsqueeze(dst.desc, shape.restore);
    cuda::reduce(p.reduce, dst, x, opt);
  });
}

}  // namespace

Reason supports_reduce_attr(const Graph& g, const Node& n) { return check(g, n, false); }
std::unique_ptr<Kernel> create_reduce_attr(const Graph& g, const Node& n) {
  return reduce_kernel(n, onnx::reduce_params(g, n, false));
}

Reason supports_reduce_input(const Graph& g, const Node& n) { return check(g, n, true); }
std::unique_ptr<Kernel> create_reduce_input(const Graph& g, const Node& n) {
  return reduce_kernel(n, onnx::reduce_params(g, n, true));
}

}  // namespace geon::cuda
