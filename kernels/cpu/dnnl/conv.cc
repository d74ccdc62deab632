// ONNX Conv and geon.FusedConv on oneDNN (conv_core.h does the work): 1-D to 3-D, groups,
// dilations, strides, pads and every auto_pad. FusedConv adds the residual Z as a sum post-op
// and its activation as eltwise post-ops; Z's memory may become the output's (in place).
#include <array>

#include "core/base/error.h"
#include "kernels/cpu/dnnl/conv_core.h"
#include "kernels/cpu/dnnl/conv_node.h"
#include "kernels/cpu/dnnl/ops.h"

namespace geon::cpu {
namespace {

class ConvKernel : public Kernel {
 public:
  ConvKernel(std::shared_ptr<const DnnlConv> conv, bool bias, bool residual)
      : conv_(std::move(conv)), bias_(bias), residual_(residual) {}

  void compute(KernelContext& ctx) const override {
    const ConstOperand x = src_of(ctx.input(0)), w = src_of(ctx.input(1));
    std::optional<ConstOperand> b, z;
    if (bias_) b = src_of(ctx.input(2));
    if (residual_) z = src_of(ctx.input(3));
    const ConvGeometry geo = conv_->geometry(x.desc.shape, w.desc.shape);
    const TensorRef& out = ctx.output(0, geo.dst_shape);
    conv_->run(x, w, b ? &*b : nullptr, z ? &*z : nullptr, dst_of(out));
  }
  // The sum post-op reads each element of dst before writing it, so dst may be Z's memory.
  std::span<const int> in_place_inputs() const override {
    static constexpr std::array<int, 1> kZ{3};
    return residual_ ? std::span<const int>(kZ) : std::span<const int>();
  }

 private:
  std::shared_ptr<const DnnlConv> conv_;
  bool bias_, residual_;
};

const char* op_name(ConvNodeKind kind) {
  switch (kind) {
    case ConvNodeKind::kConv:
      return "Conv";
    case ConvNodeKind::kConvTranspose:
      return "ConvTranspose";
    case ConvNodeKind::kFusedConv:
      return "FusedConv";
  }
  return "Conv";
}

// X's shape as the graph knows it (-1 where unknown; W's rank when X's is unknown).
Dims x_hint(const Graph& g, const Node& n) {
  const Value& x = g.value(n.inputs[0]);
  const Value& w = g.value(n.inputs[1]);
  const Value& known = x.rank_known ? x : w;
  Dims d(known.rank_known ? known.rank() : 0, -1);
  if (x.rank_known)
    for (int i = 0; i < x.rank(); ++i)
      if (x.axes[i].length.is_static()) d[i] = x.axes[i].length.value;
  return d;
}

}  // namespace

Reason conv_node_reason(const Graph& g, const Node& n, ConvNodeKind kind) {
  const int inputs = kind == ConvNodeKind::kFusedConv ? 4 : 3;
  if (!has_input(n, 0) || !has_input(n, 1)) return std::string("X and W are required");
  for (int i = 0; i < inputs; ++i)
    if (has_input(n, i) && input_dtype(g, n, i) != DType::kFloat)
      return "oneDNN convolution here takes float only; input " + std::to_string(i) + " is " +
             std::string(dtype_name(input_dtype(g, n, i)));
  for (int i = 0; i < 2; ++i)
    if (auto r = onnx::input_rank(g, n, i); r && (*r < 3 || *r > 5))
      return "input " + std::to_string(i) + " has rank " + std::to_string(*r) +
             "; oneDNN convolves 1-D, 2-D and 3-D data only (rank 3 to 5)";
  ConvAttrs attrs;
  if (Reason r = read_conv_attrs(n, kind == ConvNodeKind::kConvTranspose, &attrs)) return r;
  if (kind == ConvNodeKind::kFusedConv) {
    Activation act;
    if (Reason r = read_activation(n, &act)) return r;
  }
  return std::nullopt;
}

std::unique_ptr<Kernel> make_conv_kernel(const Graph& g, const Node& n, ConvNodeKind kind) {
  if (Reason r = conv_node_reason(g, n, kind))
    fail(ErrorCode::kNotSupported, std::string(op_name(kind)) + ": " + *r);
  DnnlConvOptions o;
  o.op = std::string(op_name(kind)) + (n.name.empty() ? "" : " '" + n.name + "'");
  read_conv_attrs(n, kind == ConvNodeKind::kConvTranspose, &o.attrs);
  if (kind == ConvNodeKind::kFusedConv) {
    read_activation(n, &o.activation);
    o.residual = has_input(n, 3);
  }
  const Value& w = g.value(n.inputs[1]);
  // An overridable initializer may be fed another tensor at run time: not packed.
  const TensorData* constant =
      w.kind == ValueKind::kConstant && !w.overridable && w.data ? w.data.get() : nullptr;
  const bool residual = o.residual;
  auto conv = std::make_shared<const DnnlConv>(std::move(o), constant, x_hint(g, n));
  return std::make_unique<ConvKernel>(std::move(conv), has_input(n, 2), residual);
}

Reason supports_dnnl_conv(const Graph& g, const Node& n) {
  return conv_node_reason(g, n, ConvNodeKind::kConv);
}
std::unique_ptr<Kernel> create_dnnl_conv(const Graph& g, const Node& n) {
  return make_conv_kernel(g, n, ConvNodeKind::kConv);
}
Reason supports_dnnl_fused_conv(const Graph& g, const Node& n) {
  return conv_node_reason(g, n, ConvNodeKind::kFusedConv);
}
std::unique_ptr<Kernel> create_dnnl_fused_conv(const Graph& g, const Node& n) {
  return make_conv_kernel(g, n, ConvNodeKind::kFusedConv);
}

}  // namespace geon::cpu
