// The 8-bit and 4-bit float formats for the CUDA casts: decoders by arithmetic (the CPU's
// decode tables are host data) and the encoders of core/dtype/float8.cc, ported line for line
// onto the shared rounding step (minifloat.h). GEON_HD; the CPU test NarrowFloatCodecsMatchCore
// compares both sides over every code and a sweep of doubles, so a change to core's rules that
// is not made here too fails there.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/base/hd.h"
#include "core/dtype/float8.h"
#include "core/dtype/minifloat.h"

namespace geon::cuda {

GEON_HD float float_from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// Value of an IEEE-style code without its sign: exponent field 0 holds subnormals.
GEON_HD float narrow_magnitude(unsigned mag, int mant_bits, int min_exp) {
  const unsigned field = mag >> mant_bits;
  const unsigned mant = mag & ((1u << mant_bits) - 1);
  if (field == 0) return std::ldexp(static_cast<float>(mant), min_exp - mant_bits);
  return std::ldexp(static_cast<float>((1u << mant_bits) | mant),
                    static_cast<int>(field) - 1 + min_exp - mant_bits);
}

// Decodes a float8 / float4 code (float4: the low 4 bits) as core's tables do.
GEON_HD float decode_narrow(float8_detail::Kind k, unsigned code) {
  using K = float8_detail::Kind;
  const float nan = float_from_bits(0x7FC0'0000u), neg_nan = float_from_bits(0xFFC0'0000u);
  const bool neg = (code & 0x80u) != 0;
  const unsigned mag = code & 0x7Fu;
  float v = 0.0f;
  switch (k) {
    case K::kE4M3FN:
      if (mag == 0x7F) return neg ? neg_nan : nan;
      v = narrow_magnitude(mag, 3, -6);
      break;
    case K::kE4M3FNUZ:
      if (code == 0x80) return nan;
      v = narrow_magnitude(mag, 3, -7);
      break;
    case K::kE5M2:
      if (mag > 0x7C) return neg ? neg_nan : nan;
      v = mag == 0x7C ? float_from_bits(0x7F80'0000u) : narrow_magnitude(mag, 2, -14);
      break;
    case K::kE5M2FNUZ:
      if (code == 0x80) return nan;
      v = narrow_magnitude(mag, 2, -15);
      break;
    case K::kE8M0:
      return code == 0xFF ? nan : std::ldexp(1.0f, static_cast<int>(code) - 127);
    case K::kE2M1: {
      const float m = narrow_magnitude(code & 0x7u, 1, 0);
      return (code & 0x8u) ? -m : m;
    }
  }
  return neg ? -v : v;
}

GEON_HD uint8_t sign8(double x) { return std::signbit(x) ? 0x80 : 0x00; }

// fnuz formats: one NaN (0x80), no infinities, no negative zero.
GEON_HD uint8_t encode_fnuz(double x, bool saturate, int mant_bits, int min_exp) {
  constexpr uint8_t kNaN = 0x80, kMax = 0x7F;
  if (std::isnan(x)) return kNaN;
  const uint8_t s = sign8(x);
  if (std::isinf(x)) return saturate ? (s | kMax) : kNaN;
  const uint64_t mag = minifloat::round_magnitude(x, mant_bits, min_exp);
  if (mag > kMax) return saturate ? (s | kMax) : kNaN;
  if (mag == 0) return 0;
  return s | static_cast<uint8_t>(mag);
}

GEON_HD uint8_t encode_e4m3fn(double x, bool saturate) {
  constexpr uint8_t kNaN = 0x7F, kMax = 0x7E;
  const uint8_t s = sign8(x);
  if (std::isnan(x)) return s | kNaN;
  if (std::isinf(x)) return s | (saturate ? kMax : kNaN);
  const uint64_t mag = minifloat::round_magnitude(x, 3, -6);
  if (mag > kMax) return s | (saturate ? kMax : kNaN);
  return s | static_cast<uint8_t>(mag);
}

GEON_HD uint8_t encode_e5m2(double x, bool saturate) {
  constexpr uint8_t kInf = 0x7C, kQuietNaN = 0x7E, kMax = 0x7B;
  const uint8_t s = sign8(x);
  if (std::isnan(x)) return s | kQuietNaN;
  if (std::isinf(x)) return s | (saturate ? kMax : kInf);
  const uint64_t mag = minifloat::round_magnitude(x, 2, -14);
  if (mag > kMax) return s | (saturate ? kMax : kInf);
  return s | static_cast<uint8_t>(mag);
}

GEON_HD uint8_t encode_e8m0(double x, bool saturate, E8M0Round mode) {
  constexpr uint8_t kNaN = 0xFF, kMax = 0xFE, kMin = 0x00;
  if (std::isnan(x)) return kNaN;
  const double a = std::fabs(x);
  if (a > 0x1p127) return saturate ? kMax : kNaN;
  if (a < 0x1p-127) return saturate ? kMin : kNaN;
  int e = 0;
  const double f = std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1)
  int k = e - 1;
  const double frac = 2.0 * f - 1.0;  // exact
  if (mode == E8M0Round::kUp && frac > 0.0) ++k;
  if (mode == E8M0Round::kNearest && frac >= 0.5) ++k;
  return static_cast<uint8_t>(k + 127);
}

GEON_HD uint8_t encode_e2m1(double x) {
  constexpr uint8_t kMax = 0x7;
  if (std::isnan(x)) return 0x8;  // -0, as core does (the pinned ONNX test data expects it)
  const uint8_t s = std::signbit(x) ? 0x8 : 0x0;
  if (std::isinf(x)) return s | kMax;
  const uint64_t mag = minifloat::round_magnitude(x, 1, 0);
  return s | static_cast<uint8_t>(mag > kMax ? kMax : mag);
}

}  // namespace geon::cuda
