// The mean/variance normalisations on cpu.generic: BatchNormalization (inference and training),
// InstanceNormalization, GroupNormalization, LayerNormalization, RMSNormalization,
// MeanVarianceNormalization and LpNormalization. Each views its input as rows (the reduced axes
// permuted last, so every row is one contiguous statistic) and runs one vectorisable row loop.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

template <class T>
constexpr DType compute_of() {
  return std::is_same_v<T, double> ? DType::kDouble : DType::kFloat;
}

// Sum of x[0..n) in eight independent lanes, so the compiler can vectorise it.
template <class T, class F>
T lane_sum(int64_t n, F f) {
  T acc[8] = {};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; ++k) acc[k] += f(j + k);
  T s = 0;
  for (; j < n; ++j) s += f(j);
  for (T a : acc) s += a;
  return s;
}

// How rows are normalised. The affine coefficients of element j of row r sit at index
// (r % period) * (n / run) + j / run of the scale and bias tables (a run shares one value).
struct RowNorm {
  bool center = true;       // subtract the mean (RMSNormalization does not)
  bool eps_on_std = false;  // MeanVarianceNormalization: 1 / (std + eps), not 1 / sqrt(var + eps)
  double eps = 1e-5;
  int64_t period = 1, run = 1;
};

// Per-row statistics a node may output, each of length `rows` (null: not wanted).
template <class T>
struct RowStats {
  T* mean = nullptr;
  T* var = nullptr;
  T* inv_std = nullptr;
};

template <class T>
void normalize_rows(const T* x, T* y, int64_t rows, int64_t n, const RowNorm& p, const T* scale,
                    const T* bias, RowStats<T> stats) {
  const int64_t run = std::max<int64_t>(p.run, 1);
  const int64_t groups = n / run;
  parallel_rows(rows, n, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const T* xr = x + r * n;
      T* yr = y + r * n;
      const T mean = p.center ? lane_sum<T>(n, [&](int64_t j) { return xr[j]; }) / T(n) : T(0);
      const T var =
          lane_sum<T>(n, [&](int64_t j) { return (xr[j] - mean) * (xr[j] - mean); }) / T(n);
      const T inv =
          p.eps_on_std ? T(1) / (std::sqrt(var) + T(p.eps)) : T(1) / std::sqrt(var + T(p.eps));
      if (stats.mean) stats.mean[r] = mean;
      if (stats.var) stats.var[r] = var;
      if (stats.inv_std) stats.inv_std[r] = inv;
      const T* s = scale + (r % p.period) * groups;
      const T* b = bias + (r % p.period) * groups;
      if (run == 1) {
        for (int64_t j = 0; j < n; ++j) yr[j] = (xr[j] - mean) * inv * s[j] + b[j];
        continue;
      }
      for (int64_t g = 0; g < groups; ++g) {
        const T a = inv * s[g], c = b[g] - mean * a;
        const T* xg = xr + g * run;
        T* yg = yr + g * run;
        for (int64_t j = 0; j < run; ++j) yg[j] = xg[j] * a + c;
      }
    }
  });
}

// A parameter input as `len` values of T (broadcast to `shape` first when given), or `fill`
// repeated when the input is absent.
template <class T>
std::vector<T> table(const KernelContext& ctx, int i, const Dims& shape, int64_t len, T fill) {
  std::vector<T> out(static_cast<size_t>(len), fill);
  if (i >= ctx.num_inputs() || !ctx.input(i).present() || len == 0) return out;
  const TensorRef& t = ctx.input(i);
  require(element_count(shape) == len, "internal: table shape does not match its length");
  TensorRef view = t;
  view.desc = broadcast_to(t.desc, shape);
  std::vector<std::byte> scratch;
  const T* p = static_cast<const T*>(stage_input(view, {}, compute_of<T>(), scratch));
  std::copy(p, p + len, out.begin());
  return out;
}

// One normalisation run: x seen through perm as [rows, n], y written through the same perm.
template <class T>
void run_rows(KernelContext& ctx, std::span<const int64_t> perm, int64_t rows, int64_t n,
              const RowNorm& p, const std::vector<T>& scale, const std::vector<T>& bias,
              RowStats<T> stats) {
  const TensorRef& x = ctx.input(0);
  const TensorRef& y = ctx.output(0, x.desc.shape);
  std::vector<std::byte> xs, ys;
  const T* xp = static_cast<const T*>(stage_input(x, perm, compute_of<T>(), xs));
  T* yp = static_cast<T*>(stage_output(y, perm, compute_of<T>(), ys));
  if (n == 0) {
    for (T* s : {stats.mean, stats.var, stats.inv_std})
      if (s) std::fill(s, s + rows, std::numeric_limits<T>::quiet_NaN());
  } else {
    normalize_rows(xp, yp, rows, n, p, scale.data(), bias.data(), stats);
  }
  store_output(y, perm, compute_of<T>(), ys);
}

// Writes `values` (dense, in T) into output i with the given shape.
template <class T>
void write_stat(KernelContext& ctx, int i, const Dims& shape, const std::vector<T>& values) {
  const TensorRef& o = ctx.output(i, shape);
  if (element_count(shape) == 0) return;
  assign(dst_of(o), ConstOperand(row_major(compute_of<T>(), shape), values.data()));
}

// Calls f.template operator()<T>() with T the compute type of dtype t.
template <class F>
void dispatch(DType t, F&& f) {
  if (norm_compute_dtype(t) == DType::kDouble)
    f.template operator()<double>();
  else
    f.template operator()<float>();
}

bool wants_output(const Node& n, int i) {
  return i < static_cast<int>(n.outputs.size()) && n.outputs[i] >= 0;
}

Reason float_io(const Graph& g, const Node& n) {
  for (int i = 0; i < static_cast<int>(n.inputs.size()); ++i)
    if (has_input(n, i))
      if (Reason r = norm_dtype_reason(input_dtype(g, n, i), "input " + std::to_string(i)))
        return r;
  for (int i = 0; i < static_cast<int>(n.outputs.size()); ++i)
    if (wants_output(n, i))
      if (Reason r = norm_dtype_reason(output_dtype(g, n, i), "output " + std::to_string(i)))
        return r;
  return std::nullopt;
}

int64_t prod(const Dims& d, int lo, int hi) {
  int64_t p = 1;
  for (int i = lo; i < hi; ++i) p *= d[i];
  return p;
}

void require_rank(const TensorRef& x, int min_rank) {
  require(x.desc.rank() >= min_rank, [&] {
    return "the input has rank " + std::to_string(x.desc.rank()) + ", needs at least " +
           std::to_string(min_rank);
  });
}

// ---- BatchNormalization -----------------------------------------------------------------

// Batch statistics: training_mode = 1 from opset 14, and before opset 7 whenever is_test is 0
// (its default).
bool bn_training(const Node& n) {
  if (n.opset < 7) return attr_int(n, "is_test", 0) == 0;
  return n.opset >= 14 && attr_int(n, "training_mode", 0) == 1;
}

// Inference: y = x * a[c] + b[c] with a = scale / sqrt(var + eps), b = B - mean * a, one
// engine pass over x in any layout and dtype.
template <class T>
void bn_inference(KernelContext& ctx, double eps) {
  const TensorRef& x = ctx.input(0);
  require_rank(x, 2);
  const int64_t c = x.desc.shape[1];
  const Dims cs{c};
  std::vector<T> s = table<T>(ctx, 1, cs, c, 1), b = table<T>(ctx, 2, cs, c, 0),
                 m = table<T>(ctx, 3, cs, c, 0), v = table<T>(ctx, 4, cs, c, 1);
  for (int64_t i = 0; i < c; ++i) {
    const T a = s[i] / std::sqrt(v[i] + T(eps));
    b[i] -= m[i] * a;
    s[i] = a;
  }
  const TensorRef& y = ctx.output(0, x.desc.shape);
  if (element_count(x.desc) == 0) return;
  Dims per_channel(x.desc.rank() - 1, 1);
  per_channel[0] = c;
  const TensorDesc pd = row_major(compute_of<T>(), per_channel);
  const DType types[] = {x.desc.dtype, compute_of<T>(), compute_of<T>()};
  ExprBuilder e(types);
  e.apply("add", {e.apply("mul", {e.input(0), e.input(1)}), e.input(2)});
  const ConstOperand ins[] = {src_of(x), ConstOperand(pd, s.data()), ConstOperand(pd, b.data())};
  evaluate(e.build(), dst_of(y), ins);
}

// Training (opset 14+, or is_test = 0 before 7): normalise with the batch's own statistics per
// channel, and output the running statistics blended with `momentum` where the node asks.
template <class T>
void bn_training_run(KernelContext& ctx, const Node& n, double eps, double momentum) {
  const TensorRef& x = ctx.input(0);
  require_rank(x, 2);
  const int r = x.desc.rank();
  const int64_t c = x.desc.shape[1];
  std::vector<int64_t> perm{1, 0};
  for (int i = 2; i < r; ++i) perm.push_back(i);
  const int64_t per = c == 0 ? 0 : element_count(x.desc) / c;
  const Dims cs{c};
  RowNorm p;
  p.eps = eps;
  p.period = std::max<int64_t>(c, 1);
  p.run = per;
  std::vector<T> mean(c), var(c);
  run_rows<T>(ctx, perm, c, per, p, table<T>(ctx, 1, cs, c, 1), table<T>(ctx, 2, cs, c, 0),
              {mean.data(), var.data(), nullptr});
  const std::vector<T> rm = table<T>(ctx, 3, cs, c, 0), rv = table<T>(ctx, 4, cs, c, 1);
  std::vector<T> out_mean(c), out_var(c);
  for (int64_t i = 0; i < c; ++i) {
    out_mean[i] = rm[i] * T(momentum) + mean[i] * T(1 - momentum);
    out_var[i] = rv[i] * T(momentum) + var[i] * T(1 - momentum);
  }
  if (wants_output(n, 1)) write_stat(ctx, 1, cs, out_mean);
  if (wants_output(n, 2)) write_stat(ctx, 2, cs, out_var);
}

// ---- Instance, group, layer and RMS normalisation -----------------------------------------

template <class T>
void instance_run(KernelContext& ctx, double eps) {
  const TensorRef& x = ctx.input(0);
  require_rank(x, 2);
  const Dims& s = x.desc.shape;
  const int64_t c = s[1], per = prod(s, 2, x.desc.rank());
  RowNorm p;
  p.eps = eps;
  p.period = std::max<int64_t>(c, 1);
  p.run = per;
  run_rows<T>(ctx, {}, s[0] * c, per, p, table<T>(ctx, 1, {c}, c, 1), table<T>(ctx, 2, {c}, c, 0),
              {});
}

// Opset 18 has one scale and bias per group, opset 21 one per channel.
template <class T>
void group_run(KernelContext& ctx, int64_t groups, bool per_channel, double eps) {
  const TensorRef& x = ctx.input(0);
  require_rank(x, 2);
  const Dims& s = x.desc.shape;
  const int64_t c = s[1], spatial = prod(s, 2, x.desc.rank());
  require(groups > 0 && c % groups == 0, [&] {
    return "num_groups " + std::to_string(groups) + " does not divide the " + std::to_string(c) +
           " channels";
  });
  const int64_t len = per_channel ? c : groups;
  RowNorm p;
  p.eps = eps;
  p.period = groups;
  p.run = per_channel ? spatial : (c / groups) * spatial;
  run_rows<T>(ctx, {}, s[0] * groups, (c / groups) * spatial, p, table<T>(ctx, 1, {len}, len, 1),
              table<T>(ctx, 2, {len}, len, 0), {});
}

// LayerNormalization (center) and RMSNormalization: rows are x[:axis], scale and bias broadcast
// to x[axis:]. Mean and InvStdDev outputs keep x's rank with 1s from axis on.
template <class T>
void layer_run(KernelContext& ctx, const Node& n, int64_t axis_attr, double eps, bool center) {
  const TensorRef& x = ctx.input(0);
  const int r = x.desc.rank();
  const int axis = normalize_axis(axis_attr, r);
  const Dims& s = x.desc.shape;
  const Dims tail(s.begin() + axis, s.end());
  const int64_t rows = prod(s, 0, axis), len = prod(s, axis, r);
  RowNorm p;
  p.center = center;
  p.eps = eps;
  std::vector<T> mean(rows), inv(rows);
  run_rows<T>(ctx, {}, rows, len, p, table<T>(ctx, 1, tail, len, 1), table<T>(ctx, 2, tail, len, 0),
              {mean.data(), nullptr, inv.data()});
  Dims stat_shape(s.begin(), s.begin() + axis);
  stat_shape.resize(r, 1);
  if (center && wants_output(n, 1)) write_stat(ctx, 1, stat_shape, mean);
  if (center && wants_output(n, 2)) write_stat(ctx, 2, stat_shape, inv);
}

// ---- MeanVarianceNormalization and LpNormalization ---------------------------------------

// The permutation putting the flagged axes last (in order), and the kept/reduced lengths.
struct AxesPlan {
  std::vector<int64_t> perm;
  int64_t rows = 1, n = 1;
};
AxesPlan plan_axes(const Dims& shape, const std::vector<int64_t>& axes) {
  const int r = static_cast<int>(shape.size());
  std::vector<bool> red(r, false);
  for (int64_t a : axes) {
    const int k = normalize_axis(a, r);
    require(!red[k], [&] { return "axis " + std::to_string(a) + " is repeated"; });
    red[k] = true;
  }
  AxesPlan p;
  for (int pass = 0; pass < 2; ++pass)
    for (int k = 0; k < r; ++k)
      if (red[k] == (pass == 1)) {
        p.perm.push_back(k);
        (pass ? p.n : p.rows) *= shape[k];
      }
  return p;
}

template <class T>
void mvn_run(KernelContext& ctx, const std::vector<int64_t>& axes) {
  const AxesPlan a = plan_axes(ctx.input(0).desc.shape, axes);
  RowNorm p;
  p.eps_on_std = true;
  p.eps = 1e-9;  // the epsilon of ONNX's function body
  p.run = std::max<int64_t>(a.n, 1);
  run_rows<T>(ctx, a.perm, a.rows, a.n, p, {T(1)}, {T(0)}, {});
}

// y = x / ||x||_p along axis; a zero norm gives 0.
template <class T>
void lp_run(KernelContext& ctx, int64_t axis, int64_t pw) {
  const TensorRef& x = ctx.input(0);
  const int r = x.desc.rank();
  const AxesPlan a = plan_axes(x.desc.shape, {normalize_axis(axis, r)});
  const TensorRef& y = ctx.output(0, x.desc.shape);
  std::vector<std::byte> xs, ys;
  const T* xp = static_cast<const T*>(stage_input(x, a.perm, compute_of<T>(), xs));
  T* yp = static_cast<T*>(stage_output(y, a.perm, compute_of<T>(), ys));
  const int64_t n = a.n;
  parallel_rows(a.rows, n, [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      const T* xr = xp + row * n;
      T* yr = yp + row * n;
      const T norm = pw == 1 ? lane_sum<T>(n, [&](int64_t j) { return std::abs(xr[j]); })
                             : std::sqrt(lane_sum<T>(n, [&](int64_t j) { return xr[j] * xr[j]; }));
      const T inv = norm == T(0) ? T(0) : T(1) / norm;
      for (int64_t j = 0; j < n; ++j) yr[j] = xr[j] * inv;
    }
  });
  store_output(y, a.perm, compute_of<T>(), ys);
}

}  // namespace

Reason supports_batch_norm(const Graph& g, const Node& n) {
  if (Reason r = float_io(g, n)) return r;
  if (n.opset < 9 && attr_int(n, "spatial", 1) == 0)
    return std::string(
        "BatchNormalization with spatial = 0 (statistics per activation) is not "
        "implemented");
  if (n.opset < 14 && n.outputs.size() > 1)
    for (int i = 1; i < static_cast<int>(n.outputs.size()); ++i)
      if (wants_output(n, i))
        return std::string(
            "BatchNormalization before opset 14 with training outputs is not "
            "implemented");
  return std::nullopt;
}
std::unique_ptr<Kernel> create_batch_norm(const Graph&, const Node& n) {
  const double eps = attr_float(n, "epsilon", 1e-5f);
  const double momentum = attr_float(n, "momentum", 0.9f);
  const bool training = bn_training(n);
  return make_node_kernel(n, [=](KernelContext& ctx) {
    dispatch(ctx.input(0).desc.dtype, [&]<class T>() {
      if (training)
        bn_training_run<T>(ctx, n, eps, momentum);
      else
        bn_inference<T>(ctx, eps);
    });
  });
}

Reason supports_instance_norm(const Graph& g, const Node& n) { return float_io(g, n); }
std::unique_ptr<Kernel> create_instance_norm(const Graph&, const Node& n) {
  const double eps = attr_float(n, "epsilon", 1e-5f);
  return make_node_kernel(n, [=](KernelContext& ctx) {
    dispatch(ctx.input(0).desc.dtype, [&]<class T>() { instance_run<T>(ctx, eps); });
  });
}

Reason supports_group_norm(const Graph& g, const Node& n) { return float_io(g, n); }
std::unique_ptr<Kernel> create_group_norm(const Graph&, const Node& n) {
  const double eps = attr_float(n, "epsilon", 1e-5f);
  const int64_t groups = attr_int(n, "num_groups", 0);
  const bool per_channel = n.opset >= 21;
  return make_node_kernel(n, [=](KernelContext& ctx) {
    dispatch(ctx.input(0).desc.dtype,
             [&]<class T>() { group_run<T>(ctx, groups, per_channel, eps); });
  });
}

Reason supports_layer_norm(const Graph& g, const Node& n) { return float_io(g, n); }
std::unique_ptr<Kernel> create_layer_norm(const Graph&, const Node& n) {
  const double eps = attr_float(n, "epsilon", 1e-5f);
  const int64_t axis = attr_int(n, "axis", -1);
  return make_node_kernel(n, [=](KernelContext& ctx) {
    dispatch(ctx.input(0).desc.dtype, [&]<class T>() { layer_run<T>(ctx, n, axis, eps, true); });
  });
}

Reason supports_rms_norm(const Graph& g, const Node& n) { return float_io(g, n); }
std::unique_ptr<Kernel> create_rms_norm(const Graph&, const Node& n) {
  const double eps = attr_float(n, "epsilon", 1e-5f);
  const int64_t axis = attr_int(n, "axis", -1);
  return make_node_kernel(n, [=](KernelContext& ctx) {
    dispatch(ctx.input(0).desc.dtype, [&]<class T>() { layer_run<T>(ctx, n, axis, eps, false); });
  });
}

Reason supports_mvn(const Graph& g, const Node& n) { return float_io(g, n); }
std::unique_ptr<Kernel> create_mvn(const Graph&, const Node& n) {
  const std::vector<int64_t> axes = attr_ints(n, "axes").value_or(std::vector<int64_t>{0, 2, 3});
  return make_node_kernel(n, [=](KernelContext& ctx) {
    dispatch(ctx.input(0).desc.dtype, [&]<class T>() { mvn_run<T>(ctx, axes); });
  });
}

Reason supports_lp_norm(const Graph& g, const Node& n) {
  if (Reason r = float_io(g, n)) return r;
  const int64_t p = attr_int(n, "p", 2);
  if (p != 1 && p != 2) return "attribute 'p' is " + std::to_string(p) + "; only 1 and 2 exist";
  return std::nullopt;
}
std::unique_ptr<Kernel> create_lp_norm(const Graph&, const Node& n) {
  const int64_t axis = attr_int(n, "axis", -1), p = attr_int(n, "p", 2);
  return make_node_kernel(n, [=](KernelContext& ctx) {
    dispatch(ctx.input(0).desc.dtype, [&]<class T>() { lp_run<T>(ctx, axis, p); });
  });
}

}  // namespace geon::cpu
