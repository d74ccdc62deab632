// ConvInteger and QLinearConv: an N-D grouped convolution (pads, auto_pad, strides, dilations)
// of zero-point-shifted int8/uint8 operands accumulated in int32. x's zero point is one value;
// w's is one value or one per output channel, as are QLinearConv's w_scale. QLinearConv adds the
// int32 bias and requantizes: y = saturate(rint(acc * x_scale * w_scale / y_scale) +
// y_zero_point), the multiplier in float and the rest in double, as onnx does. The loop is a
// direct one whose innermost run walks the last spatial dim of x and y contiguously; a oneDNN
// int8 path would replace conv_accumulate.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/base/error.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/pool/window.h"
#include "kernels/cpu/generic/quant/ops.h"

namespace geon::cpu {
namespace {

std::string shape_text(const Dims& d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + ")";
}

// Attribute values above this are refused, so that window arithmetic cannot overflow int64.
constexpr int64_t kMaxWindowValue = int64_t{1} << 31;

struct ConvAttrs {
  PoolAttrs window;                   // kernel is taken from w at run time
  std::vector<int64_t> kernel_shape;  // the attribute, empty when absent
  int64_t group = 1;
};

ConvAttrs read_conv_attrs(const Node& n) {
  ConvAttrs a;
  a.kernel_shape = attr_ints(n, "kernel_shape").value_or(std::vector<int64_t>{});
  a.window.strides = attr_ints(n, "strides").value_or(std::vector<int64_t>{});
  a.window.dilations = attr_ints(n, "dilations").value_or(std::vector<int64_t>{});
  a.window.pads = attr_ints(n, "pads").value_or(std::vector<int64_t>{});
  const std::string pad = attr_string(n, "auto_pad", "NOTSET");
  a.window.auto_pad = pad == "SAME_UPPER"   ? PoolPad::kSameUpper
                      : pad == "SAME_LOWER" ? PoolPad::kSameLower
                      : pad == "VALID"      ? PoolPad::kValid
                                            : PoolPad::kNotSet;
  a.group = attr_int(n, "group", 1);
  return a;
}

Reason conv_attrs_reason(const Node& n) {
  const ConvAttrs a = read_conv_attrs(n);
  const std::string pad = attr_string(n, "auto_pad", "NOTSET");
  if (pad != "NOTSET" && pad != "SAME_UPPER" && pad != "SAME_LOWER" && pad != "VALID")
    return n.op + ": auto_pad '" + pad + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID";
  if (a.group < 1 || a.group > kMaxWindowValue)
    return n.op + ": attribute 'group' is " + std::to_string(a.group) + "; it must be at least 1";
  for (const auto* v : {&a.window.strides, &a.window.dilations, &a.kernel_shape})
    for (int64_t x : *v)
      if (x < 1 || x > kMaxWindowValue)
        return n.op + ": kernel_shape, strides and dilations must be in [1, 2^31], got " +
               std::to_string(x);
  for (int64_t p : a.window.pads)
    if (p < 0 || p > kMaxWindowValue)
      return n.op + ": pads must be in [0, 2^31], got " + std::to_string(p);
  return std::nullopt;
}

// The attribute list `v` for `s` spatial dims: the default when absent, else checked.
std::vector<int64_t> per_dim(const std::vector<int64_t>& v, size_t s, int64_t dflt,
                             const char* name) {
  if (v.empty()) return std::vector<int64_t>(s, dflt);
  require(v.size() == s, [&] {
    return std::string("attribute '") + name + "' has " + std::to_string(v.size()) +
           " values but the input has " + std::to_string(s / (dflt == 0 ? 2 : 1)) + " spatial dims";
  });
  return v;
}

struct ConvShape {
  int64_t N, C, M, Cg, Mg, group, in_size, k_size, out_size;
  PoolGeometry geo;
  Dims out_shape;
};

ConvShape conv_shape(const ConvAttrs& a, const Dims& x, const Dims& w) {
  require(x.size() >= 3, [&] {
    return "input 0 (x) has shape " + shape_text(x) +
           "; it must be (N, C, D1, ...) with at least one spatial dim";
  });
  require(w.size() == x.size(), [&] {
    return "the weights have shape " + shape_text(w) + " but x has " + shape_text(x) +
           "; their ranks must be equal";
  });
  const size_t s = x.size() - 2;
  ConvShape c;
  c.N = x[0];
  c.C = x[1];
  c.M = w[0];
  c.Cg = w[1];
  c.group = a.group;
  require(__int128{c.Cg} * c.group == c.C && c.M % c.group == 0, [&] {
    return "x has " + std::to_string(c.C) + " channels and the weights " + shape_text(w) + " in " +
           std::to_string(c.group) + " groups; channels must be group * w's dim 1 and w's " +
           "dim 0 a multiple of group";
  });
  c.Mg = c.M / c.group;
  PoolAttrs wa = a.window;
  wa.kernel.assign(w.begin() + 2, w.end());
  for (int64_t k : wa.kernel) require(k >= 1, "the weights have an empty spatial dim");
  if (!a.kernel_shape.empty())
    require(a.kernel_shape == wa.kernel, [&] {
      return "attribute 'kernel_shape' disagrees with the weights' spatial dims " +
             shape_text(wa.kernel);
    });
  wa.strides = per_dim(wa.strides, s, 1, "strides");
  wa.dilations = per_dim(wa.dilations, s, 1, "dilations");
  wa.pads = wa.auto_pad == PoolPad::kNotSet ? per_dim(wa.pads, 2 * s, 0, "pads")
                                            : std::vector<int64_t>(2 * s, 0);
  c.geo = pool_geometry("the convolution", wa, x);
  c.out_shape = {c.N, c.M};
  c.out_shape.insert(c.out_shape.end(), c.geo.out.begin(), c.geo.out.end());
  check_output_size(DType::kInt32, c.out_shape, "the output");
  c.in_size = element_count(Dims(x.begin() + 2, x.end()));
  c.k_size = element_count(wa.kernel);
  c.out_size = element_count(c.geo.out);
  return c;
}

// acc (N, M, out...) = conv(xs, ws) for dense shifted int32 x (N, C, in...) and w (M, C/group,
// k...). Work is shared out over (n, m) pairs.
void conv_accumulate(const ConvShape& c, const int32_t* xs, const int32_t* ws, int32_t* acc) {
  const PoolGeometry& g = c.geo;
  const int s = g.spatial();
  const int64_t out_last = g.out[s - 1], in_last = g.in[s - 1], k_last = g.kernel[s - 1];
  const int64_t st = g.strides[s - 1], dil = g.dilations[s - 1], pb = g.pad_begin[s - 1];
  const int64_t outer_out = c.out_size / std::max<int64_t>(out_last, 1);
  const int64_t outer_k = c.k_size / k_last;
  // Multiply-adds per (n, m) pair, capped so that the estimate cannot overflow.
  const int64_t cost =
      std::min<int64_t>(c.Cg * c.k_size, 1 << 15) * std::min<int64_t>(c.out_size, 1 << 15);
  parallel_rows(c.N * c.M, cost, [&](int64_t lo, int64_t hi) {
    std::vector<uint32_t> row(static_cast<size_t>(c.out_size));
    std::vector<int64_t> o(s), k(s);
    for (int64_t nm = lo; nm < hi; ++nm) {
      const int64_t n = nm / c.M, m = nm % c.M, grp = m / c.Mg;
      std::fill(row.begin(), row.end(), 0u);
      for (int64_t ci = 0; ci < c.Cg; ++ci) {
        const int32_t* xc = xs + (n * c.C + grp * c.Cg + ci) * c.in_size;
        const int32_t* wc = ws + (m * c.Cg + ci) * c.k_size;
        for (int64_t op = 0; op < outer_out; ++op) {
          for (int64_t kp = 0; kp < outer_k; ++kp) {
            // The outer (all but last) coordinates of this output and kernel position.
            int64_t in_flat = 0, ro = op, rk = kp;
            bool inside = true;
            for (int d = s - 2; d >= 0; --d) {
              o[d] = ro % g.out[d];
              ro /= g.out[d];
              k[d] = rk % g.kernel[d];
              rk /= g.kernel[d];
            }
            for (int d = 0; d < s - 1 && inside; ++d) {
              const int64_t id = o[d] * g.strides[d] - g.pad_begin[d] + k[d] * g.dilations[d];
              inside = id >= 0 && id < g.in[d];
              in_flat = in_flat * g.in[d] + id;
            }
            if (!inside) continue;
            const int32_t* xr = xc + in_flat * in_last;
            uint32_t* yr = row.data() + op * out_last;
            for (int64_t kl = 0; kl < k_last; ++kl) {
              const uint32_t wv = static_cast<uint32_t>(wc[kp * k_last + kl]);
              if (wv == 0) continue;
              // Input position j * st + off must lie in [0, in_last).
              const int64_t off = kl * dil - pb;
              const int64_t j0 = off >= 0 ? 0 : (-off + st - 1) / st;
              const int64_t j1 =
                  std::min(out_last, in_last - off <= 0 ? 0 : (in_last - off + st - 1) / st);
              for (int64_t j = j0; j < j1; ++j)
                yr[j] += wv * static_cast<uint32_t>(xr[j * st + off]);
            }
          }
        }
      }
      int32_t* dst = acc + nm * c.out_size;
      for (int64_t i = 0; i < c.out_size; ++i) dst[i] = static_cast<int32_t>(row[i]);
    }
  });
}

const TensorRef* optional_input(const KernelContext& ctx, int i) {
  return ctx.num_inputs() > i && ctx.input(i).present() ? &ctx.input(i) : nullptr;
}

// x - x_zero_point (one value), dense int32.
std::vector<int32_t> shifted_x(const TensorRef& x, const TensorRef* z, const std::string& zn) {
  std::vector<int32_t> v = dense_int32(x);
  if (!z) return v;
  require(element_count(z->desc) == 1, [&] {
    return zn + " has shape " + shape_text(z->desc.shape) + "; it must be one value";
  });
  require(z->desc.dtype == x.desc.dtype, [&] { return zn + " differs from x's dtype"; });
  const int32_t zp = dense_int32(*z)[0];
  for (int32_t& e : v) e -= zp;
  return v;
}

// w - w_zero_point (one value or one per output channel), dense int32.
std::vector<int32_t> shifted_w(const TensorRef& w, const TensorRef* z, const std::string& zn) {
  std::vector<int32_t> v = dense_int32(w);
  if (!z) return v;
  const int64_t M = w.desc.shape[0], n = element_count(z->desc);
  require(n == 1 || (z->desc.rank() == 1 && n == M), [&] {
    return zn + " has shape " + shape_text(z->desc.shape) + "; it must be one value or 1-D of " +
           std::to_string(M) + " (one per output channel)";
  });
  require(z->desc.dtype == w.desc.dtype, [&] { return zn + " differs from w's dtype"; });
  const std::vector<int32_t> zp = dense_int32(*z);
  const int64_t per = M == 0 ? 0 : static_cast<int64_t>(v.size()) / M;
  for (size_t i = 0; i < v.size(); ++i) v[i] -= zp[n == 1 ? 0 : static_cast<int64_t>(i) / per];
  return v;
}

std::vector<int32_t> accumulate(const ConvShape& c, const std::vector<int32_t>& xs,
                                const std::vector<int32_t>& ws) {
  std::vector<int32_t> acc(static_cast<size_t>(std::max<int64_t>(element_count(c.out_shape), 1)));
  if (element_count(c.out_shape) > 0) conv_accumulate(c, xs.data(), ws.data(), acc.data());
  return acc;
}

void conv_integer(KernelContext& ctx, const ConvAttrs& a) {
  const TensorRef &x = ctx.input(0), &w = ctx.input(1);
  const ConvShape c = conv_shape(a, x.desc.shape, w.desc.shape);
  const TensorRef& out = ctx.output(0, c.out_shape);
  if (element_count(c.out_shape) == 0) return;
  const std::vector<int32_t> acc =
      accumulate(c, shifted_x(x, optional_input(ctx, 2), "input 2 (x_zero_point)"),
                 shifted_w(w, optional_input(ctx, 3), "input 3 (w_zero_point)"));
  assign(dst_of(out), ConstOperand(row_major(DType::kInt32, c.out_shape), acc.data()));
}

// One value of a parameter that must hold exactly one.
double one_value(const TensorRef& t, const std::string& what) {
  require(element_count(t.desc) == 1, [&] {
    return what + " has shape " + shape_text(t.desc.shape) + "; it must be one value";
  });
  return dense_double(t)[0];
}

void qlinear_conv(KernelContext& ctx, const ConvAttrs& a) {
  const TensorRef &x = ctx.input(0), &w = ctx.input(3);
  const ConvShape c = conv_shape(a, x.desc.shape, w.desc.shape);
  const double xs = one_value(ctx.input(1), "input 1 (x_scale)");
  const double ys = one_value(ctx.input(6), "input 6 (y_scale)");
  const TensorRef* zy = optional_input(ctx, 7);
  const double yz = zy ? one_value(*zy, "input 7 (y_zero_point)") : 0.0;
  const TensorRef& wst = ctx.input(4);
  const int64_t nws = element_count(wst.desc);
  require(nws == 1 || (wst.desc.rank() == 1 && nws == c.M), [&] {
    return "input 4 (w_scale) has shape " + shape_text(wst.desc.shape) +
           "; it must be one value or 1-D of " + std::to_string(c.M) + " (one per output channel)";
  });
  const std::vector<double> ws = dense_double(wst);
  const TensorRef* bias = optional_input(ctx, 8);
  std::vector<int32_t> bv;
  if (bias) {
    require(bias->desc.rank() == 1 && bias->desc.shape[0] == c.M, [&] {
      return "input 8 (B) has shape " + shape_text(bias->desc.shape) + "; it must be 1-D of " +
             std::to_string(c.M);
    });
    bv = dense_int32(*bias);
  }
  const TensorRef& out = ctx.output(0, c.out_shape);
  const DType t = out.desc.dtype;
  require(t == DType::kInt8 || t == DType::kUInt8, [&] {
    return "the output is " + std::string(dtype_name(t)) + "; it must be int8 or uint8";
  });
  if (element_count(c.out_shape) == 0) return;
  const std::vector<int32_t> acc =
      accumulate(c, shifted_x(x, optional_input(ctx, 2), "input 2 (x_zero_point)"),
                 shifted_w(w, optional_input(ctx, 5), "input 5 (w_zero_point)"));
  const IntRange r = int_range(t);
  std::vector<double> y(acc.size());
  parallel_rows(c.N * c.M, c.out_size, [&](int64_t lo, int64_t hi) {
    for (int64_t nm = lo; nm < hi; ++nm) {
      const int64_t m = nm % c.M;
      const double mult =
          round_to(DType::kFloat, round_to(DType::kFloat, xs * ws[nws == 1 ? 0 : m]) / ys);
      const uint32_t b = bias ? static_cast<uint32_t>(bv[m]) : 0u;
      for (int64_t i = nm * c.out_size; i < (nm + 1) * c.out_size; ++i) {
        const int32_t v = static_cast<int32_t>(static_cast<uint32_t>(acc[i]) + b);
        y[i] = saturate_round(v * mult + yz, r);
      }
    }
  });
  assign(dst_of(out), ConstOperand(row_major(DType::kDouble, c.out_shape), y.data()));
}

bool int8ish(DType t) { return t == DType::kInt8 || t == DType::kUInt8; }

Reason int8_inputs_reason(const Graph& g, const Node& n, std::initializer_list<int> inputs) {
  for (int i : inputs) {
    const DType t = input_dtype(g, n, i);
    if (has_input(n, i) && !int8ish(t))
      return n.op + ": input " + std::to_string(i) + " of " + std::string(dtype_name(t)) +
             " is refused; it must be int8 or uint8";
  }
  return conv_attrs_reason(n);
}

}  // namespace

Reason supports_conv_integer(const Graph& g, const Node& n) {
  return int8_inputs_reason(g, n, {0, 1, 2, 3});
}

std::unique_ptr<Kernel> create_conv_integer(const Graph&, const Node& n) {
  const ConvAttrs a = read_conv_attrs(n);
  return make_node_kernel(n, [a](KernelContext& ctx) { conv_integer(ctx, a); });
}

Reason supports_qlinear_conv(const Graph& g, const Node& n) {
  if (auto r = int8_inputs_reason(g, n, {0, 2, 3, 5, 7})) return r;
  for (int i : {1, 4, 6})
    if (input_dtype(g, n, i) != DType::kFloat)
      return n.op + ": input " + std::to_string(i) + " (scale) must be float";
  if (has_input(n, 8) && input_dtype(g, n, 8) != DType::kInt32)
    return n.op + ": input 8 (B) must be int32";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_qlinear_conv(const Graph&, const Node& n) {
  const ConvAttrs a = read_conv_attrs(n);
  return make_node_kernel(n, [a](KernelContext& ctx) { qlinear_conv(ctx, a); });
}

}  // namespace geon::cpu
