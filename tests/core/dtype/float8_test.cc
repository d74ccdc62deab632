// Pins the float8 and float4 formats against ONNX Cast (opset 25): exact decoding, round trips,
// ties to even, the overflow thresholds, and the saturate=1/0 tables for NaN, ±inf and overflow.
#include "core/dtype/float8.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace geon {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::nan("");

using Decode = float (*)(uint8_t);
using Encode = uint8_t (*)(double, bool);

struct Format {
  const char* name;
  Decode decode;
  Encode encode;
  float max;  // largest finite value
};

const Format kFormats[] = {
    {"e4m3fn", float8e4m3fn_to_float, float_to_float8e4m3fn, 448.0f},
    {"e4m3fnuz", float8e4m3fnuz_to_float, float_to_float8e4m3fnuz, 240.0f},
    {"e5m2", float8e5m2_to_float, float_to_float8e5m2, 57344.0f},
    {"e5m2fnuz", float8e5m2fnuz_to_float, float_to_float8e5m2fnuz, 57344.0f},
};

TEST(Float8, EveryCodeRoundTripsThroughFloat) {
  for (const Format& f : kFormats) {
    for (unsigned c = 0; c < 256; ++c) {
      const auto code = static_cast<uint8_t>(c);
      const float v = f.decode(code);
      for (bool sat : {false, true}) {
        const uint8_t back = f.encode(v, sat);
        if (std::isnan(v)) {
          EXPECT_TRUE(std::isnan(f.decode(back))) << f.name << " " << c;
        } else if (std::isinf(v)) {
          // Only e5m2 has infinities; saturate=1 clamps them, per the Cast table.
          EXPECT_EQ(back, sat ? (code & 0x80) | 0x7B : code) << f.name << " " << c;
        } else {
          EXPECT_EQ(back, code) << f.name << " " << c << " sat " << sat;
        }
      }
    }
  }
}

TEST(Float8, DecodesKnownValues) {
  EXPECT_EQ(float8e4m3fn_to_float(0x38), 1.0f);
  EXPECT_EQ(float8e4m3fn_to_float(0x7E), 448.0f);
  EXPECT_EQ(float8e4m3fn_to_float(0xFE), -448.0f);
  EXPECT_EQ(float8e4m3fn_to_float(0x08), std::ldexp(1.0f, -6));
  EXPECT_EQ(float8e4m3fn_to_float(0x01), std::ldexp(1.0f, -9));
  EXPECT_TRUE(std::isnan(float8e4m3fn_to_float(0x7F)));
  EXPECT_TRUE(std::isnan(float8e4m3fn_to_float(0xFF)));
  EXPECT_TRUE(std::signbit(float8e4m3fn_to_float(0x80)));  // -0

  EXPECT_EQ(float8e4m3fnuz_to_float(0x40), 1.0f);
  EXPECT_EQ(float8e4m3fnuz_to_float(0x7F), 240.0f);
  EXPECT_EQ(float8e4m3fnuz_to_float(0x01), std::ldexp(1.0f, -10));
  EXPECT_TRUE(std::isnan(float8e4m3fnuz_to_float(0x80)));

  EXPECT_EQ(float8e5m2_to_float(0x3C), 1.0f);
  EXPECT_EQ(float8e5m2_to_float(0x7B), 57344.0f);
  EXPECT_EQ(float8e5m2_to_float(0x01), std::ldexp(1.0f, -16));
  EXPECT_EQ(float8e5m2_to_float(0x7C), std::numeric_limits<float>::infinity());
  EXPECT_EQ(float8e5m2_to_float(0xFC), -std::numeric_limits<float>::infinity());
  for (unsigned c : {0x7Du, 0x7Eu, 0x7Fu, 0xFDu, 0xFEu, 0xFFu})
    EXPECT_TRUE(std::isnan(float8e5m2_to_float(static_cast<uint8_t>(c))));

  EXPECT_EQ(float8e5m2fnuz_to_float(0x40), 1.0f);
  EXPECT_EQ(float8e5m2fnuz_to_float(0x7F), 57344.0f);
  EXPECT_EQ(float8e5m2fnuz_to_float(0x01), std::ldexp(1.0f, -17));
  EXPECT_TRUE(std::isnan(float8e5m2fnuz_to_float(0x80)));
}

// Cast's two tables, row by row: 0, -0, NaN, -NaN, Inf, -Inf, [x] > max, [x] < -max.
TEST(Float8, FollowsCastSaturateTable) {
  for (const Format& f : kFormats) {
    SCOPED_TRACE(f.name);
    const bool uz = std::isnan(f.decode(0x80));  // fnuz: 0x80 is the NaN, not -0
    const bool has_inf = std::isinf(f.decode(0x7C));
    const double big = 2.0 * f.max;
    // saturate = 1
    EXPECT_EQ(f.decode(f.encode(0.0, true)), 0.0f);
    EXPECT_EQ(f.encode(-0.0, true), uz ? 0x00 : 0x80);
    EXPECT_TRUE(std::isnan(f.decode(f.encode(kNaN, true))));
    EXPECT_TRUE(std::isnan(f.decode(f.encode(-kNaN, true))));
    EXPECT_EQ(f.decode(f.encode(kInf, true)), f.max);
    EXPECT_EQ(f.decode(f.encode(-kInf, true)), -f.max);
    EXPECT_EQ(f.decode(f.encode(big, true)), f.max);
    EXPECT_EQ(f.decode(f.encode(-big, true)), -f.max);
    // saturate = 0
    EXPECT_EQ(f.encode(-0.0, false), uz ? 0x00 : 0x80);
    EXPECT_TRUE(std::isnan(f.decode(f.encode(kNaN, false))));
    if (!uz) {  // -NaN stays -NaN where a sign exists
      EXPECT_TRUE(std::signbit(f.decode(f.encode(-kNaN, false))));
      EXPECT_FALSE(std::signbit(f.decode(f.encode(kNaN, false))));
    }
    if (has_inf) {
      EXPECT_EQ(f.decode(f.encode(kInf, false)), kInf);
      EXPECT_EQ(f.decode(f.encode(-kInf, false)), -kInf);
      EXPECT_EQ(f.decode(f.encode(big, false)), kInf);
      EXPECT_EQ(f.decode(f.encode(-big, false)), -kInf);
    } else {
      const float pinf = f.decode(f.encode(kInf, false));
      const float ninf = f.decode(f.encode(-kInf, false));
      EXPECT_TRUE(std::isnan(pinf));
      EXPECT_TRUE(std::isnan(ninf));
      if (!uz) {
        EXPECT_TRUE(std::signbit(ninf));  // e4m3fn: -Inf -> -NaN
      }
      EXPECT_TRUE(std::isnan(f.decode(f.encode(big, false))));
      EXPECT_TRUE(std::isnan(f.decode(f.encode(-big, false))));
    }
  }
}

TEST(Float8, NaNCodesAreTheFormatsOwn) {
  EXPECT_EQ(float_to_float8e4m3fn(kNaN), 0x7F);
  EXPECT_EQ(float_to_float8e4m3fn(-kNaN), 0xFF);
  EXPECT_EQ(float_to_float8e4m3fnuz(-kNaN), 0x80);
  EXPECT_EQ(float_to_float8e5m2fnuz(kNaN), 0x80);
  EXPECT_EQ(float_to_float8e5m2(kNaN) & 0x7C, 0x7C);
}

// Overflow is decided on the rounded value: the tie between max and the next (missing) step
// rounds to whichever is even.
TEST(Float8, OverflowThresholdIsTheRoundedValue) {
  // e4m3fn: max 448 = 1.110b * 2^8 (even), next step 480; tie 464 rounds down to 448.
  EXPECT_EQ(float_to_float8e4m3fn(464.0, false), 0x7E);
  EXPECT_EQ(float_to_float8e4m3fn(std::nextafter(464.0, kInf), false), 0x7F);
  EXPECT_EQ(float_to_float8e4m3fn(std::nextafter(464.0, kInf), true), 0x7E);
  // e4m3fnuz: max 240 = 1.111b * 2^7 (odd); tie 248 rounds up to 256: overflow.
  EXPECT_EQ(float_to_float8e4m3fnuz(std::nextafter(248.0, 0.0), false), 0x7F);
  EXPECT_EQ(float_to_float8e4m3fnuz(248.0, false), 0x80);
  EXPECT_EQ(float_to_float8e4m3fnuz(248.0, true), 0x7F);
  EXPECT_EQ(float_to_float8e4m3fnuz(-248.0, true), 0xFF);
  // e5m2: max 57344 = 1.11b * 2^15 (odd); tie 61440 goes to inf.
  EXPECT_EQ(float_to_float8e5m2(std::nextafter(61440.0, 0.0), false), 0x7B);
  EXPECT_EQ(float_to_float8e5m2(61440.0, false), 0x7C);
  EXPECT_EQ(float_to_float8e5m2(-61440.0, false), 0xFC);
  EXPECT_EQ(float_to_float8e5m2(61440.0, true), 0x7B);
  EXPECT_EQ(float_to_float8e5m2fnuz(std::nextafter(61440.0, 0.0), false), 0x7F);
  EXPECT_EQ(float_to_float8e5m2fnuz(61440.0, false), 0x80);
}

TEST(Float8, RoundsTiesToEven) {
  // e4m3fn at 1.0: step 1/8.
  EXPECT_EQ(float_to_float8e4m3fn(1.0 + 1.0 / 16), 0x38);
  EXPECT_EQ(float_to_float8e4m3fn(1.0 + 3.0 / 16), 0x3A);
  EXPECT_EQ(float_to_float8e4m3fn(std::nextafter(1.0 + 1.0 / 16, 2.0)), 0x39);
  EXPECT_EQ(float_to_float8e4m3fn(-(1.0 + 1.0 / 16)), 0xB8);
  // e5m2 at 1.0: step 1/4.
  EXPECT_EQ(float_to_float8e5m2(1.125), 0x3C);
  EXPECT_EQ(float_to_float8e5m2(1.375), 0x3E);
  EXPECT_EQ(float_to_float8e5m2fnuz(1.125), 0x40);
  EXPECT_EQ(float_to_float8e4m3fnuz(1.0625), 0x40);
  // A double just past a tie must not be rounded to float first.
  EXPECT_EQ(float_to_float8e4m3fn(1.0 + 1.0 / 16 + 0x1p-40), 0x39);
}

TEST(Float8, RoundsSubnormalsAndUnderflow) {
  const double q = std::ldexp(1.0, -9);  // e4m3fn smallest subnormal
  EXPECT_EQ(float_to_float8e4m3fn(q), 0x01);
  EXPECT_EQ(float_to_float8e4m3fn(q / 2), 0x00);  // tie with zero
  EXPECT_EQ(float_to_float8e4m3fn(std::nextafter(q / 2, 1.0)), 0x01);
  EXPECT_EQ(float_to_float8e4m3fn(1.5 * q), 0x02);
  EXPECT_EQ(float_to_float8e4m3fn(7.5 * q), 0x08);  // carries into the first normal
  EXPECT_EQ(float_to_float8e4m3fn(-q / 4), 0x80);   // -0 exists here
  // fnuz formats have no -0: a negative underflow is +0, never the NaN 0x80.
  EXPECT_EQ(float_to_float8e4m3fnuz(-std::ldexp(1.0, -12)), 0x00);
  EXPECT_EQ(float_to_float8e5m2fnuz(-std::ldexp(1.0, -19)), 0x00);
  EXPECT_EQ(float_to_float8e4m3fnuz(-std::ldexp(1.0, -10)), 0x81);
  EXPECT_EQ(float_to_float8e5m2(std::ldexp(1.0, -16)), 0x01);
  EXPECT_EQ(float_to_float8e5m2(std::ldexp(1.0, -17)), 0x00);
  EXPECT_EQ(float_to_float8e5m2fnuz(std::ldexp(1.0, -17)), 0x01);
}

TEST(Float8E8M0, DecodesPowersOfTwo) {
  EXPECT_EQ(float8e8m0_to_float(127), 1.0f);
  EXPECT_EQ(float8e8m0_to_float(0), std::ldexp(1.0f, -127));
  EXPECT_EQ(float8e8m0_to_float(254), std::ldexp(1.0f, 127));
  EXPECT_EQ(float8e8m0_to_float(130), 8.0f);
  EXPECT_TRUE(std::isnan(float8e8m0_to_float(255)));
  for (unsigned c = 0; c < 255; ++c) {
    const auto code = static_cast<uint8_t>(c);
    for (auto m : {E8M0Round::kUp, E8M0Round::kDown, E8M0Round::kNearest})
      for (bool sat : {false, true})
        EXPECT_EQ(float_to_float8e8m0(float8e8m0_to_float(code), sat, m), code) << c;
  }
}

TEST(Float8E8M0, RoundModesUpDownNearest) {
  struct Row {
    double x;
    uint8_t up, down, nearest;
  };
  const Row rows[] = {
      {1.0, 127, 127, 127},
      {1.25, 128, 127, 127},
      {1.5, 128, 127, 128},  // ties go up
      {std::nextafter(1.5, 0.0), 128, 127, 127},
      {3.0, 129, 128, 129},
      {0.75, 127, 126, 127},
      {0.7, 127, 126, 126},
      {1.0 + 0x1p-40, 128, 127, 127},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(float_to_float8e8m0(r.x, true, E8M0Round::kUp), r.up) << r.x;
    EXPECT_EQ(float_to_float8e8m0(r.x, true, E8M0Round::kDown), r.down) << r.x;
    EXPECT_EQ(float_to_float8e8m0(r.x, false, E8M0Round::kNearest), r.nearest) << r.x;
  }
  EXPECT_EQ(float_to_float8e8m0(1.25), 128);  // default mode is up
}

TEST(Float8E8M0, FollowsCastSpecialValueTable) {
  // Column "saturate + up".
  EXPECT_EQ(float_to_float8e8m0(0.0, true, E8M0Round::kUp), 0x00);
  EXPECT_EQ(float_to_float8e8m0(kNaN, true, E8M0Round::kUp), 0xFF);
  EXPECT_EQ(float_to_float8e8m0(kInf, true, E8M0Round::kUp), 0xFE);
  EXPECT_EQ(float_to_float8e8m0(0x1.8p127, true, E8M0Round::kUp), 0xFE);
  EXPECT_EQ(float_to_float8e8m0(0x1p-130, true, E8M0Round::kUp), 0x00);
  // Column "non-saturate + nearest".
  EXPECT_EQ(float_to_float8e8m0(0.0, false, E8M0Round::kNearest), 0xFF);
  EXPECT_EQ(float_to_float8e8m0(kNaN, false, E8M0Round::kNearest), 0xFF);
  EXPECT_EQ(float_to_float8e8m0(kInf, false, E8M0Round::kNearest), 0xFF);
  EXPECT_EQ(float_to_float8e8m0(0x1.1p127, false, E8M0Round::kNearest), 0xFF);
  EXPECT_EQ(float_to_float8e8m0(0x1.fp-128, false, E8M0Round::kNearest), 0xFF);
  // The range edges themselves are in range.
  EXPECT_EQ(float_to_float8e8m0(0x1p127, false, E8M0Round::kUp), 0xFE);
  EXPECT_EQ(float_to_float8e8m0(0x1p-127, false, E8M0Round::kDown), 0x00);
  // Negative input is unspecified; we encode |x|.
  EXPECT_EQ(float_to_float8e8m0(-4.0), float_to_float8e8m0(4.0));
}

TEST(Float4E2M1, DecodesEveryCode) {
  const float values[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (unsigned c = 0; c < 16; ++c) {
    const float v = float4e2m1_to_float(static_cast<uint8_t>(c));
    EXPECT_EQ(v, (c & 8) ? -values[c & 7] : values[c & 7]) << c;
    EXPECT_EQ(std::signbit(v), (c & 8) != 0) << c;
    EXPECT_EQ(float_to_float4e2m1(v), c) << c;
  }
  EXPECT_EQ(float4e2m1_to_float(0xF2), 1.0f);  // only the low 4 bits count
}

TEST(Float4E2M1, RoundsTiesToEvenAndSaturates) {
  EXPECT_EQ(float_to_float4e2m1(0.25), 0x0);  // tie 0 / 0.5
  EXPECT_EQ(float_to_float4e2m1(0.75), 0x2);  // tie 0.5 / 1
  EXPECT_EQ(float_to_float4e2m1(1.25), 0x2);  // tie 1 / 1.5
  EXPECT_EQ(float_to_float4e2m1(2.5), 0x4);   // tie 2 / 3
  EXPECT_EQ(float_to_float4e2m1(3.5), 0x6);   // tie 3 / 4
  EXPECT_EQ(float_to_float4e2m1(5.0), 0x6);   // tie 4 / 6
  EXPECT_EQ(float_to_float4e2m1(std::nextafter(5.0, kInf)), 0x7);
  EXPECT_EQ(float_to_float4e2m1(-3.5), 0xE);
  EXPECT_EQ(float_to_float4e2m1(7.0), 0x7);
  EXPECT_EQ(float_to_float4e2m1(1e30), 0x7);
  EXPECT_EQ(float_to_float4e2m1(-9.0), 0xF);
  EXPECT_EQ(float_to_float4e2m1(-0.0), 0x8);
  EXPECT_EQ(float_to_float4e2m1(-0.1), 0x8);
  EXPECT_EQ(float_to_float4e2m1(1e-7), 0x0);
}

TEST(Float4E2M1, SpecialValuesFollowTheOnnxFloat4Table) {
  EXPECT_EQ(float_to_float4e2m1(kInf), 0x7);
  EXPECT_EQ(float_to_float4e2m1(-kInf), 0xF);
  // NaN becomes -0, as the pinned onnx backend test data expects (not the 6 of the docs).
  EXPECT_EQ(float_to_float4e2m1(kNaN), 0x8);
  EXPECT_EQ(float_to_float4e2m1(-kNaN), 0x8);
}

}  // namespace
}  // namespace geon
