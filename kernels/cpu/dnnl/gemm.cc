// ONNX Gemm on oneDNN: Y = alpha·A'·B' + beta·C. transA/transB are transpose views (strides
// in the memory descriptor, no copy); C is broadcast into Y first and added by oneDNN's sum
// post-op scaled by beta, which covers every unidirectional broadcast of C in one pass. The
// common alpha = beta = 1 case passes C as the primitive's bias instead: Y is written once.
// A constant B is prepacked at creation with alpha folded in (transB by the reorder's strides).
#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/dnnl/matmul_core.h"
#include "kernels/cpu/dnnl/ops.h"
#include "kernels/cpu/dnnl/packed_matmul.h"

namespace geon::cpu {
namespace {

// C as a bias vector of the packed product (shape (N) or (1, N)), or nullopt.
std::optional<ConstOperand> bias_vector(const TensorRef& c, int64_t n) {
  const TensorDesc& d = c.desc;
  const bool vector =
      (d.rank() == 1 && d.shape[0] == n) || (d.rank() == 2 && d.shape[0] == 1 && d.shape[1] == n);
  if (!vector) return std::nullopt;
  return ConstOperand(d, c.data);
}

// Y = alpha·A'·B' + beta·C with the packed B' (alpha already in it); false when the packed
// path cannot take these views, with Y possibly holding C (the general path refills it).
bool run_packed(const DnnlPackedMatmul& packed, const KernelContext& ctx, const ConstOperand& a,
                const Operand& y, bool has_c, float beta) {
  if (!has_c) return packed.run(a, y, nullptr, 0.0f);
  if (beta == 1.0f)
    if (auto bias = bias_vector(ctx.input(2), y.desc.shape[1]))
      if (packed.run(a, y, &*bias, 0.0f)) return true;
  // Y = beta·C (broadcast) first, added by a sum post-op of scale 1: oneDNN's fast 1×1 kernels
  // take no other scale.
  if (beta == 1.0f)
    assign(y, src_of(ctx.input(2)));
  else
    unary("identity", y, src_of(ctx.input(2)), beta);
  return packed.run(a, y, nullptr, 1.0f);
}

}  // namespace

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

std::unique_ptr<Kernel> create_dnnl_gemm(const Graph& g, const Node& n) {
  auto mm = std::make_shared<DnnlMatmul>();
  const bool ta = attr_int(n, "transA", 0) != 0, tb = attr_int(n, "transB", 0) != 0;
  const float alpha = attr_float(n, "alpha", 1.0f), beta = attr_float(n, "beta", 1.0f);
  const auto packed = packed_constant(g, n, 1, tb, alpha, ta);
  // Gemm-1/6 broadcasts C only with broadcast=1; otherwise C must be (M, N).
  const bool exact_c = n.opset < 7 && attr_int(n, "broadcast", 0) == 0;
  return make_kernel(
      [=](KernelContext& ctx) {
        TensorDesc a = ctx.input(0).desc, b = ctx.input(1).desc;
        require(a.rank() == 2 && b.rank() == 2, "Gemm: operands must be matrices");
        if (ta) a = transpose(a);
        if (tb) b = transpose(b);
        require(a.shape[1] == b.shape[0], [&] {
          return "Gemm: inner dims differ: " + to_string(a) + " and " + to_string(b);
        });
        const TensorRef& out = ctx.output(0, Dims{a.shape[0], b.shape[1]});
        const bool has_c = ctx.num_inputs() > 2 && ctx.input(2).present() && beta != 0.0f;
        if (exact_c && ctx.num_inputs() > 2 && ctx.input(2).present())
          require(ctx.input(2).desc.shape == out.desc.shape, [&] {
            return "Gemm (opset < 7) without broadcast=1 needs C of the output's shape " +
                   to_string(out.desc) + ", got " + to_string(ctx.input(2).desc);
          });
        const ConstOperand A(a, ctx.input(0).data);
        if (packed && ctx.input(1).desc.shape == packed->packed_shape() &&
            run_packed(*packed, ctx, A, dst_of(out), has_c, beta))
          return;
        const PlainB plain = plain_b(ctx, packed.get());
        const ConstOperand B(b, plain.data);
        const float scale = plain.scaled ? 1.0f : alpha;  // an unpacked B holds alpha·B
        if (has_c && scale == 1.0f && beta == 1.0f && ctx.input(2).desc.rank() <= 2) {
          // Y = A·B + C in one pass: C as the primitive's bias (lifted to a matrix).
          TensorDesc c = ctx.input(2).desc;
          while (c.rank() < 2) c = unsqueeze(c, std::vector<int64_t>{0});
          if (mm->run_with_bias(A, B, ConstOperand(c, ctx.input(2).data), dst_of(out))) return;
        }
        if (has_c) assign(dst_of(out), src_of(ctx.input(2)));  // broadcasts C to (M, N)
        mm->run(A, B, dst_of(out), scale, has_c ? beta : 0.0f);
      },
      packed_inputs(packed));
}

}  // namespace geon::cpu
