// ONNX Gemm on oneDNN: Y = alpha·A'·B' + beta·C. transA/transB are transpose views (strides
// in the memory descriptor, no copy); C is broadcast into Y first and added by oneDNN's sum
// post-op scaled by beta, which covers every unidirectional broadcast of C in one pass. The
// common alpha = beta = 1 case passes C as the primitive's bias instead: Y is written once.
#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/dnnl_matmul_core.h"
#include "kernels/cpu/dnnl_ops.h"

namespace geon::cpu {

Reason supports_dnnl_gemm(const Graph& g, const Node& n) {
  for (int i = 0; i < 3; ++i)
    if (has_input(n, i) && input_dtype(g, n, i) != DType::kFloat)
      return "oneDNN gemm here takes float only, input " + std::to_string(i) + " is " +
             std::string(dtype_name(input_dtype(g, n, i)));
  for (int i = 0; i < 2; ++i) {
    const Value& v = g.value(n.inputs.at(i));
    if (v.rank_known && v.rank() != 2) return "Gemm operands must be matrices";
  }
  return std::nullopt;
}

std::unique_ptr<Kernel> create_dnnl_gemm(const Graph&, const Node& n) {
  auto mm = std::make_shared<DnnlMatmul>();
  const bool ta = attr_int(n, "transA", 0) != 0, tb = attr_int(n, "transB", 0) != 0;
  const float alpha = attr_float(n, "alpha", 1.0f), beta = attr_float(n, "beta", 1.0f);
  return make_kernel([=](KernelContext& ctx) {
    TensorDesc a = ctx.input(0).desc, b = ctx.input(1).desc;
    require(a.rank() == 2 && b.rank() == 2, "Gemm: operands must be matrices");
    if (ta) a = transpose(a);
    if (tb) b = transpose(b);
    require(a.shape[1] == b.shape[0],
            "Gemm: inner dims differ: " + to_string(a) + " and " + to_string(b));
    const TensorRef& out = ctx.output(0, Dims{a.shape[0], b.shape[1]});
    const bool has_c = ctx.num_inputs() > 2 && ctx.input(2).present() && beta != 0.0f;
    const ConstOperand A(a, ctx.input(0).data), B(b, ctx.input(1).data);
    if (has_c && alpha == 1.0f && beta == 1.0f && ctx.input(2).desc.rank() <= 2) {
      // Y = A·B + C in one pass: C as the primitive's bias (lifted to a matrix).
      TensorDesc c = ctx.input(2).desc;
      while (c.rank() < 2) c = unsqueeze(c, std::vector<int64_t>{0});
      if (mm->run_with_bias(A, B, ConstOperand(c, ctx.input(2).data), dst_of(out))) return;
    }
    if (has_c) assign(dst_of(out), src_of(ctx.input(2)));  // broadcasts C to (M, N)
    mm->run(ConstOperand(a, ctx.input(0).data), ConstOperand(b, ctx.input(1).data), dst_of(out),
            alpha, has_c ? beta : 0.0f);
  });
}

}  // namespace geon::cpu
