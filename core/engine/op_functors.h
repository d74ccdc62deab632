// The math of each elementwise op, one small functor per op, written once for every compute
// type. Integer arithmetic wraps (two's complement, like numpy) instead of hitting C++'s
// undefined signed overflow; integer division or modulo by zero yields 0 instead of trapping.
// Every function is GEON_HD: the CUDA op table compiles this very math for the device.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/base/hd.h"
#include "core/engine/float_math.h"
#include "core/engine/ops.h"

namespace geon::ops {

template <class T>
using Unsigned = std::make_unsigned_t<T>;

template <class T>
constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Wrapping integer arithmetic through the unsigned type, where overflow is defined.
template <class T>
GEON_HD T wrap_add(T a, T b) {
  if constexpr (kIsInt<T>)
    return static_cast<T>(static_cast<Unsigned<T>>(a) + static_cast<Unsigned<T>>(b));
  else
    return a + b;
}
template <class T>
GEON_HD T wrap_sub(T a, T b) {
  if constexpr (kIsInt<T>)
    return static_cast<T>(static_cast<Unsigned<T>>(a) - static_cast<Unsigned<T>>(b));
  else
    return a - b;
}
// Unsigned types narrower than int promote to int, where 65535 * 65535 overflows: multiply in
// at least unsigned int.
template <class T>
using UnsignedAtLeastInt = std::common_type_t<Unsigned<T>, unsigned>;
template <class T>
GEON_HD T wrap_mul(T a, T b) {
  if constexpr (kIsInt<T>)
    return static_cast<T>(static_cast<UnsignedAtLeastInt<T>>(a) *
                          static_cast<UnsignedAtLeastInt<T>>(b));
  else
    return a * b;
}

// ---- unary ----
struct Identity {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return x;
  }
};
struct Neg {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return wrap_sub(T(0), x);
  }
};
struct Abs {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    if constexpr (std::is_unsigned_v<T>)
      return x;
    else
      return x < T(0) ? wrap_sub(T(0), x) : x;
  }
};
struct Square {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return wrap_mul(x, x);
  }
};
struct Sign {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(x)) return x;
    }
    if constexpr (std::is_unsigned_v<T>)
      return static_cast<T>(x != T(0));  // spelled out: nvcc rejects `x < 0` on unsigned
    else
      return static_cast<T>((T(0) < x) - (x < T(0)));
  }
};
struct Relu {  // max(0, x), NaN kept as ONNX's max keeps it (`x > 0 ? x : 0` gave 0)
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return x <= T(0) ? T(0) : x;
  }
};
struct Not {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return !x;
  }
};
struct BitwiseNot {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return static_cast<T>(~x);
  }
};
struct Exp {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    if constexpr (std::is_same_v<T, float>)
      return float_math::exp(x);
    else
      return std::exp(x);
  }
};
struct Log {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    if constexpr (std::is_same_v<T, float>)
      return float_math::log(x);
    else
      return std::log(x);
  }
};
struct Sqrt {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return std::sqrt(x);
  }
};
struct Reciprocal {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return T(1) / x;
  }
};
struct Sin {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return std::sin(x);
  }
};
struct Cos {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return std::cos(x);
  }
};
struct Tan {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return std::tan(x);
  }
};
struct Asin {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return std::asin(x);
  }
};
struct Acos {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return std::acos(x);
  }
};
struct Atan {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return std::atan(x);
  }
};
struct Sinh {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return std::sinh(x);
  }
};
struct Cosh {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return std::cosh(x);
  }
};
struct Asinh {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return std::asinh(x);
  }
};
struct Acosh {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return std::acosh(x);
  }
};
struct Atanh {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return std::atanh(x);
  }
};
struct Tanh {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    if constexpr (std::is_same_v<T, float>)
      return float_math::tanh(x);
    else
      return std::tanh(x);
  }
};
struct Erf {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    if constexpr (std::is_same_v<T, float>)
      return float_math::erf(x);
    else
      return std::erf(x);
  }
};
struct Floor {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return std::floor(x);
  }
};
struct Ceil {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return std::ceil(x);
  }
};
// ONNX Round: halves to even, which is nearbyint under the default rounding mode.
struct Round {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return std::nearbyint(x);
  }
};
struct Sigmoid {
  // Split by sign so exp never overflows for large |x|.
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    if constexpr (std::is_same_v<T, float>) return float_math::sigmoid(x);
    if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
    const T e = std::exp(x);
    return e / (T(1) + e);
  }
};
struct Softplus {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
};
struct Softsign {
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return x / (T(1) + std::abs(x));
  }
};
struct LeakyRelu {
  template <class T>
  GEON_HD static T f(T x, const OpParams& p) {
    return x >= T(0) ? x : static_cast<T>(p.alpha) * x;
  }
};
struct Elu {
  template <class T>
  GEON_HD static T f(T x, const OpParams& p) {
    return x >= T(0) ? x : static_cast<T>(p.alpha) * std::expm1(x);
  }
};
struct Selu {  // alpha, gamma in beta
  template <class T>
  GEON_HD static T f(T x, const OpParams& p) {
    const T y = x > T(0) ? x : static_cast<T>(p.alpha) * std::expm1(x);
    return static_cast<T>(p.beta) * y;
  }
};
struct Celu {  // max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
  template <class T>
  GEON_HD static T f(T x, const OpParams& p) {
    const T a = static_cast<T>(p.alpha);
    return x > T(0) ? x : a * std::expm1(x / a);
  }
};
struct Gelu {  // the erf form
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    return T(0.5) * x * (T(1) + Erf::f(x * T(0.70710678118654752440), OpParams{}));
  }
};
struct GeluTanh {  // the tanh approximation
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    const T inner = T(0.79788456080286535588) * (x + T(0.044715) * x * x * x);
    return T(0.5) * x * (T(1) + Tanh::f(inner, OpParams{}));
  }
};
struct HardSigmoid {  // max(0, min(1, alpha * x + beta))
  template <class T>
  GEON_HD static T f(T x, const OpParams& p) {
    const T y = static_cast<T>(p.alpha) * x + static_cast<T>(p.beta);
    return y < T(0) ? T(0) : (y > T(1) ? T(1) : y);
  }
};
struct HardSwish {  // x * max(0, min(1, x / 6 + 1 / 2))
  template <class T>
  GEON_HD static T f(T x, const OpParams&) {
    const T y = x / T(6) + T(0.5);
    return x * (y < T(0) ? T(0) : (y > T(1) ? T(1) : y));
  }
};
struct Mish {  // x * tanh(softplus(x))
  template <class T>
  GEON_HD static T f(T x, const OpParams& p) {
    return x * std::tanh(Softplus::f(x, p));
  }
};
struct Swish {  // x * sigmoid(alpha * x)
  template <class T>
  GEON_HD static T f(T x, const OpParams& p) {
    return x * Sigmoid::f(static_cast<T>(p.alpha) * x, p);
  }
};
struct ThresholdedRelu {
  template <class T>
  GEON_HD static T f(T x, const OpParams& p) {
    return x > static_cast<T>(p.alpha) ? x : T(0);
  }
};
// lambd in alpha, bias in beta. Integers compare and shift in double (the attributes are
// floats), so a fractional lambd or bias acts as ONNX's reference does before the final cast.
struct Shrink {
  template <class T>
  GEON_HD static T f(T x, const OpParams& p) {
    if constexpr (std::is_floating_point_v<T>) {
      const T lambd = static_cast<T>(p.alpha), bias = static_cast<T>(p.beta);
      return x < -lambd ? x + bias : (x > lambd ? x - bias : T(0));
    } else {
      const double v = static_cast<double>(x);
      return v < -p.alpha ? static_cast<T>(v + p.beta)
                          : (v > p.alpha ? static_cast<T>(v - p.beta) : T(0));
    }
  }
};
struct IsNan {
  template <class T>
  GEON_HD static bool f(T x, const OpParams&) {
    return std::isnan(x);
  }
};
struct IsInf {
  template <class T>
  GEON_HD static bool f(T x, const OpParams&) {
    return std::isinf(x);
  }
};
// IsInf detecting one sign or none: alpha != 0 detects +inf, beta != 0 detects -inf.
struct IsInfSigned {
  template <class T>
  GEON_HD static bool f(T x, const OpParams& p) {
    return std::isinf(x) && (x > T(0) ? p.alpha != 0 : p.beta != 0);
  }
};

// ---- binary ----
struct Add {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    return wrap_add(a, b);
  }
};
struct Sub {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    return wrap_sub(a, b);
  }
};
struct Mul {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    return wrap_mul(a, b);
  }
};
struct Div {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    if constexpr (kIsInt<T>) {
      if (b == T(0)) return T(0);
      if constexpr (std::is_signed_v<T>)
        if (b == T(-1)) return wrap_sub(T(0), a);  // min / -1 overflows
    }
    return a / b;
  }
};
struct SquaredDifference {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    const T d = wrap_sub(a, b);
    return wrap_mul(d, d);
  }
};
// Max/Min propagate NaN, as ONNX's Max and Min do.
struct Max {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a) || std::isnan(b)) return a + b;
    }
    return a < b ? b : a;
  }
};
struct Min {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a) || std::isnan(b)) return a + b;
    }
    return b < a ? b : a;
  }
};
struct Pow {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    if constexpr (std::is_floating_point_v<T>) {
      // x^2 (decomposed normalisations) as the product: std::pow's value, and the CPU chunk
      // loop takes it vectorised for a whole chunk of exponents 2.
      return b == T(2) ? a * a : std::pow(a, b);
    } else {
      if constexpr (std::is_signed_v<T>)
        if (b < T(0)) return a == T(1) ? T(1) : a == T(-1) ? (b % 2 ? T(-1) : T(1)) : T(0);
      T r = 1;
      for (Unsigned<T> e = static_cast<Unsigned<T>>(b); e; e >>= 1, a = wrap_mul(a, a))
        if (e & 1) r = wrap_mul(r, a);
      return r;
    }
  }
};
// ONNX Mod with fmod=0: the result takes the divisor's sign (Python's %).
struct Mod {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    if constexpr (std::is_floating_point_v<T>) {
      T r = std::fmod(a, b);
      if (r != T(0) && ((r < T(0)) != (b < T(0)))) r += b;
      return r;
    } else {
      if (b == T(0)) return T(0);
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return T(0);
        T r = a % b;
        if (r != 0 && ((r < 0) != (b < 0))) r += b;
        return r;
      } else {
        return a % b;
      }
    }
  }
};
// ONNX Mod with fmod=1: the result takes the dividend's sign (C's fmod and %).
struct Fmod {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    if constexpr (std::is_floating_point_v<T>)
      return std::fmod(a, b);
    else {
      if (b == T(0)) return T(0);
      if constexpr (std::is_signed_v<T>)
        if (b == T(-1)) return T(0);
      return a % b;
    }
  }
};
struct Atan2 {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    return std::atan2(a, b);
  }
};
struct Prelu {
  template <class T>
  GEON_HD static T f(T x, T slope, const OpParams&) {
    return x < T(0) ? wrap_mul(x, slope) : x;
  }
};
struct Equal {
  template <class T>
  GEON_HD static bool f(T a, T b, const OpParams&) {
    return a == b;
  }
};
struct NotEqual {
  template <class T>
  GEON_HD static bool f(T a, T b, const OpParams&) {
    return a != b;
  }
};
struct Less {
  template <class T>
  GEON_HD static bool f(T a, T b, const OpParams&) {
    return a < b;
  }
};
struct LessEqual {
  template <class T>
  GEON_HD static bool f(T a, T b, const OpParams&) {
    return a <= b;
  }
};
struct Greater {
  template <class T>
  GEON_HD static bool f(T a, T b, const OpParams&) {
    return a > b;
  }
};
struct GreaterEqual {
  template <class T>
  GEON_HD static bool f(T a, T b, const OpParams&) {
    return a >= b;
  }
};
struct And {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    return a && b;
  }
};
struct Or {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    return a || b;
  }
};
struct Xor {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    return a != b;
  }
};
struct BitwiseAnd {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    return a & b;
  }
};
struct BitwiseOr {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    return a | b;
  }
};
struct BitwiseXor {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    return a ^ b;
  }
};
// Shifts by the type's width or more give 0 rather than undefined behaviour.
struct ShiftLeft {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    return b >= T(sizeof(T) * 8) ? T(0) : static_cast<T>(a << b);
  }
};
struct ShiftRight {
  template <class T>
  GEON_HD static T f(T a, T b, const OpParams&) {
    return b >= T(sizeof(T) * 8) ? T(0) : static_cast<T>(a >> b);
  }
};

// ---- ternary ----
struct Where {
  template <class T>
  GEON_HD static T f(T c, T a, T b, const OpParams&) {
    return c ? a : b;
  }
};
// ONNX Clip: min then max bound; NaN in x stays NaN.
struct Clip {
  template <class T>
  GEON_HD static T f(T x, T lo, T hi, const OpParams&) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(x)) return x;
    }
    // ONNX Clip is min(max(x, lo), hi): when lo > hi every element becomes hi.
    const T y = x < lo ? lo : x;
    return hi < y ? hi : y;
  }
};
struct MulAdd {
  template <class T>
  GEON_HD static T f(T a, T b, T c, const OpParams&) {
    return wrap_add(wrap_mul(a, b), c);
  }
};

}  // namespace geon::ops
