// Values inside the CUDA engine's kernels: an 8-byte slot holding one compute-type value, the
// dispatch from a compute-type index to its C++ type, and the conversions between compute
// types and geon::Scalar with the CPU engine's rules (core/dtype/scalar.cc). GEON_HD, so the
// CPU tests run this very code against the CPU engine.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/base/hd.h"
#include "core/dtype/scalar.h"

namespace geon::cuda {

// Positions in kComputeTypes (core/engine/ops.h).
enum ComputeIndex : int8_t {
  kCiFloat = 0,
  kCiDouble,
  kCiInt8,
  kCiInt16,
  kCiInt32,
  kCiInt64,
  kCiUInt8,
  kCiUInt16,
  kCiUInt32,
  kCiUInt64,
  kCiBool,
};

// One value of a compute type, bit-copied into the low bytes.
struct Value {
  uint64_t bits = 0;
};

template <class T>
GEON_HD T get(Value v) {
  T t;
  std::memcpy(&t, &v.bits, sizeof(T));
  return t;
}

template <class T>
GEON_HD Value put(T t) {
  Value v;
  std::memcpy(&v.bits, &t, sizeof(T));
  return v;
}

// Calls f(T{}) for the compute type at index ci.
template <class F>
GEON_HD void with_compute(int ci, F&& f) {
  switch (ci) {
    case kCiFloat:
      f(float{});
      return;
    case kCiDouble:
      f(double{});
      return;
    case kCiInt8:
      f(int8_t{});
      return;
    case kCiInt16:
      f(int16_t{});
      return;
    case kCiInt32:
      f(int32_t{});
      return;
    case kCiInt64:
      f(int64_t{});
      return;
    case kCiUInt8:
      f(uint8_t{});
      return;
    case kCiUInt16:
      f(uint16_t{});
      return;
    case kCiUInt32:
      f(uint32_t{});
      return;
    case kCiUInt64:
      f(uint64_t{});
      return;
    default:
      f(bool{});
      return;
  }
}

template <class T>
GEON_HD Scalar scalar_of(T v) {
  Scalar s;
  if constexpr (std::is_same_v<T, bool>) {
    s.kind = Scalar::Kind::kUnsigned;
    s.u = v ? 1 : 0;
  } else if constexpr (std::is_floating_point_v<T>) {
    s.kind = Scalar::Kind::kFloat;
    s.re = static_cast<double>(v);
  } else if constexpr (std::is_signed_v<T>) {
    s.kind = Scalar::Kind::kSigned;
    s.i = v;
  } else {
    s.kind = Scalar::Kind::kUnsigned;
    s.u = v;
  }
  return s;
}

GEON_HD bool scalar_is_int(const Scalar& v) {
  return v.kind == Scalar::Kind::kSigned || v.kind == Scalar::Kind::kUnsigned;
}

// The low 64 bits of an integer scalar (two's complement for signed ones).
GEON_HD uint64_t scalar_int_bits(const Scalar& v) {
  return v.kind == Scalar::Kind::kSigned ? static_cast<uint64_t>(v.i) : v.u;
}

// Float to integer as the CPU casts it: truncate toward zero, NaN to 0, saturate out of range.
template <class T>
GEON_HD T float_to_int(double x) {
  if (std::isnan(x)) return T(0);
  const double t = std::trunc(x);
  const double hi = std::ldexp(1.0, std::numeric_limits<T>::digits);  // max + 1, exact
  if (t >= hi) return std::numeric_limits<T>::max();
  if (t < (std::numeric_limits<T>::is_signed ? -hi : 0.0)) return std::numeric_limits<T>::min();
  return static_cast<T>(t);
}

GEON_HD bool scalar_truth(const Scalar& v) {
  switch (v.kind) {
    case Scalar::Kind::kFloat:
      return v.re != 0;  // NaN != 0: NaN is true
    case Scalar::Kind::kComplex:
      return v.re != 0 || v.im != 0;
    case Scalar::Kind::kSigned:
      return v.i != 0;
    default:
      return v.u != 0;
  }
}

// The real part as F (float or double), rounded once.
template <class F>
GEON_HD F scalar_real(const Scalar& v) {
  switch (v.kind) {
    case Scalar::Kind::kSigned:
      return static_cast<F>(v.i);
    case Scalar::Kind::kUnsigned:
      return static_cast<F>(v.u);
    default:
      return static_cast<F>(v.re);
  }
}

// A scalar as compute type T, by the rules of store_scalar.
template <class T>
GEON_HD T compute_of(const Scalar& v) {
  if constexpr (std::is_same_v<T, bool>)
    return scalar_truth(v);
  else if constexpr (std::is_floating_point_v<T>)
    return scalar_real<T>(v);
  else if (scalar_is_int(v))
    return static_cast<T>(scalar_int_bits(v));  // wraps, as Cast discards higher bits
  else
    return float_to_int<T>(v.re);
}

GEON_HD Value value_of(const Scalar& s, int ci) {
  Value r;
  with_compute(ci, [&](auto t) { r = put(compute_of<decltype(t)>(s)); });
  return r;
}

GEON_HD Scalar scalar_of(Value v, int ci) {
  Scalar s;
  with_compute(ci, [&](auto t) { s = scalar_of(get<decltype(t)>(v)); });
  return s;
}

// A value of compute type `from` as compute type `to` (the CPU's typed conversion loops).
GEON_HD Value convert_value(Value v, int from, int to) {
  return from == to ? v : value_of(scalar_of(v, from), to);
}

}  // namespace geon::cuda
