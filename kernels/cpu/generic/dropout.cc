// Dropout at inference: y = x (a view of the input when no mask is asked for) and a mask that
// keeps everything. Training mode (opset 12's training_mode input) with a nonzero ratio drops
// each element with probability `ratio` and scales the kept ones by 1 / (1 - ratio); the seed
// attribute makes the draw reproducible (generic/attention/random.h). Before opset 7 the
// is_test attribute is read as inference too, as runtimes do.
#include <string>

#include "core/base/error.h"
#include "kernels/cpu/generic/attention/dense.h"
#include "kernels/cpu/generic/attention/random.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

// The one value of a scalar (or one-element) host tensor, as a double.
double scalar_value(const TensorRef& t, const std::string& what) {
  require(element_count(t.desc) == 1, [&] {
    return what + " must hold one value, it has " + std::to_string(element_count(t.desc));
  });
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

// The ratio this run drops with: 0 (an identity) unless training_mode is true.
double drop_ratio(const KernelContext& ctx) {
  if (!input_given(ctx, 2) || scalar_value(ctx.input(2), "training_mode") == 0) return 0;
  const double ratio = input_given(ctx, 1) ? scalar_value(ctx.input(1), "ratio") : 0.5;
  require(ratio >= 0 && ratio < 1, [&] {
    return "ratio is " + std::to_string(ratio) + "; it must be in [0, 1) in training mode";
  });
  return ratio;
}

// y = x * keep / (1 - ratio) with keep drawn per element; the mask (when requested) is keep.
void drop(KernelContext& ctx, double ratio, std::optional<double> seed, bool mask) {
  const TensorRef& src = ctx.input(0);
  std::vector<double> y = dense_as<double>(src);
  std::vector<double> keep(y.size());
  RandomStream stream(seed);
  const double scale = 1.0 / (1.0 - ratio);
  const int64_t count = element_count(src.desc);
  for (int64_t i = 0; i < count; ++i) {
    keep[i] = stream.uniform() >= ratio ? 1.0 : 0.0;
    y[i] = y[i] * keep[i] * scale;  // the spec's product: a dropped inf or NaN stays NaN
  }
  store_dense(ctx.output(0, src.desc.shape), y);
  if (mask) store_dense(ctx.output(1, src.desc.shape), keep);
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
  if (ratio && !(*ratio >= 0 && *ratio < 1))
    return "training_mode is true with ratio " + std::to_string(*ratio) + ": it must be in [0, 1)";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_dropout(const Graph&, const Node& n) {
  const bool mask = n.outputs.size() > 1 && n.outputs[1] >= 0;
  const std::optional<double> seed = seed_attr(n);
  // A training run is no view: view() says so and compute() draws.
  if (!mask)
    return make_view_kernel(
        n,
        [](const TensorDesc& d, const KernelContext& ctx) {
          return drop_ratio(ctx) == 0 ? std::optional<TensorDesc>(d) : std::nullopt;
        },
        [seed](KernelContext& ctx) {
          const double ratio = drop_ratio(ctx);
          if (ratio != 0) return drop(ctx, ratio, seed, false);
          const TensorRef& src = ctx.input(0);
          const TensorRef& y = ctx.output(0, src.desc.shape);
          if (element_count(y.desc) > 0) assign(dst_of(y), src_of(src));
        });
  return make_node_kernel(n, [seed](KernelContext& ctx) {
    const double ratio = drop_ratio(ctx);
    if (ratio != 0) return drop(ctx, ratio, seed, true);
    const TensorRef& src = ctx.input(0);
    const TensorRef& y = ctx.output(0, src.desc.shape);
    if (element_count(y.desc) > 0) assign(dst_of(y), src_of(src));
    // Every element is kept: true (bool, from opset 10) or 1 of the data's type (before).
    const TensorRef& keep = ctx.output(1, src.desc.shape);
    if (element_count(keep.desc) > 0) assign(dst_of(keep), ConstOperand::scalar(1, DType::kDouble));
  });
}

}  // namespace geon::cpu
