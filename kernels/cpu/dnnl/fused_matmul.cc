// geon.FusedMatMul on oneDNN (fused.md): Y = act(alpha·A·B + Bias + Z) with numpy MatMul batch
// broadcasting. A constant 2-D B is prepacked once (as MatMul's is): the packed product adds
// the bias and Z (copied into Y, a sum post-op) and applies the activation as an eltwise
// post-op itself; where oneDNN has no such primitive the activation follows as one in-place
// oneDNN eltwise pass (an engine pass of Gelu made BERT-base's FFN1 1.6x slower), or an engine
// pass where oneDNN has only reference code. Otherwise one matmul primitive does it
// all: Bias as its bias, Z by the sum post-op, the activation as eltwise post-ops (HardSigmoid
// as linear + clip). Views oneDNN cannot take, or alpha with a bias, go the general way: the
// product, then the engine.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/passes/activation.h"
#include "kernels/cpu/dnnl/matmul_core.h"
#include "kernels/cpu/dnnl/nan_guard.h"
#include "kernels/cpu/dnnl/ops.h"
#include "kernels/cpu/dnnl/packed_matmul.h"
#include "kernels/cpu/dnnl/primitive_cache.h"
#include "kernels/cpu/dnnl/runtime.h"

namespace geon::cpu {
namespace {

using passes::Activation;

// The activation as oneDNN eltwise post-ops.
std::vector<MatmulPostOps::Eltwise> eltwise_of(const Activation& a) {
  using E = MatmulPostOps::Eltwise;
  const std::string& op = a.op;
  if (op.empty()) return {};
  if (op == "Relu") return {E{dnnl_eltwise_relu, 0.0f, 0.0f}};
  if (op == "LeakyRelu") return {E{dnnl_eltwise_relu, a.alpha, 0.0f}};
  if (op == "Clip") return {E{dnnl_eltwise_clip, a.alpha, a.beta}};
  if (op == "Sigmoid") return {E{dnnl_eltwise_logistic, 0.0f, 0.0f}};
  if (op == "Tanh") return {E{dnnl_eltwise_tanh, 0.0f, 0.0f}};
  if (op == "HardSigmoid")
    return {E{dnnl_eltwise_linear, a.alpha, a.beta}, E{dnnl_eltwise_clip, 0.0f, 1.0f}};
  if (op == "HardSwish") return {E{dnnl_eltwise_hardswish, 0.0f, 0.0f}};
  if (op == "Elu") return {E{dnnl_eltwise_elu, a.alpha, 0.0f}};
  if (op == "Gelu") return {E{dnnl_eltwise_gelu_erf, 0.0f, 0.0f}};
  if (op == "GeluTanh") return {E{dnnl_eltwise_gelu_tanh, 0.0f, 0.0f}};
  fail(ErrorCode::kNotSupported, "geon.FusedMatMul: unknown activation '" + op + "'");
}

// The activation as an engine expression over (y, lo, hi), evaluated in place in one pass.
struct EngineActivation {
  std::shared_ptr<const Expr> expr;  // null: no activation
  float lo = 0, hi = 0;              // Clip's bounds
};
EngineActivation engine_activation(const Activation& a) {
  EngineActivation out;
  if (a.op.empty()) return out;
  const DType f = DType::kFloat;
  const std::vector<DType> in = {f, f, f};
  ExprBuilder b(in);
  OpParams p;
  const ExprArg x = b.input(0);
  if (a.op == "Clip") {
    b.apply("clip", {x, b.input(1), b.input(2)});
    out.lo = a.alpha;
    out.hi = a.beta;
  } else if (a.op == "LeakyRelu" || a.op == "Elu" || a.op == "HardSigmoid") {
    p.alpha = a.alpha;
    p.beta = a.beta;
    b.apply(a.op == "LeakyRelu" ? "leaky_relu"
            : a.op == "Elu"     ? "elu"
                                : "hard_sigmoid",
            {x}, {}, p);
  } else {
    static const std::pair<const char*, const char*> kPlain[] = {
        {"Relu", "relu"}, {"Sigmoid", "sigmoid"},   {"Tanh", "tanh"}, {"HardSwish", "hard_swish"},
        {"Gelu", "gelu"}, {"GeluTanh", "gelu_tanh"}};
    const char* op = nullptr;
    for (const auto& [onnx, engine] : kPlain)
      if (a.op == onnx) op = engine;
    if (!op) fail(ErrorCode::kNotSupported, "geon.FusedMatMul: unknown activation '" + a.op + "'");
    b.apply(op, {x});
  }
  out.expr = std::make_shared<const Expr>(b.build());
  return out;
}

void activate(const EngineActivation& act, const Operand& y) {
  if (!act.expr || element_count(y.desc) == 0) return;
  const ConstOperand srcs[3] = {ConstOperand(y), ConstOperand::scalar(act.lo, DType::kFloat),
                                ConstOperand::scalar(act.hi, DType::kFloat)};
  evaluate(*act.expr, y, srcs);
}

// The activation as in-place oneDNN eltwise primitives over a dense float buffer, one list
// per element count (cached; any thread may run them). An empty list: no fast one, or none to
// apply.
class DnnlActivation {
 public:
  explicit DnnlActivation(std::vector<MatmulPostOps::Eltwise> ops) : ops_(std::move(ops)) {}

  // False, with nothing written, when there is no activation or oneDNN has only reference
  // code for it (the caller then takes the engine pass).
  bool apply(const Operand& y) const {
    if (ops_.empty() || y.desc.dtype != DType::kFloat || !is_contiguous(y.desc)) return false;
    const int64_t count = element_count(y.desc);
    if (count == 0) return true;
    // Blocks across the pool; equal blocks have at most two lengths, checked before any runs.
    const int parts = dnnl_parts(count, static_cast<double>(count), 1 << 15);
    for (const int64_t n : {count / parts, (count + parts - 1) / parts})
      if (n > 0 && entry(n)->prims.empty()) return false;
    float* base = static_cast<float*>(y.data) + y.desc.offset;
    dnnl_parallel(count, parts, [&](int64_t first, int64_t last) {
      const std::shared_ptr<const Entry> e = entry(last - first);
      const dnnl_exec_arg_t src = dnnl_thread_arg(DNNL_ARG_SRC, e->md, base + first);
      const dnnl_exec_arg_t args[] = {src, {DNNL_ARG_DST, src.memory}};  // in place
      for (const dnnl::eltwise_forward& p : e->prims)
        dnnl_run(p, args, {}, 0, "oneDNN activation: execution failed");
    });
    return true;
  }

 private:
  struct Entry {
    dnnl::memory::desc md;
    std::vector<dnnl::eltwise_forward> prims;
  };
  static constexpr size_t kMaxCached = 256;

  std::shared_ptr<const Entry> entry(int64_t count) const {
    return cache_.get(count, [&] { return make_entry(count); });
  }

  std::shared_ptr<const Entry> make_entry(int64_t count) const {
    auto e = std::make_shared<Entry>();
    e->md = dnnl::memory::desc({count}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
    try {
      for (const MatmulPostOps::Eltwise& op : ops_) {
        const dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference,
                                            static_cast<dnnl::algorithm>(op.alg), e->md, op.alpha,
                                            op.beta);
        const dnnl::eltwise_forward::primitive_desc pd(d, dnnl_engine());
        if (std::string(pd.impl_info_str()).find("ref") != std::string::npos) {
          e->prims.clear();
          break;
        }
        e->prims.emplace_back(pd);
      }
    } catch (const dnnl::error&) {
      e->prims.clear();
    }
    return e;
  }

  std::vector<MatmulPostOps::Eltwise> ops_;
  PrimitiveCache<int64_t, Entry> cache_{kMaxCached};
};

// A bias of N values in a row (any leading length-1 dims), as the packed product takes it.
bool is_bias_row(const TensorDesc& d, int64_t n) {
  return d.rank() >= 1 && d.shape.back() == n && element_count(d) == n;
}

// The packed path's operands and output shape, one set per thread, assigned per call: their
// descriptions keep their memory between calls. A small product is dominated by what runs
// around it, and fresh copies of four descriptions cost seven allocations a node. Nothing the
// packed product runs calls back into this kernel on the same thread.
struct PackedCall {
  ConstOperand a, bias;
  Operand y;
  Dims shape;
};
PackedCall& packed_call() {
  thread_local PackedCall call;
  return call;
}

void set(ConstOperand& to, const TensorRef& from) {
  to.desc = from.desc;
  to.data = from.data;
}

struct Config {
  bool trans_b = false;
  float alpha = 1.0f;
  EngineActivation act;
  std::shared_ptr<const DnnlActivation> dnnl_act;  // act by oneDNN, on the packed path
  MatmulPostOps post;                              // eltwise part; sum is set per call
  std::shared_ptr<const DnnlPackedMatmul> packed;  // alpha·B for a constant 2-D B, or null
  std::optional<cpu::Activation> fusable;          // act in conv_params' terms, where it has them
  // Whether oneDNN's form of act turns NaN into a number (nan_guard.h), and then the largest
  // magnitude in alpha·B where B is packed (+inf for a NaN).
  bool drops_nan = false;
  float packed_b_max = 0.0f;
};

// Whether a run may take oneDNN's activation: it drops no NaN, or no input holds a NaN for it
// to drop and the sums cannot overflow into +inf - inf.
bool onednn_activation_exact(const Config& cfg, KernelContext& ctx, bool has_bias, bool has_z) {
  if (!cfg.drops_nan) return true;
  const auto largest = [&](int i) { return max_abs(ctx.input(i).desc, ctx.input(i).data); };
  const TensorDesc& a = ctx.input(0).desc;
  const double k = a.rank() > 0 ? static_cast<double>(a.shape.back()) : 1.0;
  const float b_max = cfg.packed ? cfg.packed_b_max : std::fabs(cfg.alpha) * largest(1);
  return native::sums_stay_finite(k, largest(0), b_max,
                                  (has_bias ? largest(2) : 0.0f) + (has_z ? largest(3) : 0.0f));
}

// Y with the packed B, when the run's input 1 is that matrix and A (rank >= 2) fits it; the
// output is `out`, already taken with A's leading dims and N. False: the general path.
// exact(): onednn_activation_exact for this run, asked only where oneDNN would apply it.
template <class Exact>
bool run_packed(const Config& cfg, KernelContext& ctx, const TensorRef& out, bool has_bias,
                bool has_z, Exact&& exact) {
  PackedCall& call = packed_call();
  if (has_bias) {
    if (!is_bias_row(ctx.input(2).desc, out.desc.shape.back())) return false;
    set(call.bias, ctx.input(2));
  }
  call.y.desc = out.desc;
  call.y.data = out.data;
  const Operand& y = call.y;
  if (has_z) assign(y, src_of(ctx.input(3)));
  set(call.a, ctx.input(0));
  const ConstOperand& a_rows = call.a;
  const ConstOperand* b = has_bias ? &call.bias : nullptr;
  const float beta = has_z ? 1.0f : 0.0f;
  // The activation inside the product (oneDNN's post-ops, or the epilogue of geon's own small
  // product): Y is written once.
  // geon's own small product keeps NaN, so the check waits until oneDNN's post-ops would run.
  const cpu::Activation* fusable = cfg.fusable ? &*cfg.fusable : nullptr;
  if (cfg.packed->run(a_rows, y, b, beta, cfg.post.eltwise, fusable, !cfg.drops_nan)) return true;
  if (cfg.drops_nan && exact() && cfg.packed->run(a_rows, y, b, beta, cfg.post.eltwise, fusable))
    return true;
  if (cfg.post.eltwise.empty() || !cfg.packed->run(a_rows, y, b, beta)) return false;
  if (cfg.drops_nan || !cfg.dnnl_act->apply(y)) activate(cfg.act, y);  // the engine keeps NaN
  return true;
}

void compute(const DnnlMatmul& mm, const Config& cfg, KernelContext& ctx) {
  const bool has_bias = ctx.num_inputs() > 2 && ctx.input(2).present();
  const bool has_z = ctx.num_inputs() > 3 && ctx.input(3).present();
  const auto check_z = [&](const Dims& out_shape) {
    if (has_z && ctx.input(3).desc.shape != out_shape)
      fail(ErrorCode::kInvalidArgument,
           "FusedMatMul: Z " + to_string(ctx.input(3).desc) + " is not the output's shape");
  };
  // Where oneDNN's activation would turn a NaN into a number, the general path below (asked
  // once a run, and only where oneDNN's activation would run).
  std::optional<bool> exact_memo;
  const auto exact = [&] {
    if (!exact_memo) exact_memo = onednn_activation_exact(cfg, ctx, has_bias, has_z);
    return *exact_memo;
  };
  // The packed path first, before any view is worked out: small products are dominated by
  // what runs around them.
  const TensorRef* out = nullptr;
  const TensorDesc& a_in = ctx.input(0).desc;
  if (cfg.packed && a_in.rank() >= 2 && ctx.input(1).desc.shape == cfg.packed->packed_shape()) {
    const Dims& b_shape = cfg.packed->packed_shape();
    if (a_in.shape.back() == b_shape[cfg.trans_b ? 1 : 0]) {
      Dims& shape = packed_call().shape;
      shape = a_in.shape;
      shape.back() = b_shape[cfg.trans_b ? 0 : 1];
      check_z(shape);
      out = &ctx.output(0, shape);
      if (run_packed(cfg, ctx, *out, has_bias, has_z, exact)) return;
    }
  }

  TensorDesc a = a_in, b = ctx.input(1).desc;
  if (cfg.trans_b) {
    require(b.rank() >= 2, "FusedMatMul: trans_b needs a matrix B");
    std::vector<int64_t> perm(static_cast<size_t>(b.rank()));
    for (int i = 0; i < b.rank(); ++i) perm[i] = i;
    std::swap(perm[b.rank() - 1], perm[b.rank() - 2]);
    b = permute(b, perm);
  }
  const MatmulViews v = matmul_views(a, b, "FusedMatMul");
  a = v.a;
  b = v.b;
  const bool a_vec = v.a_vec, b_vec = v.b_vec;
  const int rank = v.rank;
  if (!out) {
    check_z(v.out_shape);
    out = &ctx.output(0, v.out_shape);
  }
  const TensorDesc dst = v.dst(out->desc);
  const ConstOperand A(a, ctx.input(0).data);
  const Operand Y{dst, out->data};

  const PlainB plain = plain_b(ctx, cfg.packed.get());
  const ConstOperand B(b, plain.data);
  const float alpha = plain.scaled ? 1.0f : cfg.alpha;  // an unpacked B holds alpha·B
  // One primitive: the bias as its own (lifted to dst's rank), Z by the sum post-op.
  // (With a promoted vector operand the output lost a dim: such a bias takes the general path.)
  std::optional<ConstOperand> bias;
  if (has_bias && !a_vec && !b_vec && ctx.input(2).desc.rank() <= rank)
    bias = ConstOperand(lift(ctx.input(2).desc, rank), ctx.input(2).data);
  if ((!has_bias || bias) && (alpha == 1.0f || !has_bias) && exact()) {
    MatmulPostOps post = cfg.post;
    post.sum = has_z;
    if (has_z) assign(dst_of(*out), src_of(ctx.input(3)));
    if (mm.run_fused(A, B, bias ? &*bias : nullptr, Y, alpha, post)) return;
  }
  // General path: the product, then each addend, then the activation.
  mm.run(A, B, Y, alpha, 0.0f);
  if (has_bias) binary("add", dst_of(*out), dst_of(*out), src_of(ctx.input(2)));
  if (has_z) binary("add", dst_of(*out), dst_of(*out), src_of(ctx.input(3)));
  activate(cfg.act, dst_of(*out));
}

}  // namespace

Reason supports_dnnl_fused_matmul(const Graph& g, const Node& n) {
  if (n.inputs.size() < 2 || n.inputs.size() > 4 || !has_input(n, 0) || !has_input(n, 1))
    return "geon.FusedMatMul takes A, B and optional Bias and Z";
  for (int i = 0; i < static_cast<int>(n.inputs.size()); ++i)
    if (has_input(n, i) && input_dtype(g, n, i) != DType::kFloat)
      return "geon.FusedMatMul here takes float only, input " + std::to_string(i) + " is " +
             std::string(dtype_name(input_dtype(g, n, i)));
  for (int i = 0; i < 2; ++i) {
    const Value& v = g.value(n.inputs[i]);
    if (v.rank_known && (v.rank() < 1 || v.rank() > 12))
      return "geon.FusedMatMul operand rank " + std::to_string(v.rank()) + " is outside 1..12";
  }
  if (attr_int(n, "trans_b", 0) != 0 && g.value(n.inputs[1]).rank_known &&
      g.value(n.inputs[1]).rank() < 2)
    return "geon.FusedMatMul: trans_b needs a matrix B";
  const std::string act = attr_string(n, "activation", "");
  if (!passes::known_activation(act)) return "geon.FusedMatMul: unknown activation '" + act + "'";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_dnnl_fused_matmul(const Graph& g, const Node& n) {
  auto mm = std::make_shared<DnnlMatmul>();
  Config cfg;
  cfg.trans_b = attr_int(n, "trans_b", 0) != 0;
  cfg.alpha = attr_float(n, "alpha", 1.0f);
  const passes::Activation act = passes::read_activation(n);
  cfg.act = engine_activation(act);
  cfg.post.eltwise = eltwise_of(act);
  cfg.dnnl_act = std::make_shared<const DnnlActivation>(cfg.post.eltwise);
  cfg.packed = packed_constant(g, n, 1, cfg.trans_b, cfg.alpha);
  if (cpu::Activation a; !read_activation(n, &a)) cfg.fusable = a;
  cfg.drops_nan = cfg.fusable && onednn_drops_nan(*cfg.fusable);
  if (cfg.packed && cfg.drops_nan) {
    const TensorData& b = *g.value(n.inputs[1]).data;
    cfg.packed_b_max = std::fabs(cfg.alpha) * max_abs(b.desc, b.bytes());
  }
  return make_kernel([mm, cfg](KernelContext& ctx) { compute(*mm, cfg, ctx); },
                     packed_inputs(cfg.packed));
}

}  // namespace geon::cpu
