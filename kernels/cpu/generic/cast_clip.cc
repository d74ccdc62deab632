// Identity, Cast, CastLike and Clip: assign-shaped ops. Cast is one engine assign (convert
// and copy in one pass) honouring `saturate` and `round_mode`; Clip's bounds are operands, so
// run-time bounds work as well as constant ones.
#include <cmath>
#include <limits>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/onnx/cast.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/sequence/ops.h"
#include "kernels/cpu/generic/text/ops.h"

namespace geon::cpu {
namespace {

Reason check_io(const Graph& g, const Node& n) {
  if (Reason r = engine_dtype_reason(input_dtype(g, n, 0), "the input")) return r;
  return engine_dtype_reason(output_dtype(g, n, 0), "the output");
}

std::unique_ptr<Kernel> assign_kernel(EngineOptions opt) {
  return make_kernel([opt](KernelContext& ctx) {
    const TensorRef& src = ctx.input(0);
    const TensorRef& dst = ctx.output(0, src.desc.shape);
    assign(dst_of(dst), src_of(src), opt);
  });
}

// dst = clip(x, lo, hi) with either bound possibly absent.
void clip(const Operand& dst, const ConstOperand& x, const ConstOperand* lo,
          const ConstOperand* hi) {
  if (lo && hi)
    ternary("clip", dst, x, *lo, *hi);
  else if (lo)
    binary("max", dst, x, *lo);
  else if (hi)
    binary("min", dst, x, *hi);
  else
    assign(dst, x);
}

}  // namespace

Reason supports_identity(const Graph& g, const Node& n) {
  if (has_input(n, 0) && is_list_type(g.value(n.inputs[0]).type)) return std::nullopt;
  // Identity moves elements only, so strings (handles) pass too.
  if (Reason r = string_or_engine_reason(input_dtype(g, n, 0), "the input")) return r;
  return string_or_engine_reason(output_dtype(g, n, 0), "the output");
}
// Identity is the trivial view: the executor binds its output to the input's memory. A
// sequence or optional is passed on as the same value.
std::unique_ptr<Kernel> create_identity(const Graph& g, const Node& n) {
  if (has_input(n, 0) && is_list_type(g.value(n.inputs[0]).type)) return create_list_identity();
  return make_view_kernel(
      n, [](const TensorDesc& d, const KernelContext&) { return std::optional<TensorDesc>(d); });
}

Reason supports_cast(const Graph& g, const Node& n) {
  if (input_dtype(g, n, 0) == DType::kString || output_dtype(g, n, 0) == DType::kString)
    return supports_cast_string(g, n);  // text/cast_equal.cc
  if (Reason r = check_io(g, n)) return r;
  EngineOptions opt;
  return onnx::cast_options(n, opt.cast);
}
std::unique_ptr<Kernel> create_cast(const Graph& g, const Node& n) {
  if (input_dtype(g, n, 0) == DType::kString || output_dtype(g, n, 0) == DType::kString)
    return create_cast_string(g, n);
  EngineOptions opt;
  onnx::cast_options(n, opt.cast);
  return assign_kernel(opt);
}

Reason supports_cast_like(const Graph& g, const Node& n) { return supports_cast(g, n); }
std::unique_ptr<Kernel> create_cast_like(const Graph& g, const Node& n) {
  return create_cast(g, n);
}

Reason supports_clip_attr(const Graph& g, const Node& n) {
  if (Reason r = check_io(g, n)) return r;
  if (!is_floating(input_dtype(g, n, 0))) return "Clip before opset 11 takes float inputs only";
  return check_engine_op("clip", input_dtype(g, n, 0));
}
std::unique_ptr<Kernel> create_clip_attr(const Graph&, const Node& n) {
  const float lo = attr_float(n, "min", -std::numeric_limits<float>::infinity());
  const float hi = attr_float(n, "max", std::numeric_limits<float>::infinity());
  return make_kernel([lo, hi](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const TensorRef& dst = ctx.output(0, x.desc.shape);
    const ConstOperand l = ConstOperand::scalar(lo, x.desc.dtype);
    const ConstOperand h = ConstOperand::scalar(hi, x.desc.dtype);
    clip(dst_of(dst), src_of(x), std::isinf(lo) ? nullptr : &l, std::isinf(hi) ? nullptr : &h);
  });
}

Reason supports_clip_inputs(const Graph& g, const Node& n) {
  if (Reason r = check_io(g, n)) return r;
  return check_engine_op("clip", input_dtype(g, n, 0));
}
std::unique_ptr<Kernel> create_clip_inputs(const Graph&, const Node&) {
  return make_kernel([](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const TensorRef& dst = ctx.output(0, x.desc.shape);
    auto bound = [&](int i) -> std::optional<ConstOperand> {
      if (i >= ctx.num_inputs() || !ctx.input(i).present()) return std::nullopt;
      // Bounds are scalars (rank 0 or one element); viewed as rank 0 they broadcast.
      TensorDesc d = ctx.input(i).desc;
      require(element_count(d) == 1, "Clip: min and max must be scalars");
      d.shape.clear();
      d.strides.clear();
      return ConstOperand(d, ctx.input(i).data);
    };
    const auto lo = bound(1), hi = bound(2);
    clip(dst_of(dst), src_of(x), lo ? &*lo : nullptr, hi ? &*hi : nullptr);
  });
}

}  // namespace geon::cpu
