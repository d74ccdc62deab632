// Resize (10..19) and Upsample (1, 7, 9) on the CPU from the per-axis tables of resize_plan.h.
// Nearest is one gather (gather_rows.h) in the data's own dtype, exact for every width; each
// repeated row of an upsampling is a copy of the row before. Linear and cubic are separable:
// one pass per resized axis over dense rows, in float (double for double and integer data),
// vector loops over the contiguous inner dims and short dot products along the innermost one.
// Strings (16-byte handles) resize by nearest only, copied handle by handle through the same
// per-axis maps; outside the input (tf_crop_and_resize) they are "".
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <type_traits>

#include "core/base/error.h"
#include "core/dtype/scalar.h"
#include "core/strings/strings.h"
#include "kernels/cpu/generic/gather_rows.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/resize_plan.h"

namespace geon::cpu {
namespace {

using resize::AxisTaps;
using resize::Plan;
using resize::Settings;

// A float list input (roi, scales) as doubles; empty when omitted or empty.
std::vector<double> read_floats(const KernelContext& ctx, int i, const std::string& what) {
  if (i < 0 || i >= ctx.num_inputs() || !ctx.input(i).present()) return {};
  const TensorRef& t = ctx.input(i);
  require(t.desc.rank() <= 1,
          [&] { return what + " must be 1-D, not of rank " + std::to_string(t.desc.rank()); });
  if (t.device.kind != DeviceKind::kHost)
    fail(ErrorCode::kNotSupported, what + " must be in host memory");
  std::vector<double> v(static_cast<size_t>(element_count(t.desc)));
  if (!v.empty()) assign(Operand{row_major(DType::kDouble, t.desc.shape), v.data()}, src_of(t));
  return v;
}

// ---- nearest -------------------------------------------------------------------------------

// gather_rows for string handles, which it does not copy: each output row (every dim but the
// last, out rank >= 1) sums its source offset from the maps, then copies the handles along the
// last axis; a fill position becomes the empty string.
void nearest_strings(const TensorRef& src, const TensorRef& out, const std::vector<AxisMap>& maps) {
  const Dims& shape = out.desc.shape;
  const int r = static_cast<int>(shape.size());
  const int64_t inner = shape[r - 1];
  if (element_count(shape) == 0) return;
  const StringElem* s = static_cast<const StringElem*>(src.data) + src.desc.offset;
  StringElem* d = static_cast<StringElem*>(out.data) + out.desc.offset;
  const int64_t ds = out.desc.strides[r - 1];
  const AxisMap& last = maps[r - 1];
  parallel_rows(element_count(shape) / inner, inner, [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      int64_t so = 0, dof = 0, rest = row;
      bool fill = false;
      for (int k = r - 2; k >= 0; --k) {
        const int64_t i = rest % shape[k];
        rest /= shape[k];
        so += maps[k].offset[i];
        dof += i * out.desc.strides[k];
        fill = fill || (!maps[k].fill.empty() && maps[k].fill[i]);
      }
      for (int64_t y = 0; y < inner; ++y) {
        const bool out_y = fill || (!last.fill.empty() && last.fill[y]);
        d[dof + y * ds] = out_y ? StringElem{} : s[so + last.offset[y]];
      }
    }
  });
}

void nearest(const TensorRef& src, const TensorRef& out, const Plan& plan, double extrapolation) {
  const int r = src.desc.rank();
  std::vector<AxisMap> maps(r);
  for (int k = 0; k < r; ++k)
    for (int64_t y = 0; y < plan.out_shape[k]; ++y)
      maps[k].offset.push_back(y * src.desc.strides[k]);
  for (const AxisTaps& a : plan.axes) {
    for (int64_t y = 0; y < a.out_len; ++y)
      maps[a.axis].offset[y] = a.index[y] * src.desc.strides[a.axis];
    maps[a.axis].fill = a.outside;
  }
  if (src.desc.dtype == DType::kString) return nearest_strings(src, out, maps);
  alignas(8) std::byte fill[16] = {};
  Scalar v;
  v.re = extrapolation;
  store_scalar(src.desc.dtype, fill, 0, v);
  gather_rows(src, out, maps, fill);
}

// ---- linear and cubic --------------------------------------------------------------------------

// An axis's taps in the compute type: n weights per output position and, for consecutive
// windows, their first index (else every index).
template <typename T>
struct Pass {
  int n = 1;
  bool consecutive = true;
  std::vector<int64_t> first, index;
  std::vector<T> weight;
  const std::vector<uint8_t>* outside = nullptr;
  bool out(int64_t y) const { return !outside->empty() && (*outside)[y]; }
};

template <typename T>
Pass<T> pass_of(const AxisTaps& a) {
  Pass<T> p;
  p.n = a.taps;
  p.consecutive = a.consecutive;
  p.weight.assign(a.weight.begin(), a.weight.end());
  if (a.consecutive) {
    for (int64_t y = 0; y < a.out_len; ++y) p.first.push_back(a.index[y * a.taps]);
  } else {
    p.index = a.index;
  }
  p.outside = &a.outside;
  return p;
}

// The weighted sum of n consecutive elements; fixed counts unrolled.
template <typename T, int N>
T dot_fixed(const T* w, const T* s) {
  T acc = w[0] * s[0];
  for (int t = 1; t < N; ++t) acc += w[t] * s[t];
  return acc;
}
template <typename T>
T dot(int n, const T* w, const T* s) {
  if (n == 2) return dot_fixed<T, 2>(w, s);
  if (n == 4) return dot_fixed<T, 4>(w, s);
  T acc = 0;
  for (int t = 0; t < n; ++t) acc += w[t] * s[t];
  return acc;
}

// d[y] = the weighted sum of the n elements of s from first[y], for every y of a row; the
// common tap counts get loops of their own so the compiler unrolls them.
template <typename T, int N>
void row_dots_fixed(const T* s, T* d, int64_t len, const int64_t* first, const T* w) {
  for (int64_t y = 0; y < len; ++y) d[y] = dot_fixed<T, N>(w + y * N, s + first[y]);
}
template <typename T>
void row_dots(const T* s, T* d, int64_t len, int n, const int64_t* first, const T* w) {
  if (n == 1) return row_dots_fixed<T, 1>(s, d, len, first, w);
  if (n == 2) return row_dots_fixed<T, 2>(s, d, len, first, w);
  if (n == 4) return row_dots_fixed<T, 4>(s, d, len, first, w);
  for (int64_t y = 0; y < len; ++y) d[y] = dot(n, w + y * n, s + first[y]);
}

// One separable pass (axis a, its taps p): src is dense [outer, in_len, inner], dst dense
// [outer, out_len, inner].
template <typename T>
void resize_axis(const T* src, T* dst, int64_t outer, int64_t inner, const AxisTaps& a,
                 const Pass<T>& p, T fill, bool parallel) {
  // Inside a slab already running on the pool, the pass stays on its thread.
  auto rows = [parallel](int64_t count, int64_t cost,
                         const std::function<void(int64_t, int64_t)>& fn) {
    if (parallel)
      parallel_rows(count, cost, fn);
    else
      fn(0, count);
  };
  const int n = p.n;
  if (inner == 1) {
    // Along the innermost dim: a short dot product per output element.
    rows(outer, a.out_len * n, [&](int64_t lo, int64_t hi) {
      std::vector<T> gathered(static_cast<size_t>(n));
      for (int64_t o = lo; o < hi; ++o) {
        const T* s = src + o * a.in_len;
        T* d = dst + o * a.out_len;
        if (p.consecutive) {
          row_dots<T>(s, d, a.out_len, n, p.first.data(), p.weight.data());
        } else {
          for (int64_t y = 0; y < a.out_len; ++y) {
            for (int t = 0; t < n; ++t) gathered[t] = s[p.index[y * n + t]];
            d[y] = dot(n, &p.weight[y * n], gathered.data());
          }
        }
        if (!a.outside.empty())
          for (int64_t y = 0; y < a.out_len; ++y)
            if (p.out(y)) d[y] = fill;
      }
    });
    return;
  }
  // Across rows of `inner` contiguous elements: each output row a weighted sum of n rows.
  rows(outer * a.out_len, inner * n, [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      const int64_t o = row / a.out_len, y = row % a.out_len;
      T* d = dst + row * inner;
      if (p.out(y)) {
        std::fill(d, d + inner, fill);
        continue;
      }
      const T* s = src + o * a.in_len * inner;
      const T* w = &p.weight[y * n];
      auto at = [&](int t) {
        return s + (p.consecutive ? p.first[y] + t : p.index[y * n + t]) * inner;
      };
      if (n == 2) {
        const T* s0 = at(0);
        const T* s1 = at(1);
        const T w0 = w[0], w1 = w[1];
        for (int64_t j = 0; j < inner; ++j) d[j] = w0 * s0[j] + w1 * s1[j];
        continue;
      }
      const T* s0 = at(0);
      const T w0 = w[0];
      for (int64_t j = 0; j < inner; ++j) d[j] = w0 * s0[j];
      for (int t = 1; t < n; ++t) {
        const T wt = w[t];
        if (wt == 0) continue;
        const T* st = at(t);
        for (int64_t j = 0; j < inner; ++j) d[j] += wt * st[j];
      }
    }
  });
}

template <typename T>
void interpolate(const TensorRef& src, const TensorRef& out, const Plan& plan, double fill) {
  constexpr DType kT = std::is_same_v<T, float> ? DType::kFloat : DType::kDouble;
  const DType t = out.desc.dtype;
  const Dims& in_shape = src.desc.shape;
  const int r = static_cast<int>(in_shape.size());
  // Read the input in place when it already is dense T; write the last pass straight into the
  // output when that is dense T too. Buffers are left uninitialised: each pass writes all.
  std::unique_ptr<T[]> in_copy, result;
  const T* from = nullptr;
  if (src.desc.dtype == kT && is_contiguous(src.desc)) {
    from = static_cast<const T*>(src.data) + src.desc.offset;
  } else {
    in_copy.reset(new T[static_cast<size_t>(element_count(src.desc))]);
    assign(Operand{row_major(kT, in_shape), in_copy.get()}, src_of(src));
    from = in_copy.get();
  }
  const bool direct = t == kT && is_contiguous(out.desc);
  T* to = static_cast<T*>(out.data) + out.desc.offset;
  if (!direct) {
    result.reset(new T[static_cast<size_t>(element_count(plan.out_shape))]);
    to = result.get();
  }
  // The dims before the first resized one split the tensor into slabs resized independently:
  // one slab per task, its passes through two buffers small enough to stay in cache.
  // Too few slabs to keep every thread busy: the whole tensor is one slab, each pass parallel.
  int lead = r;
  for (const AxisTaps& a : plan.axes) lead = std::min(lead, a.axis);
  int64_t slabs = 1, in_size = 1, out_size = 1, largest = 0;
  for (int k = 0; k < lead; ++k) slabs *= in_shape[k];
  if (slabs < default_thread_pool().size()) {
    lead = 0;
    slabs = 1;
  }
  Dims shape(in_shape.begin() + lead, in_shape.end());
  for (int k = lead; k < r; ++k) {
    in_size *= in_shape[k];
    out_size *= plan.out_shape[k];
  }
  for (const AxisTaps& a : plan.axes) {
    shape[a.axis - lead] = a.out_len;
    largest = std::max(largest, element_count(shape));
  }
  std::vector<Pass<T>> passes;
  for (const AxisTaps& a : plan.axes) passes.push_back(pass_of<T>(a));
  auto run_slab = [&](const T* s, T* d, bool parallel, T* buf0, T* buf1) {
    Dims sh(in_shape.begin() + lead, in_shape.end());
    const T* cur = s;
    for (size_t i = 0; i < plan.axes.size(); ++i) {
      const AxisTaps& a = plan.axes[i];
      const int axis = a.axis - lead;
      int64_t outer = 1, inner = 1;
      for (int k = 0; k < axis; ++k) outer *= sh[k];
      for (int k = axis + 1; k < static_cast<int>(sh.size()); ++k) inner *= sh[k];
      sh[axis] = a.out_len;
      T* dst = i + 1 == plan.axes.size() ? d : (i % 2 == 0 ? buf0 : buf1);
      resize_axis<T>(cur, dst, outer, inner, a, passes[i], static_cast<T>(fill), parallel);
      cur = dst;
    }
  };
  const size_t buf = plan.axes.size() > 1 ? static_cast<size_t>(largest) : 0;
  if (slabs == 1) {
    std::unique_ptr<T[]> b0(new T[buf]), b1(new T[buf]);
    run_slab(from, to, true, b0.get(), b1.get());
  } else {
    parallel_rows(slabs, out_size * plan.axes.size(), [&](int64_t lo, int64_t hi) {
      std::unique_ptr<T[]> b0(new T[buf]), b1(new T[buf]);
      for (int64_t o = lo; o < hi; ++o)
        run_slab(from + o * in_size, to + o * out_size, false, b0.get(), b1.get());
    });
  }
  if (direct) return;
  // Integer outputs round half to even and saturate, as the reference's saturate_cast.
  const int64_t count = element_count(plan.out_shape);
  if (is_integer(t))
    for (int64_t k = 0; k < count; ++k) result[k] = std::nearbyint(result[k]);
  assign(dst_of(out), ConstOperand(row_major(kT, plan.out_shape), result.get()));
}

void run_resize(KernelContext& ctx, const Settings& s) {
  const TensorRef& src = ctx.input(0);
  const std::vector<double> roi = read_floats(ctx, s.roi_at, "roi");
  std::vector<double> scales =
      s.fixed_scales ? *s.fixed_scales : read_floats(ctx, s.scales_at, "scales");
  std::vector<int64_t> sizes;
  if (scales.empty() && s.sizes_at >= 0 && s.sizes_at < ctx.num_inputs() &&
      ctx.input(s.sizes_at).present())
    sizes = read_ints(ctx.input(s.sizes_at), "sizes");
  require(!(s.coord == resize::Coord::kTfCropAndResize && roi.empty()),
          "tf_crop_and_resize needs the roi input");
  const TensorRef* out_ref = nullptr;
  const Plan plan =
      resize::make_plan(s, src.desc.shape, roi, scales, sizes, [&](const Dims& shape) {
        check_output_size(src.desc.dtype, shape, "the resized output");
        out_ref = &ctx.output(0, shape);
      });
  const TensorRef& out = *out_ref;
  if (element_count(plan.out_shape) == 0) return;
  if (plan.axes.empty()) return assign(dst_of(out), src_of(src));
  const DType t = src.desc.dtype;
  // Nearest of sub-byte dtypes runs as one-tap interpolation through double.
  if (s.mode == resize::Mode::kNearest && (gather_width_ok(t) || t == DType::kString))
    return nearest(src, out, plan, s.extrapolation);
  if (t == DType::kDouble || is_integer(t))
    interpolate<double>(src, out, plan, s.extrapolation);
  else
    interpolate<float>(src, out, plan, s.extrapolation);
}

}  // namespace

Reason supports_resize(const Graph& g, const Node& n) {
  Settings s;
  if (Reason r = resize::read_settings(n, s)) return r;
  const DType t = input_dtype(g, n, 0);
  if (t == DType::kString && s.mode != resize::Mode::kNearest)
    return "linear and cubic interpolation weight and sum the input; strings cannot be, so "
           "string data resizes in mode 'nearest' only";
  if (t != DType::kString)
    if (Reason r = engine_dtype_reason(t, "the input")) return r;
  if (t == DType::kBool && s.mode != resize::Mode::kNearest)
    return "linear and cubic interpolation of bool data is not defined";
  for (int i : {s.roi_at, s.scales_at})
    if (i >= 0 && has_input(n, i) && !is_floating(input_dtype(g, n, i)))
      return "input " + std::to_string(i) + " is " + std::string(dtype_name(input_dtype(g, n, i))) +
             ", not a float tensor";
  if (s.sizes_at >= 0) return check_ints_input(g, n, s.sizes_at, "sizes");
  return std::nullopt;
}

std::unique_ptr<Kernel> create_resize(const Graph&, const Node& n) {
  Settings s;
  if (Reason r = resize::read_settings(n, s)) fail(ErrorCode::kNotSupported, n.op + ": " + *r);
  return make_node_kernel(n, [s](KernelContext& ctx) { run_resize(ctx, s); });
}

}  // namespace geon::cpu
