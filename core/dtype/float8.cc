// Encoders for the 8- and 4-bit float formats: ONNX Cast's saturation tables (opset 25) on top
// of one round-to-nearest-even step shared with the 16-bit formats (minifloat.h).
#include "core/dtype/float8.h"

#include <cmath>

#include "core/dtype/minifloat.h"

namespace geon {
namespace {

uint8_t sign_of(double x) { return std::signbit(x) ? 0x80 : 0x00; }

// The shape every fnuz format shares: one NaN (0x80), no infinities, no negative zero.
uint8_t encode_fnuz(double x, bool saturate, int mant_bits, int min_exp) {
  constexpr uint8_t kNaN = 0x80;
  constexpr uint8_t kMax = 0x7F;
  if (std::isnan(x)) return kNaN;
  const uint8_t s = sign_of(x);
  // Opset 25 saturates ±inf to ±max; opsets 19-23 said NaN here, and still do for saturate=0.
  if (std::isinf(x)) return saturate ? (s | kMax) : kNaN;
  const uint64_t mag = minifloat::round_magnitude(x, mant_bits, min_exp);
  if (mag > kMax) return saturate ? (s | kMax) : kNaN;
  if (mag == 0) return 0;  // 0x80 would be the NaN, so every zero is +0
  return s | static_cast<uint8_t>(mag);
}

}  // namespace

uint8_t float_to_float8e4m3fn(double x, bool saturate) {
  constexpr uint8_t kNaN = 0x7F;  // S.1111.111; the format has no inf
  constexpr uint8_t kMax = 0x7E;  // 448
  const uint8_t s = sign_of(x);
  if (std::isnan(x)) return s | kNaN;  // the spec keeps -NaN as -NaN
  if (std::isinf(x)) return s | (saturate ? kMax : kNaN);
  const uint64_t mag = minifloat::round_magnitude(x, 3, -6);
  if (mag > kMax) return s | (saturate ? kMax : kNaN);
  return s | static_cast<uint8_t>(mag);
}

uint8_t float_to_float8e4m3fnuz(double x, bool saturate) { return encode_fnuz(x, saturate, 3, -7); }

uint8_t float_to_float8e5m2(double x, bool saturate) {
  constexpr uint8_t kInf = 0x7C;
  constexpr uint8_t kQuietNaN = 0x7E;
  constexpr uint8_t kMax = 0x7B;  // 57344
  const uint8_t s = sign_of(x);
  if (std::isnan(x)) return s | kQuietNaN;
  if (std::isinf(x)) return s | (saturate ? kMax : kInf);
  const uint64_t mag = minifloat::round_magnitude(x, 2, -14);
  if (mag > kMax) return s | (saturate ? kMax : kInf);
  return s | static_cast<uint8_t>(mag);
}

uint8_t float_to_float8e5m2fnuz(double x, bool saturate) {
  return encode_fnuz(x, saturate, 2, -15);
}

uint8_t float_to_float8e8m0(double x, bool saturate, E8M0Round mode) {
  constexpr uint8_t kNaN = 0xFF;
  constexpr uint8_t kMax = 0xFE;  // 2^127
  constexpr uint8_t kMin = 0x00;  // 2^-127
  if (std::isnan(x)) return kNaN;
  const double a = std::fabs(x);
  if (a > 0x1p127) return saturate ? kMax : kNaN;   // +inf too
  if (a < 0x1p-127) return saturate ? kMin : kNaN;  // zero too
  // a = 2^k * (1 + frac), frac in [0, 1); every mode lands in [-127, 127] because a is in range.
  int e = 0;
  const double f = std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1)
  int k = e - 1;
  const double frac = 2.0 * f - 1.0;  // exact
  switch (mode) {
    case E8M0Round::kUp:
      if (frac > 0.0) ++k;
      break;
    case E8M0Round::kDown:
      break;
    case E8M0Round::kNearest:
      if (frac >= 0.5) ++k;
      break;
  }
  return static_cast<uint8_t>(k + 127);
}

uint8_t float_to_float4e2m1(double x) {
  constexpr uint8_t kMax = 0x7;  // 6
  // The ONNX float4 page says NaN -> 6, but the backend test data of the pinned onnx (made
  // with ml_dtypes) expects -0 (0x8); conformance with that data wins.
  if (std::isnan(x)) return 0x8;
  const uint8_t s = std::signbit(x) ? 0x8 : 0x0;
  if (std::isinf(x)) return s | kMax;
  const uint64_t mag = minifloat::round_magnitude(x, 1, 0);
  return s | static_cast<uint8_t>(mag > kMax ? kMax : mag);
}

}  // namespace geon
