// Checks the narrow-float encoders and decoders against vectors produced by independent
// implementations (numpy, ml_dtypes, onnx.numpy_helper); see make_vectors.py for how and for
// the inputs left out because the oracle and the ONNX spec disagree.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <iterator>

#include "core/dtype/float8.h"
#include "core/dtype/half.h"

namespace geon {
namespace {

struct Float8Vector {
  uint32_t in;
  uint8_t sat, nosat;
};
struct Half32Vector {
  uint32_t in;
  uint16_t code;
};
struct Half64Vector {
  uint64_t in;
  uint16_t code;
};
struct E8M0Vector {
  uint32_t in;
  uint8_t up, down, nearest;
};

#include "tests/core/dtype/cast_vectors.inc"

float f32(uint32_t bits) { return std::bit_cast<float>(bits); }

// NaN codes may differ in sign or payload between implementations; NaN-ness must not.
template <size_t N>
void check_float8(const Float8Vector (&vectors)[N], uint8_t (*encode)(double, bool),
                  float (*decode)(uint8_t)) {
  for (const Float8Vector& v : vectors) {
    const float x = f32(v.in);
    for (bool sat : {true, false}) {
      const uint8_t want = sat ? v.sat : v.nosat;
      const uint8_t got = encode(x, sat);
      if (std::isnan(decode(want))) {
        EXPECT_TRUE(std::isnan(decode(got))) << std::hex << v.in << " sat " << sat;
      } else {
        EXPECT_EQ(got, want) << std::hex << v.in << " (" << x << ") sat " << sat;
      }
    }
  }
}

template <size_t N>
void check_decode(const uint32_t (&want)[N], float (*decode)(uint8_t)) {
  for (unsigned c = 0; c < N; ++c) {
    const float got = decode(static_cast<uint8_t>(c));
    if (std::isnan(f32(want[c]))) {
      EXPECT_TRUE(std::isnan(got)) << c;
    } else {
      EXPECT_EQ(std::bit_cast<uint32_t>(got), want[c]) << c;
    }
  }
}

TEST(CastVectors, Float8E4M3FNMatchesMlDtypes) {
  check_float8(kE4M3FNEncode, float_to_float8e4m3fn, float8e4m3fn_to_float);
  check_decode(kE4M3FNDecode, float8e4m3fn_to_float);
}

TEST(CastVectors, Float8E4M3FNUZMatchesMlDtypes) {
  check_float8(kE4M3FNUZEncode, float_to_float8e4m3fnuz, float8e4m3fnuz_to_float);
  check_decode(kE4M3FNUZDecode, float8e4m3fnuz_to_float);
}

TEST(CastVectors, Float8E5M2MatchesMlDtypes) {
  check_float8(kE5M2Encode, float_to_float8e5m2, float8e5m2_to_float);
  check_decode(kE5M2Decode, float8e5m2_to_float);
}

TEST(CastVectors, Float8E5M2FNUZMatchesMlDtypes) {
  check_float8(kE5M2FNUZEncode, float_to_float8e5m2fnuz, float8e5m2fnuz_to_float);
  check_decode(kE5M2FNUZDecode, float8e5m2fnuz_to_float);
}

TEST(CastVectors, Float4E2M1MatchesMlDtypes) {
  for (const Float8Vector& v : kE2M1Encode) {
    EXPECT_EQ(v.sat, v.nosat);  // float4 always saturates
    EXPECT_EQ(float_to_float4e2m1(f32(v.in)), v.sat) << std::hex << v.in;
  }
  check_decode(kE2M1Decode, float4e2m1_to_float);
}

TEST(CastVectors, Float16MatchesNumpy) {
  for (const Half32Vector& v : kFloat16Encode) {
    EXPECT_EQ(float_to_half(f32(v.in)), v.code) << std::hex << v.in;
    EXPECT_EQ(double_to_half(f32(v.in)), v.code) << std::hex << v.in;
  }
  for (const Half64Vector& v : kFloat16EncodeDouble)
    EXPECT_EQ(double_to_half(std::bit_cast<double>(v.in)), v.code) << std::hex << v.in;
}

TEST(CastVectors, BFloat16MatchesMlDtypes) {
  for (const Half32Vector& v : kBFloat16Encode) {
    EXPECT_EQ(float_to_bfloat16(f32(v.in)), v.code) << std::hex << v.in;
    EXPECT_EQ(double_to_bfloat16(f32(v.in)), v.code) << std::hex << v.in;
  }
}

TEST(CastVectors, Float8E8M0MatchesOnnxReference) {
  for (const E8M0Vector& v : kE8M0Encode) {
    const float x = f32(v.in);
    for (bool sat : {true, false}) {
      EXPECT_EQ(float_to_float8e8m0(x, sat, E8M0Round::kUp), v.up) << x;
      EXPECT_EQ(float_to_float8e8m0(x, sat, E8M0Round::kDown), v.down) << x;
      EXPECT_EQ(float_to_float8e8m0(x, sat, E8M0Round::kNearest), v.nearest) << x;
    }
  }
}

TEST(CastVectors, TablesAreNotEmpty) {
  EXPECT_GT(std::size(kE4M3FNEncode), 300u);
  EXPECT_GT(std::size(kE2M1Encode), 100u);
  EXPECT_GT(std::size(kFloat16EncodeDouble), 200u);
  EXPECT_GT(std::size(kE8M0Encode), 150u);
}

}  // namespace
}  // namespace geon
