// DeformConv (19, 22) on the CPU for any number of spatial dims: a convolution whose every
// kernel tap reads X not at its grid position but there plus a learned offset (one per offset
// group, tap, spatial dim and output position), bilinearly (multilinearly in N-D) with zeros
// outside the image, optionally scaled by a mask. This is GridSample's linear sampling with
// zero padding and align_corners, which the reference evaluates per tap. The samples of one
// image are gathered into columns (C x taps rows of output positions) that each group's
// weights then multiply, with the bias added; sampling weights are computed once per offset
// group and shared by its channels. Compute is in float (double for double), sums in double.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "kernels/cpu/generic/vision/ops.h"
#include "kernels/cpu/generic/vision/sampling.h"

namespace geon::cpu {
namespace {

// The attributes as given; empty lists take their defaults once the rank is known.
// Longer kernels, dilations or pads than this are refused (2^40).
constexpr double kFar = 1099511627776.0;

struct Attrs {
  std::vector<int64_t> kernel, strides, dilations, pads;
  int64_t group = 1, offset_group = 1;
};

std::string list_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// The run's geometry, checked against every input's shape.
struct Geometry {
  int r = 0;
  int64_t batch = 0, channels = 0, out_channels = 0, group = 1, offset_group = 1;
  int64_t taps = 1, plane = 1, points = 1;  // kernel taps, prod(D), prod(O)
  Dims in, out, kernel;                     // D, O, k
  std::vector<int64_t> strides, dilations, pads;
};

void expect_shape(const TensorRef& t, const Dims& want, const char* what) {
  require(t.desc.shape == want, [&] {
    return std::string(what) + " is " + to_string(t.desc) + "; it must be " +
           list_text(std::vector<int64_t>(want.begin(), want.end()));
  });
}

Geometry geometry(const KernelContext& ctx, const Attrs& a) {
  const TensorRef &x = ctx.input(0), &w = ctx.input(1), &offset = ctx.input(2);
  Geometry g;
  const int rank = x.desc.rank();
  require(rank >= 3, [&] { return "X must be (N, C, D1, ...), it is " + to_string(x.desc); });
  require(w.desc.rank() == rank, [&] {
    return "W has rank " + std::to_string(w.desc.rank()) + "; it must be X's rank " +
           std::to_string(rank);
  });
  g.r = rank - 2;
  const auto r = static_cast<size_t>(g.r);
  g.batch = x.desc.shape[0];
  g.channels = x.desc.shape[1];
  g.out_channels = w.desc.shape[0];
  g.group = a.group;
  g.offset_group = a.offset_group;
  g.in.assign(x.desc.shape.begin() + 2, x.desc.shape.end());
  g.kernel.assign(w.desc.shape.begin() + 2, w.desc.shape.end());
  require(a.kernel.empty() || a.kernel == std::vector<int64_t>(g.kernel.begin(), g.kernel.end()),
          [&] {
            return "kernel_shape " + list_text(a.kernel) + " differs from W's " + to_string(w.desc);
          });
  g.strides = a.strides.empty() ? std::vector<int64_t>(r, 1) : a.strides;
  g.dilations = a.dilations.empty() ? std::vector<int64_t>(r, 1) : a.dilations;
  g.pads = a.pads.empty() ? std::vector<int64_t>(2 * r, 0) : a.pads;
  require(g.strides.size() == r && g.dilations.size() == r && g.pads.size() == 2 * r, [&] {
    return "strides " + list_text(g.strides) + ", dilations " + list_text(g.dilations) +
           " and pads " + list_text(g.pads) + " do not fit " + std::to_string(r) + " spatial dims";
  });
  require(g.channels % g.group == 0 && g.channels / g.group == w.desc.shape[1], [&] {
    return "W " + to_string(w.desc) + " times group " + std::to_string(g.group) +
           " does not give X's " + std::to_string(g.channels) + " channels";
  });
  require(g.out_channels % g.group == 0, [&] {
    return "W's " + std::to_string(g.out_channels) + " output channels do not divide into " +
           std::to_string(g.group) + " groups";
  });
  require(g.channels % g.offset_group == 0 && g.offset_group <= std::max<int64_t>(g.channels, 1),
          [&] {
            return "X's " + std::to_string(g.channels) + " channels do not divide into " +
                   std::to_string(g.offset_group) + " offset groups";
          });
  for (size_t i = 0; i < r; ++i) {
    // Attributes are only bounded below; far past any real image they are refused here, so
    // the integer geometry below cannot overflow.
    require(static_cast<double>(g.kernel[i]) * static_cast<double>(g.dilations[i]) < kFar &&
                static_cast<double>(g.pads[i]) + static_cast<double>(g.pads[i + r]) < kFar,
            [&] {
              return "the dilated kernel or the pads of spatial dim " + std::to_string(i) +
                     " are too large";
            });
    require(g.kernel[i] >= 1, [&] { return "W's spatial dim " + std::to_string(i) + " is empty"; });
    const int64_t span = (g.kernel[i] - 1) * g.dilations[i] + 1;
    const int64_t room = g.in[i] + g.pads[i] + g.pads[i + r] - span;
    require(room >= 0, [&] {
      return "the kernel (" + std::to_string(span) + " with dilation) is longer than " +
             "padded spatial dim " + std::to_string(i) + " of X";
    });
    g.out.push_back(room / g.strides[i] + 1);
    g.taps *= g.kernel[i];  // bounded: W holds taps elements per (m, c) pair
    g.plane *= g.in[i];
  }
  Dims want = {g.batch, g.offset_group * g.taps * g.r};
  want.insert(want.end(), g.out.begin(), g.out.end());
  expect_shape(offset, want, "offset");
  Dims out_shape = {g.batch, g.out_channels};
  out_shape.insert(out_shape.end(), g.out.begin(), g.out.end());
  check_output_size(x.desc.dtype, out_shape, "the output");
  // Bounded: the output's size was just checked (it is not checked when empty).
  if (std::find(out_shape.begin(), out_shape.end(), 0) == out_shape.end())
    for (int64_t len : g.out) g.points *= len;
  else
    g.points = 0;
  if (ctx.num_inputs() > 3 && ctx.input(3).present())
    expect_shape(ctx.input(3), {g.out_channels}, "B");
  if (ctx.num_inputs() > 4 && ctx.input(4).present()) {
    want[1] = g.offset_group * g.taps;
    expect_shape(ctx.input(4), want, "mask");
  }
  return g;
}

// Fills the columns of image n: col[(c * taps + t) * points + o] = mask * X[n, c] sampled at
// tap t of output position o, moved by its offset.
template <class T>
void gather_columns(const Geometry& g, int64_t n, const T* x, const T* offset, const T* mask,
                    T* col) {
  const int r = g.r;
  const int64_t per_group = g.channels / g.offset_group;
  std::vector<int64_t> in_strides(r, 1);
  for (int i = r - 2; i >= 0; --i) in_strides[i] = in_strides[i + 1] * g.in[i + 1];
  // One item per (offset group, tap, output position).
  parallel_rows(g.offset_group * g.taps * g.points, per_group << r, [&](int64_t lo, int64_t hi) {
    std::vector<int64_t> corner_off;
    std::vector<double> corner_w;
    std::vector<int64_t> low(r);
    std::vector<double> frac(r);
    for (int64_t item = lo; item < hi; ++item) {
      const int64_t o = item % g.points, gt = item / g.points;  // gt = og * taps + t
      const int64_t og = gt / g.taps, t = gt % g.taps;
      const double m =
          mask ? static_cast<double>(mask[(n * g.offset_group * g.taps + gt) * g.points + o]) : 1.0;
      bool inside = true;
      int64_t orest = o, trest = t;
      for (int i = r - 1; i >= 0; --i) {
        const int64_t oi = orest % g.out[i], ti = trest % g.kernel[i];
        orest /= g.out[i];
        trest /= g.kernel[i];
        const double shift = static_cast<double>(
            offset[((n * g.offset_group * g.taps + gt) * r + i) * g.points + o]);
        const double p =
            static_cast<double>(oi * g.strides[i] - g.pads[i] + ti * g.dilations[i]) + shift;
        // Outside (-1, len) every corner is padding; NaN lands here too.
        if (!(p > -1.0 && p < static_cast<double>(g.in[i]))) inside = false;
        if (!inside) continue;
        const double f = std::floor(p);
        low[i] = static_cast<int64_t>(f);
        frac[i] = p - f;
      }
      corner_off.clear();
      corner_w.clear();
      if (inside) {
        for (int64_t k = 0; k < (int64_t{1} << r); ++k) {
          int64_t off = 0;
          double w = m;
          bool ok = true;
          for (int i = 0; i < r && ok; ++i) {
            const bool up = (k >> (r - 1 - i)) & 1;
            const int64_t idx = low[i] + (up ? 1 : 0);
            ok = idx >= 0 && idx < g.in[i];
            off += idx * in_strides[i];
            w *= up ? frac[i] : 1 - frac[i];
          }
          if (ok) {
            corner_off.push_back(off);
            corner_w.push_back(w);
          }
        }
      }
      for (int64_t c = og * per_group; c < (og + 1) * per_group; ++c) {
        const T* src = x + (n * g.channels + c) * g.plane;
        double v = 0;
        for (size_t k = 0; k < corner_off.size(); ++k)
          v += corner_w[k] * static_cast<double>(src[corner_off[k]]);
        col[(c * g.taps + t) * g.points + o] = static_cast<T>(v);
      }
    }
  });
}

// Y[n, m] = B[m] + W[m] . columns of m's group.
template <class T>
void multiply(const Geometry& g, int64_t n, const T* w, const T* bias, const T* col, T* y) {
  const int64_t mg = g.out_channels / g.group, k_len = g.channels / g.group * g.taps;
  parallel_rows(g.out_channels, k_len * g.points, [&](int64_t lo, int64_t hi) {
    std::vector<double> acc(static_cast<size_t>(g.points));
    for (int64_t m = lo; m < hi; ++m) {
      std::fill(acc.begin(), acc.end(), bias ? static_cast<double>(bias[m]) : 0.0);
      const T* wm = w + m * k_len;
      const T* cg = col + (m / mg) * k_len * g.points;
      for (int64_t k = 0; k < k_len; ++k) {
        const double wk = static_cast<double>(wm[k]);
        const T* row = cg + k * g.points;
        for (int64_t o = 0; o < g.points; ++o) acc[o] += wk * static_cast<double>(row[o]);
      }
      T* dst = y + (n * g.out_channels + m) * g.points;
      for (int64_t o = 0; o < g.points; ++o) dst[o] = static_cast<T>(acc[o]);
    }
  });
}

template <class T>
void deform_conv(const Geometry& g, const T* x, const T* w, const T* offset, const T* bias,
                 const T* mask, T* y) {
  std::vector<T> col(static_cast<size_t>(g.channels * g.taps * g.points));
  for (int64_t n = 0; n < g.batch; ++n) {
    gather_columns(g, n, x, offset, mask, col.data());
    multiply(g, n, w, bias, col.data(), y);
  }
}

void deform_conv_run(KernelContext& ctx, const Attrs& a) {
  const Geometry g = geometry(ctx, a);
  Dims shape = {g.batch, g.out_channels};
  shape.insert(shape.end(), g.out.begin(), g.out.end());
  const TensorRef& y = ctx.output(0, shape);
  if (element_count(shape) == 0) return;
  const DType ct = vision::compute_dtype(ctx.input(0).desc.dtype);
  check_output_size(ct, {g.channels, g.taps, g.points}, "the sampled columns");
  const vision::StagedIn x(ctx.input(0), ct), w(ctx.input(1), ct), offset(ctx.input(2), ct);
  const bool has_b = ctx.num_inputs() > 3 && ctx.input(3).present();
  const bool has_mask = ctx.num_inputs() > 4 && ctx.input(4).present();
  std::optional<vision::StagedIn> b, mask;
  if (has_b) b.emplace(ctx.input(3), ct);
  if (has_mask) mask.emplace(ctx.input(4), ct);
  const vision::StagedOut ys(y, ct);
  if (ct == DType::kDouble)
    deform_conv(g, x.as<double>(), w.as<double>(), offset.as<double>(),
                b ? b->as<double>() : nullptr, mask ? mask->as<double>() : nullptr,
                ys.as<double>());
  else
    deform_conv(g, x.as<float>(), w.as<float>(), offset.as<float>(), b ? b->as<float>() : nullptr,
                mask ? mask->as<float>() : nullptr, ys.as<float>());
  ys.store();
}

}  // namespace

Reason supports_deform_conv(const Graph& g, const Node& n) {
  const DType t = input_dtype(g, n, 0);
  if (Reason r = norm_dtype_reason(t, "X")) return r;
  const char* names[] = {"X", "W", "offset", "B", "mask"};
  for (int i = 1; i < 5; ++i)
    if (has_input(n, i) && input_dtype(g, n, i) != t)
      return std::string("DeformConv: ") + names[i] + "'s dtype differs from X's";
  auto all_at_least = [&](const char* name, int64_t least) {
    const auto v = attr_ints(n, name);
    return !v || std::all_of(v->begin(), v->end(), [least](int64_t x) { return x >= least; });
  };
  if (!all_at_least("strides", 1) || !all_at_least("dilations", 1) || !all_at_least("pads", 0) ||
      !all_at_least("kernel_shape", 1))
    return "DeformConv: strides, dilations and kernel_shape must be >= 1, pads >= 0";
  if (attr_int(n, "group", 1) < 1 || attr_int(n, "offset_group", 1) < 1)
    return "DeformConv: group and offset_group must be >= 1";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_deform_conv(const Graph&, const Node& n) {
  Attrs a;
  a.kernel = attr_ints(n, "kernel_shape").value_or(std::vector<int64_t>{});
  a.strides = attr_ints(n, "strides").value_or(std::vector<int64_t>{});
  a.dilations = attr_ints(n, "dilations").value_or(std::vector<int64_t>{});
  a.pads = attr_ints(n, "pads").value_or(std::vector<int64_t>{});
  a.group = attr_int(n, "group", 1);
  a.offset_group = attr_int(n, "offset_group", 1);
  return make_node_kernel(n, [a](KernelContext& ctx) { deform_conv_run(ctx, a); });
}

}  // namespace geon::cpu
