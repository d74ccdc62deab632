// geon.FusedPointwiseDepthwise (core/passes/fuse_pointwise_depthwise.h) on the native AVX2
// kernel (kernels/cpu/native/pointwise_depthwise.h). Taken only where that kernel is the
// faster way: machines where the native convolutions are preferred, 1x1 sides of stride 1 and
// no pads, a 3x3 depthwise side of stride 1 or 2 with pads of 1, and an intermediate of at
// least 1 MiB an image (smaller ones stay in cache between separate nodes, which ran as fast).
// X, Y and Z in another layout than channels-last go through copies.
#include <algorithm>

#include "core/base/error.h"
#include "core/passes/fuse_pointwise_depthwise.h"
#include "kernels/cpu/conv_params.h"
#include "kernels/cpu/dnnl/ops.h"
#include "kernels/cpu/native/cpu_isa.h"
#include "kernels/cpu/native/pointwise_depthwise.h"
#include "kernels/cpu/native/tile_runner.h"

namespace geon::cpu {
namespace {

constexpr int64_t kMinIntermediateBytes = int64_t{1} << 20;

bool all_equal(const std::vector<int64_t>& v, int64_t x) {
  return std::all_of(v.begin(), v.end(), [x](int64_t e) { return e == x; });
}

// A fixed float constant of this shape (the node's weights and biases); absent is fine for a
// bias (`optional`).
Reason weight_reason(const Graph& g, const Node& n, int i, const Dims& shape, const char* what,
                     const char* shape_text, bool optional) {
  if (!has_input(n, i)) return optional ? Reason() : Reason(std::string(what) + " is required");
  const Value& v = g.value(n.inputs[i]);
  if (v.kind != ValueKind::kConstant || v.overridable || !v.data)
    return std::string(what) + " must be a constant no feed can replace";
  if (v.data->desc.dtype != DType::kFloat || v.data->desc.shape != shape)
    return std::string(what) + " must be float of shape " + shape_text;
  return std::nullopt;
}

struct Sides {
  ConvAttrs pw, dw, pj;
  Activation act1, act2, act3;
  bool projects = false, residual = false;
};

Reason read_sides(const Node& n, Sides* s) {
  const Node pw = pointwise_side(n), dw = depthwise_side(n), pj = projection_side(n);
  if (Reason r = read_conv_attrs(pw, false, &s->pw)) return "1x1 side: " + *r;
  if (Reason r = read_conv_attrs(dw, false, &s->dw)) return "depthwise side: " + *r;
  if (Reason r = read_activation(pw, &s->act1)) return "1x1 side: " + *r;
  if (Reason r = read_activation(dw, &s->act2)) return "depthwise side: " + *r;
  s->projects = has_input(n, 5);
  s->residual = has_input(n, 7);
  if (s->residual && !s->projects) return std::string("a residual Z needs the projection W3");
  if (s->projects) {
    if (Reason r = read_conv_attrs(pj, false, &s->pj)) return "projection: " + *r;
    if (Reason r = read_activation(pj, &s->act3)) return "projection: " + *r;
  }
  return std::nullopt;
}

bool unit_pointwise(const ConvAttrs& a) {
  return a.auto_pad == ConvAutoPad::kNotSet && all_equal(a.strides, 1) && all_equal(a.pads, 0) &&
         all_equal(a.dilations, 1) && a.group == 1;
}

Reason node_reason(const Graph& g, const Node& n) {
  if (!native_fused_block_preferred())
    return std::string("the native AVX2 kernels are not allowed on this machine");
  if (!has_input(n, 0) || input_dtype(g, n, 0) != DType::kFloat)
    return std::string("X must be float");
  const Value& x = g.value(n.inputs[0]);
  if (!x.rank_known || x.rank() != 4) return std::string("X must be 4-D");
  Sides s;
  if (Reason r = read_sides(n, &s)) return r;
  if (!unit_pointwise(s.pw) || (s.projects && !unit_pointwise(s.pj)))
    return std::string("the 1x1 sides must have stride 1, no pads and no dilation");
  const int64_t stride = s.dw.strides.empty() ? 1 : s.dw.strides[0];
  if (s.dw.auto_pad != ConvAutoPad::kNotSet || s.dw.strides.size() > 2 ||
      !all_equal(s.dw.strides, stride) || (stride != 1 && stride != 2) || s.dw.pads.size() != 4 ||
      !all_equal(s.dw.pads, 1) || !all_equal(s.dw.dilations, 1))
    return std::string("the depthwise side must have stride 1 or 2 and pads of 1");
  const Value& w1v = g.value(n.inputs[1]);
  if (!w1v.data || w1v.data->desc.rank() != 4) return std::string("W1 must be a 4-D constant");
  const int64_t m = w1v.data->desc.shape[0], c = w1v.data->desc.shape[1];
  if (m % 8 != 0)
    return "the intermediate has " + std::to_string(m) + " channels, not a multiple of 8";
  if (s.dw.group != m) return std::string("the depthwise side must have one group a channel");
  int64_t k = 0;
  if (s.projects) {
    const Value& w3v = g.value(n.inputs[5]);
    if (!w3v.data || w3v.data->desc.rank() != 4) return std::string("W3 must be a 4-D constant");
    k = w3v.data->desc.shape[0];
  }
  for (Reason r :
       {weight_reason(g, n, 1, {m, c, 1, 1}, "W1", "(M, C, 1, 1)", false),
        weight_reason(g, n, 2, {m}, "B1", "(M)", true),
        weight_reason(g, n, 3, {m, 1, 3, 3}, "W2", "(M, 1, 3, 3)", false),
        weight_reason(g, n, 4, {m}, "B2", "(M)", true),
        s.projects ? weight_reason(g, n, 5, {k, m, 1, 1}, "W3", "(K, M, 1, 1)", false) : Reason(),
        s.projects ? weight_reason(g, n, 6, {k}, "B3", "(K)", true) : Reason()})
    if (r) return r;
  if (s.residual && input_dtype(g, n, 7) != DType::kFloat) return std::string("Z must be float");
  for (const Activation* a : {&s.act1, &s.act2, &s.act3})
    if (!native::tile_activation(*a)) return std::string("an activation the native kernel lacks");
  for (int d : {1, 2, 3})
    if (!x.axes[d].length.is_static())
      return std::string("X's channels and spatial size must be static");
  if (x.axes[1].length.value != c) return std::string("X's channels do not match W1");
  const int64_t bytes = m * x.axes[2].length.value * x.axes[3].length.value * 4;
  if (bytes < kMinIntermediateBytes)
    return "an intermediate of " + std::to_string(bytes) +
           " bytes an image stays in cache: the convolutions run apart";
  return std::nullopt;
}

const TensorData* constant_of(const Graph& g, const Node& n, int i) {
  return has_input(n, i) ? g.value(n.inputs[i]).data.get() : nullptr;
}

// A dense channels-last copy of v (in `buf`), or v itself when it is one.
ConstOperand channels_last_view(const ConstOperand& v, std::vector<float>& buf) {
  if (is_channels_last(v.desc)) return v;
  const TensorDesc d = channels_last(DType::kFloat, v.desc.shape);
  buf.resize(static_cast<size_t>(element_count(d)));
  assign(Operand{d, buf.data()}, v);
  return ConstOperand(d, buf.data());
}

}  // namespace

Reason supports_dnnl_pointwise_depthwise(const Graph& g, const Node& n) {
  return node_reason(g, n);
}

std::unique_ptr<Kernel> create_dnnl_pointwise_depthwise(const Graph& g, const Node& n) {
  const std::string op = "FusedPointwiseDepthwise" + (n.name.empty() ? "" : " '" + n.name + "'");
  if (Reason r = node_reason(g, n)) fail(ErrorCode::kNotSupported, op + ": " + *r);
  Sides s;
  read_sides(n, &s);
  PointwiseDepthwiseWeights w;
  w.w1 = constant_of(g, n, 1);
  w.b1 = constant_of(g, n, 2);
  w.w2 = constant_of(g, n, 3);
  w.b2 = constant_of(g, n, 4);
  w.w3 = constant_of(g, n, 5);
  w.b3 = constant_of(g, n, 6);
  w.act1 = s.act1;
  w.act2 = s.act2;
  w.act3 = s.act3;
  w.stride = s.dw.strides.empty() ? 1 : s.dw.strides[0];
  std::shared_ptr<const PointwiseDepthwise> k = PointwiseDepthwise::make(w);
  if (!k) fail(ErrorCode::kNotSupported, op + ": the native kernel declined its weights");
  std::vector<int> packed;
  for (int i = 1; i <= 6; ++i)
    if (has_input(n, i)) packed.push_back(i);
  const bool residual = s.residual;
  return make_kernel(
      [k, op, residual](KernelContext& ctx) {
        const ConstOperand x = src_of(ctx.input(0));
        const Dims& xs = x.desc.shape;
        require(xs.size() == 4 && xs[1] == k->in_channels(), [&] {
          return op + ": X " + to_string(x.desc) + " does not have the weights' " +
                 std::to_string(k->in_channels()) + " channels";
        });
        const Dims ys = k->output_shape(xs);
        std::optional<ConstOperand> z;
        if (residual) {
          z = src_of(ctx.input(7));
          require(z->desc.shape == ys, [&] {
            return op + ": Z " + to_string(z->desc) + " does not have the output's shape";
          });
        }
        const TensorRef& out = ctx.output(0, ys);
        if (element_count(ys) == 0) return;
        const Operand dst = dst_of(out);
        if (k->run(x, z ? &*z : nullptr, dst)) return;
        // Another layout (a graph input or output, a view): through channels-last copies.
        std::vector<float> xb, zb, yb;
        const ConstOperand xl = channels_last_view(x, xb);
        std::optional<ConstOperand> zl;
        if (z) {
          // A copy also when Z is channels-last over dst's memory: the kernel writes dst first.
          zb.resize(static_cast<size_t>(element_count(ys)));
          const TensorDesc zd = channels_last(DType::kFloat, ys);
          assign(Operand{zd, zb.data()}, *z);
          zl = ConstOperand(zd, zb.data());
        }
        const TensorDesc yd = channels_last(DType::kFloat, ys);
        yb.resize(static_cast<size_t>(element_count(yd)));
        require(k->run(xl, zl ? &*zl : nullptr, Operand{yd, yb.data()}),
                [&] { return op + ": the native kernel declined X " + to_string(x.desc); });
        assign(dst, ConstOperand(yd, yb.data()));
      },
      std::move(packed));
}

}  // namespace geon::cpu
