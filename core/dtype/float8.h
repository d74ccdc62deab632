// The 8-bit float formats (float8e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0) and float4e2m1, with
// ONNX Cast's rounding and saturation rules. Decoding is a compile-time table lookup; encoding
// takes a double so that float and double sources alike are rounded exactly once.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace geon {

// Cast's `round_mode` attribute; only float8e8m0 uses it. In value space, not exponent space:
// kNearest sends [2^k, 1.5 * 2^k) down and [1.5 * 2^k, 2^(k+1)) up (ties up, as the spec says).
enum class E8M0Round { kUp, kDown, kNearest };

// Encoders. `saturate` is Cast's attribute (opset 25 tables): true clamps ±inf and values whose
// rounded magnitude exceeds the format's largest finite value to ±max; false turns them into
// NaN (inf for e5m2, which has one). NaN always stays NaN; fnuz formats have a single NaN
// (0x80) and no -0, so -0 and negatives that round to zero encode as +0.
uint8_t float_to_float8e4m3fn(double x, bool saturate = true);
uint8_t float_to_float8e4m3fnuz(double x, bool saturate = true);
uint8_t float_to_float8e5m2(double x, bool saturate = true);
uint8_t float_to_float8e5m2fnuz(double x, bool saturate = true);
// e8m0 holds 2^(code - 127), code 0..254, and NaN = 0xFF; it has no sign and no zero. The spec
// leaves negatives undefined: the sign is ignored (|x| is encoded), as onnx.reference does.
// Out of range means x itself (not rounded x, unlike the float8 tables) above 2^127 or below
// 2^-127, ±0 and ±inf included: saturate gives 2^127 / 2^-127, otherwise NaN.
uint8_t float_to_float8e8m0(double x, bool saturate = true, E8M0Round mode = E8M0Round::kUp);
// float4e2m1 has neither inf nor NaN and Cast's saturate does not apply to it: the ONNX
// float4 spec maps |x| > 6 and ±inf to ±6 and NaN to +6. The code is in the low 4 bits.
uint8_t float_to_float4e2m1(double x);

namespace float8_detail {

constexpr float pow2(int e) {  // exact for every power of two a float holds, subnormals too
  float v = 1.0f;
  for (; e > 0; --e) v *= 2.0f;
  for (; e < 0; ++e) v *= 0.5f;
  return v;
}

constexpr float kNaN = std::bit_cast<float>(0x7FC0'0000u);
constexpr float kNegNaN = std::bit_cast<float>(0xFFC0'0000u);
constexpr float kInf = std::bit_cast<float>(0x7F80'0000u);

// Value of an IEEE-style code without its sign: exponent field 0 holds subnormals.
constexpr float magnitude(unsigned mag, int mant_bits, int min_exp) {
  const unsigned field = mag >> mant_bits;
  const unsigned mant = mag & ((1u << mant_bits) - 1);
  if (field == 0) return static_cast<float>(mant) * pow2(min_exp - mant_bits);
  const float sig = static_cast<float>((1u << mant_bits) | mant);
  return sig * pow2(static_cast<int>(field) - 1 + min_exp - mant_bits);
}

enum class Kind { kE4M3FN, kE4M3FNUZ, kE5M2, kE5M2FNUZ, kE8M0, kE2M1 };

constexpr float decode(Kind k, unsigned code) {
  const bool neg = (code & 0x80u) != 0;
  const unsigned mag = code & 0x7Fu;
  float v = 0.0f;
  switch (k) {
    case Kind::kE4M3FN:
      if (mag == 0x7F) return neg ? kNegNaN : kNaN;
      v = magnitude(mag, 3, -6);
      break;
    case Kind::kE4M3FNUZ:
      if (code == 0x80) return kNaN;
      v = magnitude(mag, 3, -7);
      break;
    case Kind::kE5M2:
      if (mag > 0x7C) return neg ? kNegNaN : kNaN;
      v = mag == 0x7C ? kInf : magnitude(mag, 2, -14);
      break;
    case Kind::kE5M2FNUZ:
      if (code == 0x80) return kNaN;
      v = magnitude(mag, 2, -15);
      break;
    case Kind::kE8M0:
      return code == 0xFF ? kNaN : pow2(static_cast<int>(code) - 127);
    case Kind::kE2M1: {
      const float m = magnitude(code & 0x7u, 1, 0);
      return (code & 0x8u) ? -m : m;
    }
  }
  return neg ? -v : v;
}

template <Kind K>
constexpr std::array<float, 256> make_table() {
  std::array<float, 256> t{};
  for (unsigned c = 0; c < 256; ++c) t[c] = decode(K, c);
  return t;
}

inline constexpr auto kE4M3FN = make_table<Kind::kE4M3FN>();
inline constexpr auto kE4M3FNUZ = make_table<Kind::kE4M3FNUZ>();
inline constexpr auto kE5M2 = make_table<Kind::kE5M2>();
inline constexpr auto kE5M2FNUZ = make_table<Kind::kE5M2FNUZ>();
inline constexpr auto kE8M0 = make_table<Kind::kE8M0>();
inline constexpr auto kE2M1 = make_table<Kind::kE2M1>();  // indexed by the low 4 bits

}  // namespace float8_detail

// Decoders: exact. NaN codes decode to NaN, keeping the sign where the format has one.
inline float float8e4m3fn_to_float(uint8_t c) { return float8_detail::kE4M3FN[c]; }
inline float float8e4m3fnuz_to_float(uint8_t c) { return float8_detail::kE4M3FNUZ[c]; }
inline float float8e5m2_to_float(uint8_t c) { return float8_detail::kE5M2[c]; }
inline float float8e5m2fnuz_to_float(uint8_t c) { return float8_detail::kE5M2FNUZ[c]; }
inline float float8e8m0_to_float(uint8_t c) { return float8_detail::kE8M0[c]; }
inline float float4e2m1_to_float(uint8_t c) { return float8_detail::kE2M1[c & 0x0Fu]; }

}  // namespace geon
