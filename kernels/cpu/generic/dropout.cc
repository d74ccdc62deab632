// Dropout at inference: y = x (a view of the input when no mask is asked for) and a mask that
// keeps everything. Training mode (opset 12's training_mode input) with a nonzero ratio drops
// elements at random: refused when the inputs are constants, a kNotSupported error at run time
// otherwise. Before opset 7 the is_test attribute is read as inference too, as runtimes do.
#include <string>

#include "core/base/error.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

// The one value of a scalar (or one-element) host tensor, as a double.
double scalar_value(const TensorRef& t, const std::string& what) {
  require(element_count(t.desc) == 1,
          what + " must hold one value, it has " + std::to_string(element_count(t.desc)));
  if (t.device.kind != DeviceKind::kHost)
    fail(ErrorCode::kNotSupported, what + " must be in host memory");
  double v = 0;
  assign(Operand{TensorDesc{DType::kDouble, {}, {}, 0, {}}, &v},
         ConstOperand(TensorDesc{t.desc.dtype, {}, {}, t.desc.offset, {}}, t.data));
  return v;
}

bool input_given(const KernelContext& ctx, int i) {
  return i < ctx.num_inputs() && ctx.input(i).data != nullptr;
}

// Throws unless this run is an identity: training_mode off (the default), or a zero ratio.
void check_inference(const KernelContext& ctx) {
  if (!input_given(ctx, 2) || scalar_value(ctx.input(2), "training_mode") == 0) return;
  const double ratio = input_given(ctx, 1) ? scalar_value(ctx.input(1), "ratio") : 0.5;
  if (ratio != 0)
    fail(ErrorCode::kNotSupported, "training_mode is true with ratio " + std::to_string(ratio) +
                                       ": random dropout is not implemented");
}

// The constant value of input i when it is a one-element constant.
std::optional<double> constant_scalar(const Graph& g, const Node& n, int i) {
  if (!has_input(n, i)) return std::nullopt;
  const Value& v = g.value(n.inputs[i]);
  if (!v.data || v.data->elements() != 1) return std::nullopt;
  return element_as_double(*v.data, 0);
}

}  // namespace

Reason supports_dropout(const Graph& g, const Node& n) {
  if (Reason r = engine_dtype_reason(input_dtype(g, n, 0), "the input")) return r;
  if (n.opset < 12 || !has_input(n, 2)) return std::nullopt;
  const std::optional<double> training = constant_scalar(g, n, 2);
  if (!training || *training == 0) return std::nullopt;
  const std::optional<double> ratio = has_input(n, 1) ? constant_scalar(g, n, 1) : 0.5;
  if (ratio && *ratio != 0)
    return "training_mode is true with ratio " + std::to_string(*ratio) +
           ": random dropout is not implemented";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_dropout(const Graph&, const Node& n) {
  const bool mask = n.outputs.size() > 1 && n.outputs[1] >= 0;
  if (!mask)
    return make_view_kernel(n, [](const TensorDesc& d, const KernelContext& ctx) {
      check_inference(ctx);
      return std::optional<TensorDesc>(d);
    });
  return make_node_kernel(n, [](KernelContext& ctx) {
    check_inference(ctx);
    const TensorRef& src = ctx.input(0);
    const TensorRef& y = ctx.output(0, src.desc.shape);
    if (element_count(y.desc) > 0) assign(dst_of(y), src_of(src));
    // Every element is kept: true (bool, from opset 10) or 1 of the data's type (before).
    const TensorRef& keep = ctx.output(1, src.desc.shape);
    if (element_count(keep.desc) > 0) assign(dst_of(keep), ConstOperand::scalar(1, DType::kDouble));
  });
}

}  // namespace geon::cpu
