// LayerNormalization (float) on oneDNN's layer_normalization_forward: x seen as a dense
// [rows, n] matrix (dims before `axis` are rows), scale and bias broadcast to x[axis:] as n
// values. With the Mean / InvStdDev outputs the primitive runs in training mode, which hands
// back mean and variance; InvStdDev = 1 / sqrt(variance + epsilon) is formed here.
#include <array>
#include <cmath>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/dnnl/ops.h"
#include "kernels/cpu/dnnl/primitive_cache.h"
#include "kernels/cpu/dnnl/runtime.h"

namespace geon::cpu {
namespace {

struct LnPrim {
  dnnl::layer_normalization_forward prim;
  dnnl::memory::desc data, stat, param, scratch;
  size_t scratch_bytes = 0;
};

// Primitives per (rows, n, bias given, statistics wanted), made once.
class LayerNormCache {
 public:
  explicit LayerNormCache(float eps) : eps_(eps) {}
  std::shared_ptr<const LnPrim> get(int64_t rows, int64_t n, bool shift, bool stats) const {
    const std::array<int64_t, 4> key{rows, n, shift, stats};
    return cache_.get(key, [&] { return make(rows, n, shift, stats); });
  }

 private:
  std::shared_ptr<const LnPrim> make(int64_t rows, int64_t n, bool shift, bool stats) const {
    using tag = dnnl::memory::format_tag;
    const auto f32 = dnnl::memory::data_type::f32;
    const dnnl::memory::desc data({rows, n}, f32, tag::ab), stat({rows}, f32, tag::a),
        param({n}, f32, tag::a);
    auto flags = dnnl::normalization_flags::use_scale;
    if (shift) flags = flags | dnnl::normalization_flags::use_shift;
    const dnnl::layer_normalization_forward::desc d(
        stats ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference, data, stat,
        eps_, flags);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::layer_normalization_forward::primitive_desc pd(d, attr, dnnl_engine());
    auto p = std::make_shared<LnPrim>(
        LnPrim{dnnl::layer_normalization_forward(pd), data, stat, param, pd.scratchpad_desc(), 0});
    p->scratch_bytes = p->scratch.get_size();
    return p;
  }

  float eps_;
  PrimitiveCache<std::array<int64_t, 4>, LnPrim> cache_{64};
};

// A dense float copy of t broadcast to `shape` (or t's own memory when it already is that).
const float* dense_float(const TensorRef& t, const Dims& shape, std::vector<float>& scratch) {
  const TensorDesc d = broadcast_to(t.desc, shape);
  if (is_contiguous(d)) return static_cast<const float*>(t.data) + d.offset;
  scratch.resize(static_cast<size_t>(element_count(shape)));
  assign(Operand{row_major(DType::kFloat, shape), scratch.data()}, ConstOperand(d, t.data));
  return scratch.data();
}

struct LnSetup {
  std::shared_ptr<LayerNormCache> cache;
  int64_t axis;
  float eps;
  bool want_mean, want_inv;
};

void run_layer_norm(const LnSetup& s, KernelContext& ctx) {
  const TensorRef& x = ctx.input(0);
  const int r = x.desc.rank();
  const int axis = normalize_axis(s.axis, r);
  const Dims& shape = x.desc.shape;
  const Dims tail(shape.begin() + axis, shape.end());
  int64_t rows = 1, n = 1;
  for (int i = 0; i < r; ++i) (i < axis ? rows : n) *= shape[i];
  const TensorRef& y = ctx.output(0, shape);
  Dims stat_shape(shape.begin(), shape.begin() + axis);
  stat_shape.resize(r, 1);
  const bool stats = s.want_mean || s.want_inv;
  std::vector<float> mean(static_cast<size_t>(rows)), var(static_cast<size_t>(rows));
  if (rows * n > 0) {
    std::vector<float> xs, ys, ss, bs;
    const float* xp = dense_float(x, shape, xs);
    const bool direct = is_contiguous(y.desc);
    if (!direct) ys.resize(static_cast<size_t>(rows * n));
    float* yp = direct ? static_cast<float*>(y.data) + y.desc.offset : ys.data();
    const float* sp = dense_float(ctx.input(1), tail, ss);
    const bool shift = ctx.num_inputs() > 2 && ctx.input(2).present();
    const float* bp = shift ? dense_float(ctx.input(2), tail, bs) : nullptr;

    // Blocks of rows across the pool, each one primitive call on its thread.
    dnnl_parallel(rows, dnnl_parts(rows, double(rows) * n, 1 << 14), [&](int64_t f, int64_t l) {
      const auto p = s.cache->get(l - f, n, shift, stats);
      std::array<dnnl_exec_arg_t, 6> args{};
      int count = 0;
      auto add = [&](int arg, const dnnl::memory::desc& md, const void* at) {
        args[count++] = dnnl_thread_arg(arg, md, at);
      };
      add(DNNL_ARG_SRC, p->data, xp + f * n);
      add(DNNL_ARG_DST, p->data, yp + f * n);
      add(DNNL_ARG_SCALE, p->param, sp);
      if (shift) add(DNNL_ARG_SHIFT, p->param, bp);
      if (stats) {
        add(DNNL_ARG_MEAN, p->stat, mean.data() + f);
        add(DNNL_ARG_VARIANCE, p->stat, var.data() + f);
      }
      dnnl_run(p->prim, std::span(args.data(), count), p->scratch, p->scratch_bytes,
               "oneDNN layer normalization: execution failed");
    });
    if (!direct) assign(dst_of(y), ConstOperand(row_major(DType::kFloat, shape), ys.data()));
  } else if (n == 0) {
    std::fill(mean.begin(), mean.end(), std::nanf(""));
    std::fill(var.begin(), var.end(), std::nanf(""));
  }
  auto write = [&](int i, const std::vector<float>& v) {
    const TensorRef& o = ctx.output(i, stat_shape);
    if (rows > 0) assign(dst_of(o), ConstOperand(row_major(DType::kFloat, stat_shape), v.data()));
  };
  if (s.want_mean) write(1, mean);
  if (s.want_inv) {
    for (float& v : var) v = 1.0f / std::sqrt(v + s.eps);
    write(2, var);
  }
}

bool wants(const Node& n, int i) {
  return i < static_cast<int>(n.outputs.size()) && n.outputs[i] >= 0;
}

}  // namespace

Reason supports_dnnl_layer_norm(const Graph& g, const Node& n) {
  for (int i = 0; i < static_cast<int>(n.inputs.size()); ++i)
    if (has_input(n, i) && input_dtype(g, n, i) != DType::kFloat)
      return "oneDNN layer normalization here takes float only, input " + std::to_string(i) +
             " is " + std::string(dtype_name(input_dtype(g, n, i)));
  for (int i = 0; i < static_cast<int>(n.outputs.size()); ++i)
    if (wants(n, i) && output_dtype(g, n, i) != DType::kFloat)
      return "oneDNN layer normalization here writes float only, output " + std::to_string(i) +
             " is " + std::string(dtype_name(output_dtype(g, n, i)));
  return std::nullopt;
}

std::unique_ptr<Kernel> create_dnnl_layer_norm(const Graph&, const Node& n) {
  const float eps = attr_float(n, "epsilon", 1e-5f);
  const LnSetup s{std::make_shared<LayerNormCache>(eps), attr_int(n, "axis", -1), eps, wants(n, 1),
                  wants(n, 2)};
  return make_kernel([s, op = n.op](KernelContext& ctx) {
    try {
      run_layer_norm(s, ctx);
    } catch (const dnnl::error& e) {
      fail(ErrorCode::kInternal, op + ": oneDNN: " + e.what());
    } catch (const Error& e) {
      fail(e.code(), op + ": " + e.what());
    }
  });
}

}  // namespace geon::cpu
