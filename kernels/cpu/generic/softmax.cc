// Softmax, LogSoftmax and Hardmax on cpu.generic. The input is seen as [outer, n, inner]: before
// opset 13, n is everything from `axis` on (the ONNX 2-D coercion) and inner is 1; from 13, n is
// the one axis. Rows (inner = 1) run contiguous loops; columns (inner > 1) run the same steps on
// vectors along inner, so both forms vectorise. Softmax subtracts the maximum first.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

enum class Kind { kSoftmax, kLogSoftmax, kHardmax };

Kind kind_of(std::string_view op) {
  if (op == "Softmax") return Kind::kSoftmax;
  if (op == "LogSoftmax") return Kind::kLogSoftmax;
  return Kind::kHardmax;
}

// exp for the softmax loops: float takes a branch-free Cephes-style polynomial (2^n times a
// degree-6 polynomial of the remainder, within 1e-7 relative) that the compiler vectorises,
// which std::exp is not; double keeps std::exp. n is rounded by adding 1.5 * 2^23 (floor would
// stop the vectoriser), which also leaves n's bits in t. Arguments are x - max <= 0 here; below
// -87.3 (where floats underflow) the result is about 1e-38 instead of 0, far under any
// tolerance, and NaN passes through.
inline float vexp(float x) {
  x = x < -87.3f ? -87.3f : x;
  x = x > 88.3f ? 88.3f : x;
  const float t = x * 1.44269504f + 12582912.0f;
  const float n = t - 12582912.0f;
  const float r = x - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e = p * r * r + r + 1.0f;
  return e * std::bit_cast<float>((std::bit_cast<int32_t>(t) - 0x4B400000 + 127) << 23);
}
inline double vexp(double x) { return std::exp(x); }

// Rows (inner = 1): contiguous loops with lane reductions, so max, exp and sum vectorise.
template <class T>
void softmax_row(Kind kind, const T* x, T* y, int64_t n) {
  T lanes[8];
  std::fill(lanes, lanes + 8, x[0]);
  int64_t j = 0;
  if (kind == Kind::kHardmax) {
    int64_t where = 0;
    for (int64_t k = 1; k < n; ++k)
      if (x[k] > x[where]) where = k;  // strictly greater: the first maximum wins
    std::fill(y, y + n, T(0));
    y[where] = T(1);
    return;
  }
  for (; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; ++k) lanes[k] = std::max(lanes[k], x[j + k]);
  T best = x[0];
  for (; j < n; ++j) best = std::max(best, x[j]);
  for (T l : lanes) best = std::max(best, l);
  // std::max skips NaNs, but their exp below makes the sum, hence the row, NaN.
  for (j = 0; j < n; ++j) y[j] = vexp(x[j] - best);
  T sums[8] = {};
  for (j = 0; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; ++k) sums[k] += y[j + k];
  T sum = 0;
  for (; j < n; ++j) sum += y[j];
  for (T l : sums) sum += l;
  if (kind == Kind::kSoftmax) {
    const T inv = T(1) / sum;
    for (j = 0; j < n; ++j) y[j] *= inv;
    return;
  }
  const T shift = best + std::log(sum);
  for (j = 0; j < n; ++j) y[j] = x[j] - shift;
}

// Columns (inner > 1): one block of `width` columns, x and y at column 0 of the block, the
// elements of one column `inner` apart, n of them; the loops run along the columns.
template <class T>
void softmax_block(Kind kind, const T* x, T* y, int64_t n, int64_t inner, int64_t width, T* best,
                   T* sum, int64_t* where) {
  constexpr T lowest = -std::numeric_limits<T>::infinity();
  std::fill(best, best + width, lowest);
  std::fill(sum, sum + width, T(0));
  std::fill(where, where + width, int64_t{0});
  for (int64_t k = 0; k < n; ++k) {
    const T* xk = x + k * inner;
    if (kind == Kind::kHardmax) {
      // Strictly greater: the first maximal index wins.
      for (int64_t i = 0; i < width; ++i)
        if (xk[i] > best[i] || (k == 0)) best[i] = xk[i], where[i] = k;
    } else {
      for (int64_t i = 0; i < width; ++i) best[i] = std::max(best[i], xk[i]);
    }
  }
  if (kind == Kind::kHardmax) {
    for (int64_t k = 0; k < n; ++k) {
      T* yk = y + k * inner;
      for (int64_t i = 0; i < width; ++i) yk[i] = where[i] == k ? T(1) : T(0);
    }
    return;
  }
  for (int64_t k = 0; k < n; ++k) {
    const T* xk = x + k * inner;
    T* yk = y + k * inner;
    for (int64_t i = 0; i < width; ++i) {
      const T e = vexp(xk[i] - best[i]);
      if (kind == Kind::kSoftmax) yk[i] = e;
      sum[i] += e;
    }
  }
  if (kind == Kind::kSoftmax) {
    for (int64_t i = 0; i < width; ++i) sum[i] = T(1) / sum[i];
    for (int64_t k = 0; k < n; ++k) {
      T* yk = y + k * inner;
      for (int64_t i = 0; i < width; ++i) yk[i] *= sum[i];
    }
    return;
  }
  for (int64_t i = 0; i < width; ++i) sum[i] = best[i] + std::log(sum[i]);
  for (int64_t k = 0; k < n; ++k) {
    const T* xk = x + k * inner;
    T* yk = y + k * inner;
    for (int64_t i = 0; i < width; ++i) yk[i] = xk[i] - sum[i];
  }
}

template <class T>
constexpr DType compute_of() {
  return std::is_same_v<T, double> ? DType::kDouble : DType::kFloat;
}

template <class T>
void softmax_run(KernelContext& ctx, Kind kind, int64_t axis_attr, bool coerce_2d) {
  const TensorRef& x = ctx.input(0);
  const TensorRef& y = ctx.output(0, x.desc.shape);
  const Dims& s = x.desc.shape;
  const int r = x.desc.rank();
  int axis = 0;
  if (coerce_2d) {
    // Before 13 the axis may equal the rank: the whole tensor is one row per element.
    require(axis_attr >= -r && axis_attr <= r, [&] {
      return "axis " + std::to_string(axis_attr) + " is out of range for rank " + std::to_string(r);
    });
    axis = static_cast<int>(axis_attr < 0 ? axis_attr + r : axis_attr);
  } else {
    axis = normalize_axis(axis_attr, r);
  }
  int64_t outer = 1, n = 1, inner = 1;
  for (int i = 0; i < r; ++i) {
    if (i < axis)
      outer *= s[i];
    else if (i == axis || coerce_2d)
      n *= s[i];
    else
      inner *= s[i];
  }
  if (outer * n * inner == 0) return;
  std::vector<std::byte> xs, ys;
  const T* xp = static_cast<const T*>(stage_input(x, {}, compute_of<T>(), xs));
  T* yp = static_cast<T*>(stage_output(y, {}, compute_of<T>(), ys));
  // Work items: one row, or one block of up to kWidth columns of one outer index.
  constexpr int64_t kWidth = 256;
  const int64_t blocks = (inner + kWidth - 1) / kWidth;
  parallel_rows(outer * blocks, n * std::min(inner, kWidth), [&](int64_t lo, int64_t hi) {
    std::vector<T> best(static_cast<size_t>(std::min(inner, kWidth)));
    std::vector<T> sum(best.size());
    std::vector<int64_t> where(best.size());
    for (int64_t item = lo; item < hi; ++item) {
      const int64_t o = item / blocks, b = item % blocks;
      const int64_t first = b * kWidth, width = std::min(kWidth, inner - first);
      const int64_t at = o * n * inner + first;
      if (inner == 1) {
        softmax_row(kind, xp + at, yp + at, n);
        continue;
      }
      softmax_block(kind, xp + at, yp + at, n, inner, width, best.data(), sum.data(), where.data());
    }
  });
  store_output(y, {}, compute_of<T>(), ys);
}

}  // namespace

Reason supports_softmax(const Graph& g, const Node& n) {
  if (Reason r = norm_dtype_reason(input_dtype(g, n, 0), "input 0")) return r;
  return norm_dtype_reason(output_dtype(g, n, 0), "output 0");
}

std::unique_ptr<Kernel> create_softmax(const Graph&, const Node& n) {
  const Kind kind = kind_of(n.op);
  const bool coerce_2d = n.opset < 13;
  const int64_t axis = attr_int(n, "axis", coerce_2d ? 1 : -1);
  return make_node_kernel(n, [=](KernelContext& ctx) {
    if (norm_compute_dtype(ctx.input(0).desc.dtype) == DType::kDouble)
      softmax_run<double>(ctx, kind, axis, coerce_2d);
    else
      softmax_run<float>(ctx, kind, axis, coerce_2d);
  });
}

}  // namespace geon::cpu
