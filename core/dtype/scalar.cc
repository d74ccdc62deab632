// load_scalar/store_scalar: ONNX Cast's conversion rules for one element, written for
// exactness rather than speed. Where Cast is silent or undefined, the choice is numpy's astype
// when numpy defines one, and otherwise the one documented at the function that makes it.
#include "core/dtype/scalar.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "core/base/error.h"
#include "core/dtype/half.h"
#include "core/dtype/packed.h"

namespace geon {
namespace {

using Kind = Scalar::Kind;

template <class T>
T read(const void* base, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(base) + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

template <class T>
void write(void* base, int64_t i, T v) {
  std::memcpy(static_cast<char*>(base) + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

Scalar real(double x) { return Scalar{Kind::kFloat, x, 0, 0, 0}; }
Scalar signed_int(int64_t x) { return Scalar{Kind::kSigned, 0, 0, x, 0}; }
Scalar unsigned_int(uint64_t x) { return Scalar{Kind::kUnsigned, 0, 0, 0, x}; }
Scalar complex(double re, double im) { return Scalar{Kind::kComplex, re, im, 0, 0}; }

[[noreturn]] void not_numeric(DType t) {
  fail(ErrorCode::kNotSupported,
       "dtype " + std::string(dtype_name(t)) + " is not numeric and has no scalar conversion");
}

// ---- integers to floats -------------------------------------------------------------------

// Rounds an integer magnitude to 53 bits by round-to-odd (truncate, then set the last bit if
// anything was dropped). A later ties-to-even rounding to a format with at most 51 bits then
// gives the same result as rounding the integer directly, which double's own rounding would
// not: 2^40 + 2^32 + 1 must round up to bfloat16, but as a float it becomes the tie 2^40 + 2^32.
// Directed rounding (e8m0 up/down) also survives, since inexactness is kept in the last bit.
double odd_double(uint64_t m) {
  if (m < (uint64_t{1} << 53)) return static_cast<double>(m);
  const int shift = std::bit_width(m) - 53;
  uint64_t t = m >> shift;
  if (m & ((uint64_t{1} << shift) - 1)) t |= 1;
  return std::ldexp(static_cast<double>(t), shift);
}

// The real part, ready for one rounding to a float type narrower than float32.
double narrowable(const Scalar& v) {
  switch (v.kind) {
    case Kind::kFloat:
    case Kind::kComplex:
      return v.re;
    case Kind::kSigned: {
      const uint64_t m = v.i < 0 ? uint64_t{0} - static_cast<uint64_t>(v.i) : v.i;
      return v.i < 0 ? -odd_double(m) : odd_double(m);
    }
    case Kind::kUnsigned:
      return odd_double(v.u);
  }
  return 0;
}

// The real part converted to F (float or double) with one ties-to-even rounding.
template <class F>
F real_as(const Scalar& v) {
  switch (v.kind) {
    case Kind::kFloat:
    case Kind::kComplex:
      return static_cast<F>(v.re);
    case Kind::kSigned:
      return static_cast<F>(v.i);
    case Kind::kUnsigned:
      return static_cast<F>(v.u);
  }
  return 0;
}

// ---- floats to integers -------------------------------------------------------------------

// Cast leaves float -> integer out of range undefined, and so does numpy. We truncate toward
// zero (as C and numpy do in range), send NaN to 0, and saturate to [min, max] (±inf too), so
// the result never depends on the machine.
template <class T>
T float_to_int(double x) {
  if (std::isnan(x)) return 0;
  const double t = std::trunc(x);
  const double hi = std::ldexp(1.0, std::numeric_limits<T>::digits);  // max + 1, exact
  if (t >= hi) return std::numeric_limits<T>::max();
  if (t < (std::numeric_limits<T>::is_signed ? -hi : 0.0)) return std::numeric_limits<T>::min();
  return static_cast<T>(t);
}

// The ONNX int4/int2 specs: "rounding to the nearest-integer (with ties to even) and
// truncating" -- truncating the bits, as for wider integers (ONNX's own test data casts 8.0 to
// int4 -8). Every double of magnitude >= 2^53 is a multiple of 16, so we give ±inf the same
// low bits, 0; NaN is 0 as for every integer target.
uint8_t float_to_low_bits(double x, int bits) {
  if (!std::isfinite(x)) return 0;
  const double n = x - std::remainder(x, 1.0);  // nearest integer, ties to even, exact
  const double mod = std::ldexp(1.0, bits);
  double r = std::fmod(n, mod);  // exact
  if (r < 0) r += mod;
  return static_cast<uint8_t>(r);
}

// The low 64 bits of an integer source (two's complement for signed ones).
uint64_t int_bits(const Scalar& v) {
  return v.kind == Kind::kSigned ? static_cast<uint64_t>(v.i) : v.u;
}

bool is_int(const Scalar& v) { return v.kind == Kind::kSigned || v.kind == Kind::kUnsigned; }

// Integer targets of 8 bits and more: integer sources wrap (Cast: "discard higher bits and
// reinterpret"), real and complex sources go through float_to_int.
template <class T>
T to_int(const Scalar& v) {
  if (is_int(v)) return static_cast<T>(int_bits(v));  // modular since C++20
  return float_to_int<T>(v.re);
}

uint8_t to_low_bits(const Scalar& v, int bits) {
  if (is_int(v)) return static_cast<uint8_t>(int_bits(v));  // store_packed keeps `bits` of it
  return float_to_low_bits(v.re, bits);
}

bool truth(const Scalar& v) {
  switch (v.kind) {
    case Kind::kFloat:
      return v.re != 0;  // NaN != 0, so NaN is true
    case Kind::kComplex:
      return v.re != 0 || v.im != 0;
    case Kind::kSigned:
      return v.i != 0;
    case Kind::kUnsigned:
      return v.u != 0;
  }
  return false;
}

double imag(const Scalar& v) { return v.kind == Kind::kComplex ? v.im : 0.0; }

}  // namespace

Scalar load_scalar(DType t, const void* base, int64_t index) {
  switch (t) {
    case DType::kFloat:
      return real(read<float>(base, index));
    case DType::kDouble:
      return real(read<double>(base, index));
    case DType::kFloat16:
      return real(half_to_float(read<uint16_t>(base, index)));
    case DType::kBFloat16:
      return real(bfloat16_to_float(read<uint16_t>(base, index)));
    case DType::kFloat8E4M3FN:
      return real(float8e4m3fn_to_float(read<uint8_t>(base, index)));
    case DType::kFloat8E4M3FNUZ:
      return real(float8e4m3fnuz_to_float(read<uint8_t>(base, index)));
    case DType::kFloat8E5M2:
      return real(float8e5m2_to_float(read<uint8_t>(base, index)));
    case DType::kFloat8E5M2FNUZ:
      return real(float8e5m2fnuz_to_float(read<uint8_t>(base, index)));
    case DType::kFloat8E8M0:
      return real(float8e8m0_to_float(read<uint8_t>(base, index)));
    case DType::kFloat4E2M1:
      return real(float4e2m1_to_float(load_packed<4>(base, index)));
    case DType::kInt8:
      return signed_int(read<int8_t>(base, index));
    case DType::kInt16:
      return signed_int(read<int16_t>(base, index));
    case DType::kInt32:
      return signed_int(read<int32_t>(base, index));
    case DType::kInt64:
      return signed_int(read<int64_t>(base, index));
    case DType::kInt4:
      return signed_int(load_int4(base, index));
    case DType::kInt2:
      return signed_int(load_int2(base, index));
    case DType::kUInt8:
      return unsigned_int(read<uint8_t>(base, index));
    case DType::kUInt16:
      return unsigned_int(read<uint16_t>(base, index));
    case DType::kUInt32:
      return unsigned_int(read<uint32_t>(base, index));
    case DType::kUInt64:
      return unsigned_int(read<uint64_t>(base, index));
    case DType::kUInt4:
      return unsigned_int(load_uint4(base, index));
    case DType::kUInt2:
      return unsigned_int(load_uint2(base, index));
    case DType::kBool:
      return unsigned_int(read<uint8_t>(base, index) != 0);  // any nonzero byte is true
    case DType::kComplex64:
      return complex(read<float>(base, 2 * index), read<float>(base, 2 * index + 1));
    case DType::kComplex128:
      return complex(read<double>(base, 2 * index), read<double>(base, 2 * index + 1));
    case DType::kString:
    case DType::kUndefined:
      break;
  }
  not_numeric(t);  // dtype_name rejects values outside the enum first
}

void store_scalar(DType t, void* base, int64_t index, const Scalar& v, const CastOptions& opt) {
  switch (t) {
    case DType::kFloat:
      return write(base, index, real_as<float>(v));  // overflow gives ±inf, as Cast says
    case DType::kDouble:
      return write(base, index, real_as<double>(v));
    case DType::kFloat16:
      return write(base, index, double_to_half(narrowable(v)));
    case DType::kBFloat16:
      return write(base, index, double_to_bfloat16(narrowable(v)));
    case DType::kFloat8E4M3FN:
      return write(base, index, float_to_float8e4m3fn(narrowable(v), opt.saturate));
    case DType::kFloat8E4M3FNUZ:
      return write(base, index, float_to_float8e4m3fnuz(narrowable(v), opt.saturate));
    case DType::kFloat8E5M2:
      return write(base, index, float_to_float8e5m2(narrowable(v), opt.saturate));
    case DType::kFloat8E5M2FNUZ:
      return write(base, index, float_to_float8e5m2fnuz(narrowable(v), opt.saturate));
    case DType::kFloat8E8M0:
      return write(base, index, float_to_float8e8m0(narrowable(v), opt.saturate, opt.e8m0_round));
    case DType::kFloat4E2M1:
      return store_packed<4>(base, index, float_to_float4e2m1(narrowable(v)));
    case DType::kInt8:
      return write(base, index, to_int<int8_t>(v));
    case DType::kInt16:
      return write(base, index, to_int<int16_t>(v));
    case DType::kInt32:
      return write(base, index, to_int<int32_t>(v));
    case DType::kInt64:
      return write(base, index, to_int<int64_t>(v));
    case DType::kUInt8:
      return write(base, index, to_int<uint8_t>(v));
    case DType::kUInt16:
      return write(base, index, to_int<uint16_t>(v));
    case DType::kUInt32:
      return write(base, index, to_int<uint32_t>(v));
    case DType::kUInt64:
      return write(base, index, to_int<uint64_t>(v));
    case DType::kInt4:
    case DType::kUInt4:
      return store_packed<4>(base, index, to_low_bits(v, 4));
    case DType::kInt2:
    case DType::kUInt2:
      return store_packed<2>(base, index, to_low_bits(v, 2));
    case DType::kBool:
      return write(base, index, static_cast<uint8_t>(truth(v)));
    case DType::kComplex64:  // a real source gets im = 0; each part rounds on its own
      write(base, 2 * index, real_as<float>(v));
      return write(base, 2 * index + 1, static_cast<float>(imag(v)));
    case DType::kComplex128:
      write(base, 2 * index, real_as<double>(v));
      return write(base, 2 * index + 1, imag(v));
    case DType::kString:
    case DType::kUndefined:
      break;
  }
  not_numeric(t);
}

double scalar_to_double(const Scalar& v) {
  switch (v.kind) {
    case Scalar::Kind::kSigned:
      return static_cast<double>(v.i);
    case Scalar::Kind::kUnsigned:
      return static_cast<double>(v.u);
    default:
      return v.re;
  }
}

int64_t scalar_to_int(const Scalar& v) {
  switch (v.kind) {
    case Scalar::Kind::kSigned:
      return v.i;
    case Scalar::Kind::kUnsigned:
      return static_cast<int64_t>(v.u);
    default:
      return static_cast<int64_t>(v.re);
  }
}

}  // namespace geon
