// Accumulator loops. Folding into one element uses 16 independent lanes so the compiler can
// vectorise without reassociating a single floating-point sum.
#include "core/engine/accumulate.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/base/error.h"
#include "core/engine/engine.h"

namespace geon {
namespace {

template <Reduce R, class A>
A combine(A a, A b) {
  // Integer sums and products wrap (through the unsigned type, where overflow is defined),
  // as the elementwise ops do.
  using U = std::conditional_t<std::is_integral_v<A>, std::make_unsigned<A>, std::type_identity<A>>;
  if constexpr (R == Reduce::kSum || R == Reduce::kMean)
    return static_cast<A>(static_cast<typename U::type>(a) + static_cast<typename U::type>(b));
  else if constexpr (R == Reduce::kProd)
    return static_cast<A>(static_cast<typename U::type>(a) * static_cast<typename U::type>(b));
  else if constexpr (R == Reduce::kMax) {
    if constexpr (std::is_floating_point_v<A>)
      return (a > b || std::isnan(a)) ? a : b;
    else
      return a > b ? a : b;
  } else {
    if constexpr (std::is_floating_point_v<A>)
      return (a < b || std::isnan(a)) ? a : b;
    else
      return a < b ? a : b;
  }
}

template <Reduce R, class A>
A identity() {
  if constexpr (R == Reduce::kSum || R == Reduce::kMean)
    return A(0);
  else if constexpr (R == Reduce::kProd)
    return A(1);
  else if constexpr (R == Reduce::kMax)
    return std::is_floating_point_v<A> ? -std::numeric_limits<A>::infinity()
                                       : std::numeric_limits<A>::lowest();
  else
    return std::is_floating_point_v<A> ? std::numeric_limits<A>::infinity()
                                       : std::numeric_limits<A>::max();
}

// Eight floats as one value. The lanes of a max or min are these rather than a float array:
// GCC leaves the array's selects scalar (it vectorises the sums), and vector_size(64) selects
// are split into scalars where the machine has no 64-byte registers.
using Floats8 = float __attribute__((vector_size(32)));
using Ints8 = int32_t __attribute__((vector_size(32)));

// fold<R>(acc, 0, v, n) for R max or min and float values, as 16 lanes. A NaN never wins the
// lanes' comparison, so they only note one: a chunk with a NaN folds again in fold's own loop,
// which keeps it (the result is then that NaN, as before). Ties keep the value seen last, as
// combine does.
template <Reduce R>
void fold_extremes(double* acc, const float* v, int64_t n);

template <Reduce R, class A, class T>
void fold(A* acc, int64_t stride, const T* v, int64_t n) {
  if constexpr ((R == Reduce::kMax || R == Reduce::kMin) && std::is_same_v<A, double> &&
                std::is_same_v<T, float>) {
    if (stride == 0) return fold_extremes<R>(acc, v, n);
  }
  if (stride == 1) {  // a reduction over rows, into each column: the loop vectorises
    for (int64_t i = 0; i < n; ++i) acc[i] = combine<R>(acc[i], static_cast<A>(v[i]));
    return;
  }
  if (stride != 0) {
    for (int64_t i = 0; i < n; ++i)
      acc[i * stride] = combine<R>(acc[i * stride], static_cast<A>(v[i]));
    return;
  }
  // Float chunks fold in float lanes (twice the SIMD width of double; a chunk is at most a
  // few thousand values, so each lane sums few enough to stay accurate) and the lane totals
  // join the double accumulator. Products stay wide: they overflow float too easily.
  using L = std::conditional_t<std::is_same_v<T, float> && R != Reduce::kProd, float, A>;
  constexpr int kLanes = 16;
  L lane[kLanes];
  for (L& l : lane) l = identity<R, L>();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) lane[k] = combine<R>(lane[k], static_cast<L>(v[i + k]));
  A total = acc[0];
  for (int k = 0; k < kLanes; ++k) total = combine<R>(total, static_cast<A>(lane[k]));
  for (; i < n; ++i) total = combine<R>(total, static_cast<A>(v[i]));
  acc[0] = total;
}

template <Reduce R>
void fold_extremes(double* acc, const float* v, int64_t n) {
  Floats8 lane[2];
  for (Floats8& l : lane)
    for (int k = 0; k < 8; ++k) l[k] = identity<R, float>();
  Ints8 nan = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int h = 0; h < 2; ++h) {
      Floats8 x;
      std::memcpy(&x, v + i + 8 * h, sizeof x);
      if constexpr (R == Reduce::kMax)
        lane[h] = lane[h] > x ? lane[h] : x;
      else
        lane[h] = lane[h] < x ? lane[h] : x;
      nan |= x != x;
    }
  for (int k = 0; k < 8; ++k)
    if (nan[k]) {
      // Rare: redo the chunk with the NaN-keeping combine.
      double total = acc[0];
      for (int64_t j = 0; j < n; ++j) total = combine<R>(total, static_cast<double>(v[j]));
      acc[0] = total;
      return;
    }
  double total = acc[0];
  for (int h = 0; h < 2; ++h)
    for (int k = 0; k < 8; ++k) total = combine<R>(total, static_cast<double>(lane[h][k]));
  for (; i < n; ++i) total = combine<R>(total, static_cast<double>(v[i]));
  acc[0] = total;
}

// GCC contracts a product and a sum in separate statements into an FMA (-ffp-contract=fast);
// clang does so only within one expression, and has no such attribute.
#if defined(__GNUC__) && !defined(__clang__)
#define GEON_NO_FP_CONTRACT __attribute__((optimize("fp-contract=off")))
#else
#define GEON_NO_FP_CONTRACT
#endif

// One term of a sum of float products: a[i] * b[i], or with kSquares (a[i] - b[i])^2, each
// step rounded to float as the stored differences and products were.
template <bool kSquares>
GEON_NO_FP_CONTRACT inline float product_term(const float* a, const float* b, int64_t i) {
  if constexpr (kSquares) {
    const float d = a[i] - b[i];
    return d * d;
  } else {
    return a[i] * b[i];
  }
}

// fold<kSum>(acc, 0, terms, n) for float terms. Each term is rounded to float before it is
// added, as the stored terms were: an FMA would change the sums.
template <bool kSquares>
GEON_NO_FP_CONTRACT void fold_products(double* acc, const float* a, const float* b, int64_t n) {
  constexpr int kLanes = 16;
  float lane[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) {
      const float p = product_term<kSquares>(a, b, i + k);
      lane[k] += p;
    }
  double total = acc[0];
  for (int k = 0; k < kLanes; ++k) total += static_cast<double>(lane[k]);
  for (; i < n; ++i) total += static_cast<double>(product_term<kSquares>(a, b, i));
  acc[0] = total;
}

bool folds_products(Reduce r, DType acc_dtype, int64_t acc_stride, DType value) {
  return (r == Reduce::kSum || r == Reduce::kMean) && acc_dtype == DType::kDouble &&
         value == DType::kFloat && acc_stride == 0;
}

template <class F>
void with_acc(DType acc, F&& f) {
  switch (acc) {
    case DType::kDouble:
      f(double{});
      return;
    case DType::kInt64:
      f(int64_t{});
      return;
    case DType::kUInt64:
      f(uint64_t{});
      return;
    default:
      fail(ErrorCode::kInternal, "accumulate: bad accumulator dtype");
  }
}

template <class F>
void with_value(DType t, F&& f) {
  switch (t) {
    case DType::kFloat:
      f(float{});
      return;
    case DType::kDouble:
      f(double{});
      return;
    case DType::kInt8:
      f(int8_t{});
      return;
    case DType::kInt16:
      f(int16_t{});
      return;
    case DType::kInt32:
      f(int32_t{});
      return;
    case DType::kInt64:
      f(int64_t{});
      return;
    case DType::kUInt8:
      f(uint8_t{});
      return;
    case DType::kUInt16:
      f(uint16_t{});
      return;
    case DType::kUInt32:
      f(uint32_t{});
      return;
    case DType::kUInt64:
      f(uint64_t{});
      return;
    case DType::kBool:
      f(bool{});
      return;
    default:
      fail(ErrorCode::kInternal, "accumulate: value dtype is not a compute type");
  }
}

template <class F>
void with_reduce(Reduce r, F&& f) {
  switch (r) {
    case Reduce::kSum:
      f(std::integral_constant<Reduce, Reduce::kSum>{});
      return;
    case Reduce::kMean:
      f(std::integral_constant<Reduce, Reduce::kMean>{});
      return;
    case Reduce::kMax:
      f(std::integral_constant<Reduce, Reduce::kMax>{});
      return;
    case Reduce::kMin:
      f(std::integral_constant<Reduce, Reduce::kMin>{});
      return;
    case Reduce::kProd:
      f(std::integral_constant<Reduce, Reduce::kProd>{});
      return;
    case Reduce::kNone:
      break;
  }
  fail(ErrorCode::kInternal, "accumulate: no reduction");
}

}  // namespace

DType accumulator_dtype(DType result) {
  if (result == DType::kFloat || result == DType::kDouble) return DType::kDouble;
  if (result == DType::kBool) return DType::kInt64;
  return is_signed(result) ? DType::kInt64 : DType::kUInt64;
}

void fill_identity(Reduce r, DType acc, void* data, int64_t n) {
  with_reduce(r, [&](auto rc) {
    with_acc(acc, [&](auto a) {
      using A = decltype(a);
      A* p = static_cast<A*>(data);
      for (int64_t i = 0; i < n; ++i) p[i] = identity<decltype(rc)::value, A>();
    });
  });
}

void accumulate(Reduce r, DType acc_dtype, void* acc, int64_t acc_stride, DType value,
                const void* values, int64_t n) {
  with_reduce(r, [&](auto rc) {
    with_acc(acc_dtype, [&](auto a) {
      with_value(value, [&](auto v) {
        using A = decltype(a);
        using V = decltype(v);
        fold<decltype(rc)::value>(static_cast<A*>(acc), acc_stride, static_cast<const V*>(values),
                                  n);
      });
    });
  });
}

bool accumulate_products(Reduce r, DType acc_dtype, void* acc, int64_t acc_stride, DType value,
                         const void* a, const void* b, int64_t n) {
  if (!folds_products(r, acc_dtype, acc_stride, value)) return false;
  fold_products<false>(static_cast<double*>(acc), static_cast<const float*>(a),
                       static_cast<const float*>(b), n);
  return true;
}

bool accumulate_squared_differences(Reduce r, DType acc_dtype, void* acc, int64_t acc_stride,
                                    DType value, const void* a, const void* b, int64_t n) {
  if (!folds_products(r, acc_dtype, acc_stride, value)) return false;
  fold_products<true>(static_cast<double*>(acc), static_cast<const float*>(a),
                      static_cast<const float*>(b), n);
  return true;
}

void combine_partials(Reduce r, DType acc_dtype, void* acc, const void* other, int64_t n) {
  with_reduce(r, [&](auto rc) {
    with_acc(acc_dtype, [&](auto a) {
      using A = decltype(a);
      A* p = static_cast<A*>(acc);
      const A* q = static_cast<const A*>(other);
      for (int64_t i = 0; i < n; ++i) p[i] = combine<decltype(rc)::value>(p[i], q[i]);
    });
  });
}

void divide_by_count(DType acc_dtype, void* acc, int64_t n, int64_t count) {
  with_acc(acc_dtype, [&](auto a) {
    using A = decltype(a);
    A* p = static_cast<A*>(acc);
    if constexpr (std::is_floating_point_v<A>) {
      for (int64_t i = 0; i < n; ++i) p[i] /= static_cast<A>(count);
    } else {
      // Integer mean of nothing is 0 rather than a division by zero.
      for (int64_t i = 0; i < n; ++i)
        p[i] = count == 0 ? A(0) : static_cast<A>(p[i] / static_cast<A>(count));
    }
  });
}

}  // namespace geon
