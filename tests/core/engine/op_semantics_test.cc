// The math of individual ops where ONNX (or safety) fixes an edge case: integer wrap and
// division by zero, Mod's sign rules, Round's ties, NaN propagation, shifts past the width.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/desc/desc.h"
#include "core/engine/engine.h"

namespace geon {
namespace {

template <class T>
std::vector<T> run2(const char* op, std::vector<T> a, std::vector<T> b, DType t) {
  const int64_t n = static_cast<int64_t>(a.size());
  std::vector<T> out(a.size());
  const TensorDesc d = row_major(t, std::vector<int64_t>{n});
  binary(op, {d, out.data()}, {d, a.data()}, {d, b.data()});
  return out;
}

template <class T>
std::vector<T> run1(const char* op, std::vector<T> a, DType t) {
  const int64_t n = static_cast<int64_t>(a.size());
  std::vector<T> out(a.size());
  const TensorDesc d = row_major(t, std::vector<int64_t>{n});
  unary(op, {d, out.data()}, {d, a.data()});
  return out;
}

TEST(OpSemantics, IntegerDivisionByZeroGivesZeroInsteadOfTrapping) {
  EXPECT_EQ(run2<int32_t>("div", {7, -7, 5}, {0, 2, -1}, DType::kInt32),
            (std::vector<int32_t>{0, -3, -5}));
  const int64_t mn = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(run2<int64_t>("div", {mn}, {-1}, DType::kInt64), (std::vector<int64_t>{mn}));
}

TEST(OpSemantics, ModTakesDivisorSignAndFmodTakesDividendSign) {
  EXPECT_EQ(run2<int32_t>("mod", {-7, 7, -7, 7}, {3, -3, -3, 3}, DType::kInt32),
            (std::vector<int32_t>{2, -2, -1, 1}));
  EXPECT_EQ(run2<int32_t>("fmod", {-7, 7, -7, 7}, {3, -3, -3, 3}, DType::kInt32),
            (std::vector<int32_t>{-1, 1, -1, 1}));
  EXPECT_EQ(run2<float>("mod", {-7.5f, 7.5f}, {2.f, -2.f}, DType::kFloat),
            (std::vector<float>{0.5f, -0.5f}));
  EXPECT_EQ(run2<float>("fmod", {-7.5f, 7.5f}, {2.f, -2.f}, DType::kFloat),
            (std::vector<float>{-1.5f, 1.5f}));
}

TEST(OpSemantics, SignedOverflowWrapsLikeTwosComplement) {
  const int32_t mx = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(run2<int32_t>("add", {mx}, {1}, DType::kInt32),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min()}));
  EXPECT_EQ(run1<int8_t>("neg", {-128}, DType::kInt8), (std::vector<int8_t>{-128}));
  EXPECT_EQ(run1<int8_t>("abs", {-128, -5}, DType::kInt8), (std::vector<int8_t>{-128, 5}));
}

TEST(OpSemantics, RoundHalvesToEven) {
  EXPECT_EQ(run1<float>("round", {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f}, DType::kFloat),
            (std::vector<float>{0.f, 2.f, 2.f, -0.f, -2.f, 2.f}));
}

TEST(OpSemantics, MaxAndMinPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto mx = run2<float>("max", {nan, 1.f, 2.f}, {1.f, nan, 3.f}, DType::kFloat);
  EXPECT_TRUE(std::isnan(mx[0]));
  EXPECT_TRUE(std::isnan(mx[1]));
  EXPECT_EQ(mx[2], 3.f);
  auto mn = run2<float>("min", {nan, 1.f}, {1.f, nan}, DType::kFloat);
  EXPECT_TRUE(std::isnan(mn[0]) && std::isnan(mn[1]));
}

TEST(OpSemantics, ShiftsByTheWidthOrMoreGiveZero) {
  EXPECT_EQ(run2<uint8_t>("shift_left", {1, 1, 3}, {7, 8, 200}, DType::kUInt8),
            (std::vector<uint8_t>{128, 0, 0}));
  EXPECT_EQ(run2<uint32_t>("shift_right", {256, 256}, {8, 32}, DType::kUInt32),
            (std::vector<uint32_t>{1, 0}));
}

TEST(OpSemantics, IntegerPowerIsExactAndNegativeExponentsTruncate) {
  EXPECT_EQ(run2<int64_t>("pow", {3, 2, -2, 1, -1, 5}, {4, 62, 3, -3, -3, -1}, DType::kInt64),
            (std::vector<int64_t>{81, int64_t{1} << 62, -8, 1, -1, 0}));
}

// Pow(x, 2) squares in a vectorised loop: the same values std::pow gives, zeros, infinities and
// NaN included; a chunk with any other exponent keeps std::pow for all of it.
TEST(OpSemantics, PowOfTwoIsStdPowAndOtherExponentsStillAre) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  const std::vector<float> x{3.f, -0.f, -inf, nan, 1e20f, -1.5f, 1e-30f, 0.1f};
  for (const std::vector<float>& e :
       {std::vector<float>(x.size(), 2.f), std::vector<float>{2, 2, 2, 2, 2, 2, 2, 0.5f},
        std::vector<float>{2, 3, -2, 2, 0.5f, 2, 2, 2}}) {
    const std::vector<float> got = run2<float>("pow", x, e, DType::kFloat);
    for (size_t i = 0; i < x.size(); ++i) {
      const float want = std::pow(x[i], e[i]);
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(got[i])) << x[i] << "^" << e[i];
      else
        EXPECT_EQ(got[i], want) << x[i] << "^" << e[i];
      EXPECT_EQ(std::signbit(got[i]), std::signbit(want)) << x[i] << "^" << e[i];
    }
  }
}

TEST(OpSemantics, SigmoidIsFiniteForLargeMagnitudes) {
  auto s = run1<float>("sigmoid", {-1000.f, 1000.f, 0.f}, DType::kFloat);
  EXPECT_EQ(s[0], 0.f);
  EXPECT_EQ(s[1], 1.f);
  EXPECT_EQ(s[2], 0.5f);
}

TEST(OpSemantics, ComparisonsProduceBool) {
  std::vector<float> a{1, 2, 3}, b{2, 2, 2};
  bool out[3];
  const TensorDesc d = row_major(DType::kFloat, std::vector<int64_t>{3});
  binary("less_equal", {row_major(DType::kBool, std::vector<int64_t>{3}), out}, {d, a.data()},
         {d, b.data()});
  EXPECT_TRUE(out[0]);
  EXPECT_TRUE(out[1]);
  EXPECT_FALSE(out[2]);
}

TEST(OpSemantics, ClipKeepsNaNAndBoundsOthers) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x{-5, 0.5f, 5, nan}, out(4);
  const TensorDesc d = row_major(DType::kFloat, std::vector<int64_t>{4});
  ternary("clip", {d, out.data()}, {d, x.data()}, ConstOperand::scalar(-1, DType::kFloat),
          ConstOperand::scalar(1, DType::kFloat));
  EXPECT_EQ(out[0], -1.f);
  EXPECT_EQ(out[1], 0.5f);
  EXPECT_EQ(out[2], 1.f);
  EXPECT_TRUE(std::isnan(out[3]));
}

}  // namespace
}  // namespace geon
