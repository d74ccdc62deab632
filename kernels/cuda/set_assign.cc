// Identity, Cast, CastLike, Transpose and Clip on the CUDA engine: each is one device pass.
// Cast converts and copies in that pass, honouring `saturate` and `round_mode`; Transpose
// assigns from a permuted view of its input (views are free, so no data moves twice); Clip's
// bounds are operands (inline scalars for the attribute form, rank-0 device views otherwise).
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/onnx/cast.h"
#include "kernels/cuda/set_ops.h"

namespace geon::cuda {
namespace {

std::unique_ptr<Kernel> assign_kernel(const Node& n, CastOptions cast) {
  return make_device_kernel(n, [cast](KernelContext& ctx, const Options& base) {
    Options opt = base;
    opt.cast = cast;
    const TensorRef& src = ctx.input(0);
    const Operand dst = device_dst(ctx.output(0, src.desc.shape), opt, "the output");
    cuda::assign(dst, device_src(src, opt, "input 0"), opt);
  });
}

// A reason unless perm is a permutation of 0..rank-1.
Reason perm_reason(const std::vector<int64_t>& perm, int rank) {
  if (static_cast<int>(perm.size()) != rank)
    return "Transpose perm has " + std::to_string(perm.size()) + " entries for rank " +
           std::to_string(rank);
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return "Transpose perm is not a permutation of 0.." + std::to_string(rank - 1);
    seen[p] = true;
  }
  return std::nullopt;
}

// dst = clip(x, lo, hi) with either bound possibly absent.
void clip(const Operand& dst, const ConstOperand& x, const ConstOperand* lo, const ConstOperand* hi,
          const Options& opt) {
  if (lo && hi)
    cuda::ternary("clip", dst, x, *lo, *hi, opt);
  else if (lo)
    cuda::binary("max", dst, x, *lo, 1, 1, opt);
  else if (hi)
    cuda::binary("min", dst, x, *hi, 1, 1, opt);
  else
    cuda::assign(dst, x, opt);
}

Reason clip_reason(const Graph& g, const Node& n) {
  if (Reason r = check_device_io(g, n)) return r;
  const DType t = onnx::input_dtype(g, n, 0);
  for (std::string_view op : {"clip", "max", "min"})
    if (Reason r = check_cuda_op(op, t)) return r;
  return std::nullopt;
}

}  // namespace

Reason supports_identity(const Graph& g, const Node& n) { return check_device_io(g, n); }
std::unique_ptr<Kernel> create_identity(const Graph&, const Node& n) {
  return assign_kernel(n, {});
}

Reason supports_cast(const Graph& g, const Node& n) {
  if (Reason r = check_device_io(g, n)) return r;
  CastOptions cast;
  return onnx::cast_options(n, cast);
}
std::unique_ptr<Kernel> create_cast(const Graph&, const Node& n) {
  CastOptions cast;
  onnx::cast_options(n, cast);
  return assign_kernel(n, cast);
}

// CastLike's second input only names the dtype, which the output's description carries.
Reason supports_cast_like(const Graph& g, const Node& n) { return supports_cast(g, n); }
std::unique_ptr<Kernel> create_cast_like(const Graph& g, const Node& n) {
  return create_cast(g, n);
}

Reason supports_transpose(const Graph& g, const Node& n) {
  if (Reason r = check_device_io(g, n)) return r;
  const std::optional<std::vector<int64_t>> perm = onnx::attr_ints(n, "perm");
  const std::optional<int> rank = onnx::input_rank(g, n, 0);
  if (perm && rank) return perm_reason(*perm, *rank);
  return std::nullopt;
}
std::unique_ptr<Kernel> create_transpose(const Graph&, const Node& n) {
  const std::optional<std::vector<int64_t>> perm = onnx::attr_ints(n, "perm");
  return make_device_kernel(n, [perm](KernelContext& ctx, const Options& opt) {
    const TensorRef& src = ctx.input(0);
    if (perm)
      if (Reason r = perm_reason(*perm, src.desc.rank())) fail(ErrorCode::kInvalidArgument, *r);
    const TensorDesc view = perm ? permute(src.desc, *perm) : transpose(src.desc);
    const Operand dst = device_dst(ctx.output(0, view.shape), opt, "the output");
    cuda::assign(dst, ConstOperand(view, device_src(src, opt, "input 0").data), opt);
  });
}

Reason supports_clip_attr(const Graph& g, const Node& n) {
  if (Reason r = clip_reason(g, n)) return r;
  if (!is_floating(onnx::input_dtype(g, n, 0))) return "Clip before opset 11 takes floats only";
  return std::nullopt;
}
std::unique_ptr<Kernel> create_clip_attr(const Graph&, const Node& n) {
  const float lo = onnx::attr_float(n, "min", -std::numeric_limits<float>::infinity());
  const float hi = onnx::attr_float(n, "max", std::numeric_limits<float>::infinity());
  return make_device_kernel(n, [lo, hi](KernelContext& ctx, const Options& opt) {
    const TensorRef& x = ctx.input(0);
    const Operand dst = device_dst(ctx.output(0, x.desc.shape), opt, "the output");
    const ConstOperand l = ConstOperand::scalar(lo, x.desc.dtype);
    const ConstOperand h = ConstOperand::scalar(hi, x.desc.dtype);
    clip(dst, device_src(x, opt, "input 0"), std::isinf(lo) ? nullptr : &l,
         std::isinf(hi) ? nullptr : &h, opt);
  });
}

Reason supports_clip_inputs(const Graph& g, const Node& n) { return clip_reason(g, n); }
std::unique_ptr<Kernel> create_clip_inputs(const Graph&, const Node& n) {
  return make_device_kernel(n, [](KernelContext& ctx, const Options& opt) {
    const TensorRef& x = ctx.input(0);
    const Operand dst = device_dst(ctx.output(0, x.desc.shape), opt, "the output");
    const auto bound = [&](int i, const char* what) -> std::optional<ConstOperand> {
      if (i >= ctx.num_inputs() || !ctx.input(i).present()) return std::nullopt;
      const TensorRef& b = ctx.input(i);
      require(element_count(b.desc) == 1, [&] {
        return std::string("cuda Clip: ") + what + " must be a scalar, got " + to_string(b.desc);
      });
      // A one-element bound viewed as rank 0 broadcasts against any input.
      TensorDesc d = b.desc;
      d.shape.clear();
      d.strides.clear();
      return ConstOperand(d, device_src(b, opt, what).data);
    };
    const std::optional<ConstOperand> lo = bound(1, "min"), hi = bound(2, "max");
    clip(dst, device_src(x, opt, "input 0"), lo ? &*lo : nullptr, hi ? &*hi : nullptr, opt);
  });
}

}  // namespace geon::cuda
