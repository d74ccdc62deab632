// Pins IEEE binary16 and bfloat16 conversion: exact decoding, ties-to-even encoding, overflow to
// inf, subnormals, NaN that never turns into inf, and the double paths rounding only once.
#include "core/dtype/half.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace geon {
namespace {

float f32(uint32_t bits) { return std::bit_cast<float>(bits); }
bool half_is_nan(uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0; }
bool bf16_is_nan(uint16_t b) { return (b & 0x7F80) == 0x7F80 && (b & 0x007F) != 0; }

TEST(Float16, DecodeEncodeRoundTripsEveryCode) {
  for (uint32_t c = 0; c <= 0xFFFF; ++c) {
    const auto h = static_cast<uint16_t>(c);
    const float f = half_to_float(h);
    if (half_is_nan(h)) {
      EXPECT_TRUE(std::isnan(f)) << std::hex << c;
      EXPECT_TRUE(half_is_nan(float_to_half(f))) << std::hex << c;
      EXPECT_TRUE(half_is_nan(double_to_half(f))) << std::hex << c;
      EXPECT_EQ(std::signbit(f), (c & 0x8000) != 0);
    } else {
      EXPECT_EQ(float_to_half(f), h) << std::hex << c;
      EXPECT_EQ(double_to_half(f), h) << std::hex << c;
    }
  }
}

TEST(Float16, DecodesKnownValues) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_to_float(0xC000), -2.0f);
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(half_to_float(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(half_to_float(0x3555), 0.333251953125f);
  EXPECT_EQ(std::bit_cast<uint32_t>(half_to_float(0x8000)), 0x80000000u);
  EXPECT_EQ(half_to_float(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(half_to_float(0xFC00), -std::numeric_limits<float>::infinity());
}

TEST(Float16, RoundsTiesToEven) {
  const float ulp = std::ldexp(1.0f, -10);               // at 1.0
  EXPECT_EQ(float_to_half(1.0f + ulp / 2), 0x3C00);      // tie, 0x3C00 is even
  EXPECT_EQ(float_to_half(1.0f + 3 * ulp / 2), 0x3C02);  // tie, 0x3C02 is even
  EXPECT_EQ(float_to_half(std::nextafter(1.0f + ulp / 2, 2.0f)), 0x3C01);
  EXPECT_EQ(float_to_half(std::nextafter(1.0f + 3 * ulp / 2, 0.0f)), 0x3C01);
  EXPECT_EQ(float_to_half(-(1.0f + ulp / 2)), 0xBC00);
  EXPECT_EQ(float_to_half(2048.0f + 1.0f), 0x6800);  // 2049 ties between 2048 and 2050
  EXPECT_EQ(float_to_half(2048.0f + 3.0f), 0x6802);  // 2051 ties between 2050 and 2052
}

TEST(Float16, OverflowsToInfinityPastTheLastTie) {
  EXPECT_EQ(float_to_half(65504.0f), 0x7BFF);
  EXPECT_EQ(float_to_half(std::nextafter(65520.0f, 0.0f)), 0x7BFF);
  EXPECT_EQ(float_to_half(65520.0f), 0x7C00);  // tie with 65536, which is "even": inf
  EXPECT_EQ(float_to_half(-65520.0f), 0xFC00);
  EXPECT_EQ(float_to_half(1e10f), 0x7C00);
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::max()), 0x7C00);
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(float_to_half(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_EQ(double_to_half(65520.0), 0x7C00);
  EXPECT_EQ(double_to_half(std::nextafter(65520.0, 0.0)), 0x7BFF);
  EXPECT_EQ(double_to_half(1e300), 0x7C00);
}

TEST(Float16, RoundsSubnormalsTiesToEven) {
  const float q = std::ldexp(1.0f, -24);  // smallest subnormal
  EXPECT_EQ(float_to_half(q), 0x0001);
  EXPECT_EQ(float_to_half(q / 2), 0x0000);  // tie with 0
  EXPECT_EQ(float_to_half(std::nextafter(q / 2, 1.0f)), 0x0001);
  EXPECT_EQ(float_to_half(3 * q / 2), 0x0002);    // tie between 1 and 2
  EXPECT_EQ(float_to_half(1023.5f * q), 0x0400);  // tie between largest subnormal and 2^-14
  EXPECT_EQ(float_to_half(std::nextafter(1023.5f * q, 0.0f)), 0x03FF);
  EXPECT_EQ(float_to_half(-q / 4), 0x8000);  // underflow keeps the sign
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(double_to_half(3.0 * q / 2), 0x0002);
  EXPECT_EQ(double_to_half(q / 2 * (1 + 0x1p-40)), 0x0001);
  EXPECT_EQ(double_to_half(-1e-300), 0x8000);
}

TEST(Float16, NaNStaysNaNAndNeverBecomesInfinity) {
  // Signalling NaNs whose payload lives only in the bits that get shifted out.
  for (uint32_t bits : {0x7F800001u, 0x7F801FFFu, 0xFF800001u, 0x7FC00000u, 0xFFFFFFFFu}) {
    const uint16_t h = float_to_half(f32(bits));
    EXPECT_TRUE(half_is_nan(h)) << std::hex << bits;
    EXPECT_NE(h & 0x0200, 0) << "quiet bit";
    EXPECT_EQ((h & 0x8000) != 0, (bits & 0x80000000u) != 0);
    EXPECT_TRUE(half_is_nan(double_to_half(static_cast<double>(f32(bits)))));
  }
  EXPECT_TRUE(half_is_nan(double_to_half(std::bit_cast<double>(0x7FF0000000000001ull))));
}

TEST(Float16, FastFloatPathAgreesWithExactDoublePath) {
  // Two independent implementations; stride through all float bit patterns.
  for (uint64_t b = 0; b <= 0xFFFFFFFFull; b += 251) {
    const float f = f32(static_cast<uint32_t>(b));
    const uint16_t fast = float_to_half(f);
    const uint16_t exact = double_to_half(f);
    if (std::isnan(f)) {
      ASSERT_TRUE(half_is_nan(fast) && half_is_nan(exact)) << std::hex << b;
    } else {
      ASSERT_EQ(fast, exact) << std::hex << b;
    }
  }
}

TEST(Float16, DoubleSourceRoundsOnce) {
  // Just above the tie between 1 and 1 + 2^-10: via float the excess would vanish into a tie
  // and round down to even.
  const double x = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(float_to_half(static_cast<float>(x)), 0x3C00);
  EXPECT_EQ(double_to_half(x), 0x3C01);
  EXPECT_EQ(double_to_half(-x), 0xBC01);
}

TEST(BFloat16, DecodeEncodeRoundTripsEveryCode) {
  for (uint32_t c = 0; c <= 0xFFFF; ++c) {
    const auto b = static_cast<uint16_t>(c);
    const float f = bfloat16_to_float(b);
    EXPECT_EQ(std::bit_cast<uint32_t>(f), c << 16);
    if (bf16_is_nan(b)) {
      EXPECT_TRUE(bf16_is_nan(float_to_bfloat16(f))) << std::hex << c;
      EXPECT_TRUE(bf16_is_nan(double_to_bfloat16(f))) << std::hex << c;
    } else {
      EXPECT_EQ(float_to_bfloat16(f), b) << std::hex << c;
      EXPECT_EQ(double_to_bfloat16(f), b) << std::hex << c;
    }
  }
}

TEST(BFloat16, RoundsTiesToEven) {
  EXPECT_EQ(float_to_bfloat16(f32(0x3F808000u)), 0x3F80);  // 1 + 2^-8: tie, down to even
  EXPECT_EQ(float_to_bfloat16(f32(0x3F818000u)), 0x3F82);  // tie, up to even
  EXPECT_EQ(float_to_bfloat16(f32(0x3F808001u)), 0x3F81);
  EXPECT_EQ(float_to_bfloat16(f32(0x3F817FFFu)), 0x3F81);
  EXPECT_EQ(float_to_bfloat16(f32(0xBF808000u)), 0xBF80);
  EXPECT_EQ(float_to_bfloat16(f32(0x00008000u)), 0x0000);  // subnormal tie with 0
  EXPECT_EQ(float_to_bfloat16(f32(0x00018000u)), 0x0002);  // subnormal tie, up to even
  EXPECT_EQ(float_to_bfloat16(f32(0x007F8000u)), 0x0080);  // carries into the normal range
}

TEST(BFloat16, OverflowsToInfinity) {
  EXPECT_EQ(float_to_bfloat16(f32(0x7F7F7FFFu)), 0x7F7F);
  EXPECT_EQ(float_to_bfloat16(f32(0x7F7F8000u)), 0x7F80);  // tie with 2^128: inf
  EXPECT_EQ(float_to_bfloat16(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(float_to_bfloat16(-std::numeric_limits<float>::max()), 0xFF80);
  EXPECT_EQ(double_to_bfloat16(1e300), 0x7F80);
  EXPECT_EQ(double_to_bfloat16(static_cast<double>(f32(0x7F7F7FFFu))), 0x7F7F);
}

TEST(BFloat16, NaNStaysNaNAndNeverBecomesInfinity) {
  for (uint32_t bits : {0x7F800001u, 0x7F80FFFFu, 0xFF800001u, 0x7FFFFFFFu}) {
    const uint16_t b = float_to_bfloat16(f32(bits));
    EXPECT_TRUE(bf16_is_nan(b)) << std::hex << bits;
    EXPECT_EQ((b & 0x8000) != 0, (bits & 0x80000000u) != 0);
  }
}

TEST(BFloat16, DoubleSourceRoundsOnce) {
  const double x = 1.0 + 0x1p-8 + 0x1p-40;
  EXPECT_EQ(float_to_bfloat16(static_cast<float>(x)), 0x3F80);
  EXPECT_EQ(double_to_bfloat16(x), 0x3F81);
  // Below float's subnormals, still rounded from the double directly.
  EXPECT_EQ(double_to_bfloat16(0x1p-133), 0x0001);
  EXPECT_EQ(double_to_bfloat16(0x1p-134), 0x0000);  // tie with 0
  EXPECT_EQ(double_to_bfloat16(0x1p-134 * (1 + 0x1p-30)), 0x0001);
}

}  // namespace
}  // namespace geon
