// ONNX MatMul on oneDNN: numpy matmul semantics. 1-D operands are promoted (a to 1×K, b to
// K×1) and the added dim dropped from the result; batch dims broadcast. All promotion is done
// with views, so nothing is copied on the way in. A constant 2-D B is prepacked once, here.
#include <algorithm>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/dnnl/matmul_core.h"
#include "kernels/cpu/dnnl/ops.h"
#include "kernels/cpu/dnnl/packed_matmul.h"

namespace geon::cpu {

std::shared_ptr<const DnnlPackedMatmul> packed_constant(const Graph& g, const Node& n, int input,
                                                        bool transposed, float alpha,
                                                        bool a_transposed) {
  if (static_cast<int>(n.inputs.size()) <= input || n.inputs[input] < 0) return nullptr;
  const Value& v = g.value(n.inputs[input]);
  // An overridable initializer may be fed another tensor at run time.
  if (v.kind != ValueKind::kConstant || v.overridable || !v.data) return nullptr;
  // The rows of A that the graph fixes: its static dims but K (unknown ones count as 1).
  int64_t min_rows = 1;
  if (input == 1 && n.inputs[0] >= 0 && g.value(n.inputs[0]).rank_known) {
    const Value& a = g.value(n.inputs[0]);
    const int k_dim = a_transposed ? 0 : a.rank() - 1;
    for (int i = 0; i < a.rank(); ++i)
      if (i != k_dim && a.axes[i].length.is_static())
        min_rows *= std::max<int64_t>(a.axes[i].length.value, 1);
  }
  return DnnlPackedMatmul::pack(*v.data, transposed, alpha, min_rows);
}

PlainB plain_b(const KernelContext& ctx, const DnnlPackedMatmul* packed) {
  PlainB b;
  b.data = ctx.input(1).data;
  if (b.data || !packed || element_count(ctx.input(1).desc) == 0) return b;
  b.unpacked = packed->unpack();
  b.data = b.unpacked.data();
  b.scaled = true;
  return b;
}

std::vector<int> packed_inputs(const std::shared_ptr<const DnnlPackedMatmul>& packed) {
  return packed ? std::vector<int>{1} : std::vector<int>{};
}

Reason supports_dnnl_matmul(const Graph& g, const Node& n) {
  for (int i = 0; i < 2; ++i)
    if (input_dtype(g, n, i) != DType::kFloat)
      return "oneDNN matmul here takes float only, input " + std::to_string(i) + " is " +
             std::string(dtype_name(input_dtype(g, n, i)));
  for (int i = 0; i < 2; ++i) {
    const Value& v = g.value(n.inputs[i]);
    if (v.rank_known && (v.rank() < 1 || v.rank() > 12))
      return "MatMul operand rank " + std::to_string(v.rank()) + " is outside 1..12";
  }
  return std::nullopt;
}

std::unique_ptr<Kernel> create_dnnl_matmul(const Graph& g, const Node& n) {
  auto mm = std::make_shared<DnnlMatmul>();
  auto packed = packed_constant(g, n, 1, false, 1.0f);
  return make_kernel(
      [mm, packed](KernelContext& ctx) {
        const MatmulViews v = matmul_views(ctx.input(0).desc, ctx.input(1).desc, "MatMul");
        const TensorRef& out = ctx.output(0, v.out_shape);
        const TensorDesc dst = v.dst(out.desc);
        const TensorDesc &a = v.a, &b = v.b;
        // The packed B stands in for input 1 only when the run's input is that matrix.
        if (packed && ctx.input(1).desc.shape == packed->packed_shape() &&
            packed->run(ConstOperand(a, ctx.input(0).data), Operand{dst, out.data}, nullptr, 0.0f))
          return;
        const PlainB plain = plain_b(ctx, packed.get());
        mm->run(ConstOperand(a, ctx.input(0).data), ConstOperand(b, plain.data),
                Operand{dst, out.data}, 1.0f, 0.0f);
      },
      packed_inputs(packed));
}

}  // namespace geon::cpu
