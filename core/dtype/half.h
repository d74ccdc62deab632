// The two 16-bit float formats (IEEE binary16 and bfloat16) to and from float. The elementwise
// engine calls these in inner loops, so they are inline and nearly branch-free; the double
// overloads serve the exact scalar path, where rounding a double via float would round twice.
// GEON_HD: the CUDA casts use these same functions on the device.
#pragma once

#include <bit>
#include <cstdint>

#include "core/base/hd.h"
#include "core/dtype/minifloat.h"

namespace geon {

// Both directions compute every case and select (no early return), so that the engine's cast
// loops vectorise (GCC does not if-convert the branches; Cast of 1.6 M floats to float16 took
// 0.5 ms scalar). The cases' arithmetic is unsigned and wraps where a case is not selected.
GEON_HD float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t em = h & 0x7FFFu;
  const uint32_t special = 0x7F80'0000u | ((em & 0x3FFu) << 13);  // inf, or NaN with its payload
  const uint32_t normal = (em << 13) + 0x3800'0000u;              // rebias 15 -> 127
  // Subnormal: em * 2^-24 is a normal float and both steps are exact; this avoids reading a
  // float subnormal, which flush-to-zero/denormals-are-zero modes would turn into zero.
  const uint32_t subnormal =
      std::bit_cast<uint32_t>(static_cast<float>(static_cast<int32_t>(em)) * 0x1p-24f);
  uint32_t bits = em >= 0x0400u ? normal : subnormal;
  bits = em >= 0x7C00u ? special : bits;
  return std::bit_cast<float>(bits | sign);
}

GEON_HD uint16_t float_to_half(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t a = bits & 0x7FFF'FFFFu;
  // |f| >= 65536: inf, NaN, or certain overflow. A NaN keeps its top payload bits and gets the
  // quiet bit, so it cannot collapse into inf.
  const uint32_t special = a > 0x7F80'0000u ? 0x7E00u | ((a >> 13) & 0x3FFu) : 0x7C00u;
  // |f| < 2^-14, a half subnormal or zero: in [0.5, 1) a float's ulp is 2^-24, the half
  // subnormal quantum, so the FPU's own ties-to-even addition does the rounding; a result of
  // 0x400 is the smallest normal.
  const uint32_t subnormal = std::bit_cast<uint32_t>(std::bit_cast<float>(a) + 0.5f) - 0x3F00'0000u;
  // Normal: rebias (adding 0xC8000000 subtracts 112 << 23) and round 13 bits away, ties to
  // even. A carry out of the mantissa moves into the exponent, and past 65504 it correctly
  // yields inf.
  const uint32_t normal = (a + 0xC800'0FFFu + ((a >> 13) & 1u)) >> 13;
  uint32_t r = a < 0x3880'0000u ? subnormal : normal;
  r = a >= 0x4780'0000u ? special : r;
  return static_cast<uint16_t>(sign | r);
}

GEON_HD float bfloat16_to_float(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

GEON_HD uint16_t float_to_bfloat16(float f) {
  uint32_t bits = std::bit_cast<uint32_t>(f);
  // Rounding a NaN could carry its payload into the exponent (or clear it into inf): quiet it.
  if ((bits & 0x7FFF'FFFFu) > 0x7F80'0000u) return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  bits += 0x7FFFu + ((bits >> 16) & 1u);  // ties to even; overflow carries into inf
  return static_cast<uint16_t>(bits >> 16);
}

// Exact double -> 16-bit paths (one rounding). Slower; for the scalar path and constants.
GEON_HD uint16_t double_to_half(double x) {
  const uint64_t bits = std::bit_cast<uint64_t>(x);
  const auto sign = static_cast<uint16_t>((bits >> 48) & 0x8000u);
  if ((bits & 0x7FF0'0000'0000'0000ull) == 0x7FF0'0000'0000'0000ull) {
    if (bits & 0x000F'FFFF'FFFF'FFFFull)
      return sign | 0x7E00u | static_cast<uint16_t>((bits >> 42) & 0x3FFu);
    return sign | 0x7C00u;
  }
  const uint64_t mag = minifloat::round_magnitude(x, 10, -14);
  return sign | static_cast<uint16_t>(mag >= 0x7C00u ? 0x7C00u : mag);
}

GEON_HD uint16_t double_to_bfloat16(double x) {
  const uint64_t bits = std::bit_cast<uint64_t>(x);
  const auto sign = static_cast<uint16_t>((bits >> 48) & 0x8000u);
  if ((bits & 0x7FF0'0000'0000'0000ull) == 0x7FF0'0000'0000'0000ull) {
    if (bits & 0x000F'FFFF'FFFF'FFFFull)
      return sign | 0x7FC0u | static_cast<uint16_t>((bits >> 45) & 0x7Fu);
    return sign | 0x7F80u;
  }
  const uint64_t mag = minifloat::round_magnitude(x, 7, -126);
  return sign | static_cast<uint16_t>(mag >= 0x7F80u ? 0x7F80u : mag);
}

}  // namespace geon
