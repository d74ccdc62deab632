// Pins load_scalar/store_scalar: 64-bit integers survive, integers wrap, floats truncate and
// saturate into integers, 4-bit targets round-to-even then wrap, narrow floats round once, and
// bool/complex/string follow ONNX Cast (numpy where Cast is silent).
#include "core/dtype/scalar.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "core/base/error.h"
#include "core/dtype/half.h"

namespace geon {
namespace {

using Kind = Scalar::Kind;
constexpr double kInf = std::numeric_limits<double>::infinity();

Scalar from_double(double x) { return Scalar{Kind::kFloat, x, 0, 0, 0}; }
Scalar from_int(int64_t x) { return Scalar{Kind::kSigned, 0, 0, x, 0}; }
Scalar from_uint(uint64_t x) { return Scalar{Kind::kUnsigned, 0, 0, 0, x}; }

// Stores v as `t` and returns the stored bytes as T (T = the storage type of `t`).
template <class T>
T cast_to(DType t, const Scalar& v, const CastOptions& opt = {}) {
  T out{};
  store_scalar(t, &out, 0, v, opt);
  return out;
}

// Round trip through storage of `from`, then to `to`.
template <class To, class From>
To convert(DType from, From x, DType to) {
  return cast_to<To>(to, load_scalar(from, &x, 0));
}

TEST(ScalarCast, Int64ExtremesSurviveIntegerCasts) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  const int64_t min = std::numeric_limits<int64_t>::min();
  EXPECT_EQ((convert<int64_t>(DType::kInt64, max, DType::kInt64)), max);
  EXPECT_EQ((convert<uint64_t>(DType::kInt64, max, DType::kUInt64)), static_cast<uint64_t>(max));
  EXPECT_EQ((convert<uint64_t>(DType::kInt64, min, DType::kUInt64)), uint64_t{1} << 63);
  EXPECT_EQ((convert<int64_t>(DType::kInt64, max - 1, DType::kInt64)), max - 1);
  const uint64_t umax = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ((convert<uint64_t>(DType::kUInt64, umax, DType::kUInt64)), umax);
  EXPECT_EQ((convert<int64_t>(DType::kUInt64, umax, DType::kInt64)), -1);
}

TEST(ScalarCast, NarrowingIntegersWrapLikeTwosComplement) {
  EXPECT_EQ((convert<int8_t>(DType::kInt16, int16_t{200}, DType::kInt8)), -56);  // Cast's example
  EXPECT_EQ((convert<int8_t>(DType::kInt32, int32_t{300}, DType::kInt8)), 44);
  EXPECT_EQ((convert<int8_t>(DType::kInt32, int32_t{-129}, DType::kInt8)), 127);
  EXPECT_EQ((convert<uint8_t>(DType::kInt32, int32_t{-1}, DType::kUInt8)), 255);
  EXPECT_EQ((convert<uint16_t>(DType::kInt64, int64_t{70000}, DType::kUInt16)), 70000 - 65536);
  EXPECT_EQ((convert<int32_t>(DType::kUInt32, uint32_t{0xFFFFFFFF}, DType::kInt32)), -1);
  EXPECT_EQ((convert<int64_t>(DType::kInt8, int8_t{-5}, DType::kInt64)), -5);  // sign-extends
  EXPECT_EQ((convert<uint64_t>(DType::kInt8, int8_t{-1}, DType::kUInt64)),
            std::numeric_limits<uint64_t>::max());
}

TEST(ScalarCast, FloatToIntegerTruncatesTowardZero) {
  EXPECT_EQ(cast_to<int32_t>(DType::kInt32, from_double(2.7)), 2);
  EXPECT_EQ(cast_to<int32_t>(DType::kInt32, from_double(-2.7)), -2);
  EXPECT_EQ(cast_to<int8_t>(DType::kInt8, from_double(-0.9)), 0);
  EXPECT_EQ(cast_to<uint8_t>(DType::kUInt8, from_double(255.9)), 255);
  EXPECT_EQ((convert<int8_t>(DType::kFloat16, float_to_half(-2.5f), DType::kInt8)), -2);
}

TEST(ScalarCast, FloatToIntegerSendsNaNToZeroAndSaturates) {
  EXPECT_EQ(cast_to<int32_t>(DType::kInt32, from_double(std::nan(""))), 0);
  EXPECT_EQ(cast_to<uint64_t>(DType::kUInt64, from_double(std::nan(""))), 0u);
  EXPECT_EQ(cast_to<int32_t>(DType::kInt32, from_double(1e10)),
            std::numeric_limits<int32_t>::max());
  EXPECT_EQ(cast_to<int32_t>(DType::kInt32, from_double(-1e10)),
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(cast_to<int8_t>(DType::kInt8, from_double(-128.9)), -128);
  EXPECT_EQ(cast_to<int8_t>(DType::kInt8, from_double(-129.0)), -128);
  EXPECT_EQ(cast_to<uint8_t>(DType::kUInt8, from_double(300.5)), 255);
  EXPECT_EQ(cast_to<uint8_t>(DType::kUInt8, from_double(-1.5)), 0);
  EXPECT_EQ(cast_to<int64_t>(DType::kInt64, from_double(kInf)),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(cast_to<int64_t>(DType::kInt64, from_double(-kInf)),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(cast_to<int64_t>(DType::kInt64, from_double(0x1p63)),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(cast_to<int64_t>(DType::kInt64, from_double(-0x1p63)),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(cast_to<int64_t>(DType::kInt64, from_double(0x1p62 + 0x1p10)),
            (int64_t{1} << 62) + 1024);
  EXPECT_EQ(cast_to<uint64_t>(DType::kUInt64, from_double(0x1p64)),
            std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(cast_to<uint64_t>(DType::kUInt64, from_double(0x1p63)), uint64_t{1} << 63);
}

TEST(ScalarCast, FloatToInt4RoundsHalfToEvenThenWraps) {
  struct Row {
    double x;
    int want;
  };
  // ONNX's int4 spec: round to nearest even integer, then truncate to 4 bits; ONNX's own test
  // data sends -9 -> 7, 8 -> -8 and 15 -> -1.
  const Row rows[] = {{2.5, 2},   {3.5, 4},   {-2.5, -2}, {-3.5, -4}, {0.5, 0},
                      {2.6, 3},   {7.0, 7},   {7.6, -8},  {8.0, -8},  {-9.0, 7},
                      {15.0, -1}, {-8.0, -8}, {1e9, 0},   {-0.4, 0}};
  for (const Row& r : rows) {
    uint8_t byte[1] = {0x70};  // element 0 in the low nibble; element 1 (= 7) must survive
    store_scalar(DType::kInt4, byte, 0, from_double(r.x));
    const Scalar back = load_scalar(DType::kInt4, byte, 0);
    EXPECT_EQ(back.kind, Kind::kSigned);
    EXPECT_EQ(back.i, r.want) << r.x;
    EXPECT_EQ(load_scalar(DType::kInt4, byte, 1).i, 7);
  }
  uint8_t byte[1] = {0};
  store_scalar(DType::kUInt4, byte, 1, from_double(-1.0));
  EXPECT_EQ(load_scalar(DType::kUInt4, byte, 1).u, 15u);
  store_scalar(DType::kUInt4, byte, 1, from_double(16.0));
  EXPECT_EQ(load_scalar(DType::kUInt4, byte, 1).u, 0u);
  store_scalar(DType::kInt2, byte, 2, from_double(2.0));  // int2 range is [-2, 1]
  EXPECT_EQ(load_scalar(DType::kInt2, byte, 2).i, -2);
  store_scalar(DType::kUInt2, byte, 3, from_double(-1.0));
  EXPECT_EQ(load_scalar(DType::kUInt2, byte, 3).u, 3u);
}

TEST(ScalarCast, NonFiniteToInt4IsZero) {
  for (double x : {std::nan(""), kInf, -kInf}) {
    uint8_t byte[1] = {0xFF};
    store_scalar(DType::kInt4, byte, 0, from_double(x));
    EXPECT_EQ(load_scalar(DType::kInt4, byte, 0).i, 0) << x;
  }
}

TEST(ScalarCast, PackedInt4StoresAndLoadsEveryValue) {
  for (int64_t v = -8; v <= 7; ++v) {
    uint8_t bytes[2] = {0x99, 0x99};
    store_scalar(DType::kInt4, bytes, 3, from_int(v));
    const Scalar s = load_scalar(DType::kInt4, bytes, 3);
    EXPECT_EQ(s.kind, Kind::kSigned);
    EXPECT_EQ(s.i, v);
    EXPECT_EQ(bytes[0], 0x99);
    EXPECT_EQ(bytes[1] & 0x0F, 0x9);
  }
  for (uint64_t v = 0; v <= 15; ++v) {
    uint8_t bytes[1] = {0};
    store_scalar(DType::kUInt4, bytes, 0, from_uint(v));
    EXPECT_EQ(load_scalar(DType::kUInt4, bytes, 0).u, v);
  }
  uint8_t bytes[1] = {0};
  store_scalar(DType::kInt4, bytes, 0, from_int(-9));  // integers wrap
  EXPECT_EQ(load_scalar(DType::kInt4, bytes, 0).i, 7);
  store_scalar(DType::kInt4, bytes, 0, from_uint(24));
  EXPECT_EQ(load_scalar(DType::kInt4, bytes, 0).i, -8);
}

TEST(ScalarCast, BoolIsNonzeroIncludingNaN) {
  EXPECT_EQ(cast_to<uint8_t>(DType::kBool, from_double(0.0)), 0);
  EXPECT_EQ(cast_to<uint8_t>(DType::kBool, from_double(-0.0)), 0);
  EXPECT_EQ(cast_to<uint8_t>(DType::kBool, from_double(std::nan(""))), 1);
  EXPECT_EQ(cast_to<uint8_t>(DType::kBool, from_double(1e-300)), 1);
  EXPECT_EQ(cast_to<uint8_t>(DType::kBool, from_int(256)), 1);  // not truncated to 0
  EXPECT_EQ(cast_to<uint8_t>(DType::kBool, from_int(-1)), 1);
  EXPECT_EQ(cast_to<uint8_t>(DType::kBool, from_int(0)), 0);
  const uint8_t stored_two = 2;  // any nonzero byte reads as true, i.e. 1
  const Scalar t = load_scalar(DType::kBool, &stored_two, 0);
  EXPECT_EQ(t.kind, Kind::kUnsigned);
  EXPECT_EQ(t.u, 1u);
  EXPECT_EQ(cast_to<float>(DType::kFloat, t), 1.0f);
  EXPECT_EQ(cast_to<int32_t>(DType::kInt32, t), 1);
  EXPECT_EQ(cast_to<uint16_t>(DType::kFloat16, t), 0x3C00);
  uint8_t nibble[1] = {0};
  store_scalar(DType::kInt4, nibble, 1, t);
  EXPECT_EQ(load_scalar(DType::kInt4, nibble, 1).i, 1);
}

TEST(ScalarCast, ComplexTakesRealPartAndRealGetsZeroImaginary) {
  float c64[2] = {1.5f, -2.0f};
  const Scalar c = load_scalar(DType::kComplex64, c64, 0);
  EXPECT_EQ(c.kind, Kind::kComplex);
  EXPECT_EQ(c.re, 1.5);
  EXPECT_EQ(c.im, -2.0);
  EXPECT_EQ(cast_to<double>(DType::kDouble, c), 1.5);
  EXPECT_EQ(cast_to<int32_t>(DType::kInt32, c), 1);
  double c128[4] = {9, 9, 9, 9};
  store_scalar(DType::kComplex128, c128, 1, c);
  EXPECT_EQ(c128[2], 1.5);
  EXPECT_EQ(c128[3], -2.0);
  EXPECT_EQ(c128[0], 9.0);
  store_scalar(DType::kComplex128, c128, 0, from_int(-7));
  EXPECT_EQ(c128[0], -7.0);
  EXPECT_EQ(c128[1], 0.0);
  float out[2] = {5, 5};
  store_scalar(DType::kComplex64, out, 0, from_double(0.1));
  EXPECT_EQ(out[0], 0.1f);
  EXPECT_EQ(out[1], 0.0f);
  const Scalar imaginary{Kind::kComplex, 0.0, 1.0, 0, 0};
  EXPECT_EQ(cast_to<uint8_t>(DType::kBool, imaginary), 1);  // nonzero anywhere is true
}

TEST(ScalarCast, IntegersRoundOnceIntoNarrowFloats) {
  // 2^62 + 2^38 + 1: float keeps 24 bits, so the exact answer is 2^62 + 2^39. Through double
  // it would first become the tie 2^62 + 2^38 and then round to even, 2^62.
  const int64_t big = (int64_t{1} << 62) + (int64_t{1} << 38) + 1;
  EXPECT_EQ(cast_to<float>(DType::kFloat, from_int(big)), 0x1p62f + 0x1p39f);
  EXPECT_EQ(cast_to<float>(DType::kFloat, from_uint(static_cast<uint64_t>(big))),
            0x1p62f + 0x1p39f);
  // Same trap for bfloat16 (8 bits): 2^40 + 2^32 + 1 -> 2^40 + 2^33.
  const int64_t b = (int64_t{1} << 40) + (int64_t{1} << 32) + 1;
  EXPECT_EQ(cast_to<uint16_t>(DType::kBFloat16, from_int(b)), float_to_bfloat16(0x1p40f + 0x1p33f));
  EXPECT_EQ(cast_to<uint16_t>(DType::kBFloat16, from_int(-b)),
            float_to_bfloat16(-(0x1p40f + 0x1p33f)));
  // And for e8m0 rounding up: 2^60 + 1 is not a power of two.
  EXPECT_EQ(cast_to<uint8_t>(DType::kFloat8E8M0, from_int((int64_t{1} << 60) + 1)), 127 + 61);
  EXPECT_EQ(cast_to<uint8_t>(DType::kFloat8E8M0, from_int(int64_t{1} << 60)), 127 + 60);
  // Small integers are exact.
  EXPECT_EQ(cast_to<uint16_t>(DType::kFloat16, from_int(-3)), float_to_half(-3.0f));
  EXPECT_EQ(cast_to<double>(DType::kDouble, from_uint(std::numeric_limits<uint64_t>::max())),
            0x1p64);
  EXPECT_EQ(cast_to<double>(DType::kDouble, from_int(big)), static_cast<double>(big));
  EXPECT_EQ(cast_to<uint16_t>(DType::kFloat16, from_int(70000)), 0x7C00);  // overflow -> inf
}

TEST(ScalarCast, DoublesRoundOnceIntoHalf) {
  const double x = 1.0 + 0x1p-11 + 0x1p-40;  // just above a half tie
  EXPECT_EQ(cast_to<uint16_t>(DType::kFloat16, from_double(x)), 0x3C01);
  EXPECT_EQ(cast_to<float>(DType::kFloat, from_double(1e300)),
            std::numeric_limits<float>::infinity());
}

TEST(ScalarCast, Float8TargetsHonourCastOptions) {
  CastOptions no_sat;
  no_sat.saturate = false;
  EXPECT_EQ(cast_to<uint8_t>(DType::kFloat8E4M3FN, from_double(1e6)), 0x7E);
  EXPECT_EQ(cast_to<uint8_t>(DType::kFloat8E4M3FN, from_double(1e6), no_sat), 0x7F);
  EXPECT_EQ(cast_to<uint8_t>(DType::kFloat8E5M2, from_int(100000), no_sat), 0x7C);
  EXPECT_EQ(cast_to<uint8_t>(DType::kFloat8E5M2FNUZ, from_double(-kInf), no_sat), 0x80);
  EXPECT_EQ(cast_to<uint8_t>(DType::kFloat8E4M3FNUZ, from_double(-kInf)), 0xFF);
  CastOptions down;
  down.e8m0_round = CastOptions::RoundMode::kDown;
  EXPECT_EQ(cast_to<uint8_t>(DType::kFloat8E8M0, from_int(3)), 127 + 2);
  EXPECT_EQ(cast_to<uint8_t>(DType::kFloat8E8M0, from_int(3), down), 127 + 1);
  uint8_t f4[1] = {0};
  store_scalar(DType::kFloat4E2M1, f4, 1, from_int(5));  // tie 4 / 6 -> 4
  EXPECT_EQ(load_scalar(DType::kFloat4E2M1, f4, 1).re, 4.0);
  EXPECT_EQ(load_scalar(DType::kFloat4E2M1, f4, 0).re, 0.0);
}

TEST(ScalarCast, Float8SourcesDecodeExactly) {
  const uint8_t e4m3 = 0x7E;
  EXPECT_EQ((load_scalar(DType::kFloat8E4M3FN, &e4m3, 0).re), 448.0);
  EXPECT_EQ((convert<int32_t>(DType::kFloat8E4M3FN, e4m3, DType::kInt32)), 448);
  const uint8_t nan = 0x80;
  EXPECT_EQ((convert<int32_t>(DType::kFloat8E5M2FNUZ, nan, DType::kInt32)), 0);
  const uint16_t bf = 0xC2F7;  // -123.5
  EXPECT_EQ((load_scalar(DType::kBFloat16, &bf, 0).re), -123.5);
}

TEST(ScalarCast, StringIsNotNumeric) {
  char buffer[16] = {};
  for (DType t : {DType::kString, DType::kUndefined}) {
    try {
      load_scalar(t, buffer, 0);
      FAIL() << "load_scalar accepted a non-numeric dtype";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kNotSupported);
      EXPECT_NE(std::string(e.what()).find(std::string(dtype_name(t))), std::string::npos);
    }
    try {
      store_scalar(t, buffer, 0, from_int(1));
      FAIL() << "store_scalar accepted a non-numeric dtype";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kNotSupported);
    }
  }
}

TEST(ScalarCast, EveryNumericDTypeRoundTripsSmallIntegers) {
  for (int d = 1; d < kDTypeCount; ++d) {
    const auto t = static_cast<DType>(d);
    if (!is_numeric(t)) continue;
    alignas(16) unsigned char buffer[6 * 16] = {};  // room for element 5 of complex128
    for (int64_t v : {0, 1}) {
      if (v == 0 && t == DType::kFloat8E8M0) continue;  // e8m0 has no zero
      store_scalar(t, buffer, 5, from_int(v));
      const Scalar s = load_scalar(t, buffer, 5);
      const double back = s.kind == Kind::kSigned     ? static_cast<double>(s.i)
                          : s.kind == Kind::kUnsigned ? static_cast<double>(s.u)
                                                      : s.re;
      EXPECT_EQ(back, static_cast<double>(v)) << dtype_name(t);
    }
  }
}

}  // namespace
}  // namespace geon
