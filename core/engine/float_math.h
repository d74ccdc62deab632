// exp, log, tanh, sigmoid and erf of floats as straight-line arithmetic, what the engine's float
// ops compute on the CPU and on CUDA alike: GCC vectorises these in the chunk loops where a std::
// call keeps the loop scalar (libm's vector variants need -ffast-math, which would break NaN
// handling elsewhere), and both devices give the same bits. Within a few ulp of std:: (the tests
// pin them against double), with std::'s infinities, NaNs and signed zeros.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

#include "core/base/hd.h"

namespace geon::float_math {

GEON_HD uint32_t bits(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  return std::bit_cast<uint32_t>(x);
#endif
}

GEON_HD float from_bits(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  return std::bit_cast<float>(u);
#endif
}

// 2^n for n in [-126, 127].
GEON_HD float pow2(int32_t n) { return from_bits(static_cast<uint32_t>(n + 127) << 23); }

// The polynomial with coefficients c (highest degree first) at x, by Horner's rule.
template <int N>
GEON_HD float horner(float x, const float (&c)[N]) {
  float p = c[0];
  for (int i = 1; i < N; ++i) p = p * x + c[i];
  return p;
}

// (e^x - 1) / x by its Taylor series to x^6: with |x| <= ln 2 / 2 the first term left out is
// below 6e-9 relative.
GEON_HD float expm1_over_x(float x) {
  constexpr float c[] = {1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f};
  return horner(x, c);
}

// e^x - 1 for |x| <= ln 2 / 2, without the cancellation of e^x - 1.
GEON_HD float expm1_small(float x) { return expm1_over_x(x) * x; }

// e^x = 2^n · e^r with n = round(x / ln 2) and |r| <= ln 2 / 2. ln 2 is split so that n · kLn2Hi
// is exact; 2^n is applied in two halves, so that results near overflow and in the subnormal
// range need no special case.
GEON_HD float exp(float x) {
  constexpr float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
  constexpr float kShift = 12582912.0f;  // 1.5 · 2^23: adding it rounds to an integer
  // Clamped where the result is already infinite or zero (comparisons that keep a NaN).
  x = x > 89.0f ? 89.0f : x;
  x = x < -110.0f ? -110.0f : x;
  const float t = x * kLog2e + kShift;
  const float n = t - kShift;
  const int32_t ni = static_cast<int32_t>(bits(t) - bits(kShift));
  const float r = (x - n * kLn2Hi) - n * kLn2Lo;
  const float p = expm1_over_x(r) * r + 1.0f;
  const int32_t half = ni >> 1;
  return p * pow2(half) * pow2(ni - half);
}

// ln x = e · ln 2 + ln m for x = 2^e · m, m in [sqrt(1/2), sqrt(2)); ln m = 2 atanh(s) with
// s = (m - 1) / (m + 1), |s| <= 0.172, by its series to s^11.
GEON_HD float log(float x) {
  constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
  const bool subnormal = x < std::numeric_limits<float>::min();
  const float xs = subnormal ? x * 8388608.0f : x;  // 2^23: subnormals made normal
  const uint32_t u = bits(xs);
  int32_t e = static_cast<int32_t>((u >> 23) & 0xff) - 127 - (subnormal ? 23 : 0);
  float m = from_bits((u & 0x7fffffu) | 0x3f800000u);
  const bool high = m > 1.41421356f;
  m = high ? m * 0.5f : m;
  e = high ? e + 1 : e;
  const float f = m - 1.0f;  // exact
  const float s = f / (2.0f + f), z = s * s;
  constexpr float c[] = {2.0f / 11, 2.0f / 9, 2.0f / 7, 2.0f / 5, 2.0f / 3};
  const float q = horner(z, c);
  const float ef = static_cast<float>(e);
  const float r = ef * kLn2Hi + (f - s * (f - q * z) + ef * kLn2Lo);
  float y = x == 0.0f ? -std::numeric_limits<float>::infinity() : r;
  y = x < 0.0f ? std::numeric_limits<float>::quiet_NaN() : y;
  y = x == std::numeric_limits<float>::infinity() ? x : y;
  return x != x ? x : y;
}

// tanh |x| = (e - 1) / (e + 1) with e = e^(2|x|); below 2|x| = ln 2 / 2 e - 1 comes from
// expm1_small, above it the subtraction is exact (e in [1.41, 2] or larger).
GEON_HD float tanh(float x) {
  float a = x < 0.0f ? -x : x;
  a = a > 9.5f ? 9.5f : a;  // tanh is 1 in float from 9.01; keeps a NaN
  const float e = exp(2.0f * a);
  const float small = expm1_small(2.0f * a);
  const float em1 = a < 0.17328680f ? small : e - 1.0f;
  const float t = em1 / (em1 + 2.0f);
  const uint32_t sign = bits(x) & 0x80000000u;
  return from_bits(bits(t) | sign);
}

// 1 / (1 + e^-x), as e / (1 + e) with e = e^x below zero, so that neither side overflows and
// tiny results keep their precision.
GEON_HD float sigmoid(float x) {
  const float e = exp(x < 0.0f ? x : -x);
  const float s = 1.0f / (1.0f + e);
  return x < 0.0f ? e * s : s;
}

// erf in two pieces. Below 1, its Taylor series to x^21 (the next term is below 1.2e-9).
// From 1, 1 - e^(-x^2) g(x) with g = erfc(x) e^(x^2) as a degree-12 polynomial in
// u = (x - 2.5) / 1.5, fitted for this file on [1, 4] (least squares on Chebyshev nodes; 1.4e-7
// relative in float, 2.2e-8 absolute on erf). From 4 on, erf is 1 in float.
GEON_HD float erf(float x) {
  float a = x < 0.0f ? -x : x;
  a = a > 4.0f ? 4.0f : a;  // keeps a NaN
  const float z = a * a;
  constexpr float taylor[] = {1.480719282e-08f,  -1.636584469e-07f, 1.646211437e-06f,
                              -1.492565036e-05f, 1.205533298e-04f,  -8.548327023e-04f,
                              5.223977625e-03f,  -2.686617065e-02f, 1.128379167e-01f,
                              -3.761263890e-01f, 1.128379167e+00f};
  constexpr float fitted[] = {
      1.381908901e-05f,  -3.692872357e-05f, 5.494724820e-05f,  -1.439485979e-04f, 4.145080978e-04f,
      -1.017117774e-03f, 2.401701695e-03f,  -5.567332910e-03f, 1.248970367e-02f,  -2.700572529e-02f,
      5.611047258e-02f,  -1.115210047e-01f, 2.108063643e-01f};
  const float s = horner(z, taylor);
  const float g = horner(a * (2.0f / 3) - 5.0f / 3, fitted);
  const float r = a < 1.0f ? a * s : 1.0f - exp(-z) * g;
  const uint32_t sign = bits(x) & 0x80000000u;
  return from_bits(bits(r) | sign);
}

}  // namespace geon::float_math
