// cpu.generic's random ops: shapes and dtypes (attributes, *Like, Bernoulli's and
// Multinomial's dtype), a seed reproduces every run and matches numpy's RandomState (numpy's
// published first draws for seed 0), no seed draws anew each run, and the distributions have
// the right range, mean and spread; bad parameters are refusals or clear errors.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

std::vector<double> values(const Host& h) {
  std::vector<double> v;
  for (int64_t i = 0; i < element_count(h.desc); ++i) v.push_back(h.at(i));
  return v;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}
double variance(const std::vector<double>& v) {
  const double m = mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size());
}

Host draw(const std::string& op, DType t, const Dims& shape, std::optional<float> seed, float a,
          float b) {
  NodeGraph ng(op, 22);
  const bool normal = op == "RandomNormal";
  ng.attr_ints("shape", std::vector<int64_t>(shape.begin(), shape.end()));
  ng.attr_i("dtype", t == DType::kDouble ? 11 : t == DType::kFloat16 ? 10 : 1);
  ng.attr_f(normal ? "mean" : "low", a).attr_f(normal ? "scale" : "high", b);
  if (seed) ng.attr_f("seed", *seed);
  ng.out(t, shape);
  return ng.run(gen())[0];
}

TEST(CpuGenericRandom, SeededDrawsAreNumpysRandomState) {
  // numpy: RandomState(0).random_sample(3), RandomState(0).randn(3).
  const std::vector<double> u = values(draw("RandomUniform", DType::kDouble, {3}, 0.0f, 0, 1));
  EXPECT_NEAR(u[0], 0.5488135039273248, 1e-15);
  EXPECT_NEAR(u[1], 0.7151893663724195, 1e-15);
  EXPECT_NEAR(u[2], 0.6027633760716439, 1e-15);
  const std::vector<double> n = values(draw("RandomNormal", DType::kDouble, {3}, 0.0f, 0, 1));
  EXPECT_NEAR(n[0], 1.764052345967664, 1e-12);
  EXPECT_NEAR(n[1], 0.4001572083672233, 1e-12);
  EXPECT_NEAR(n[2], 0.9787379841057392, 1e-12);
  // Every run of a seeded node draws the same; another seed draws otherwise.
  for (const char* op : {"RandomUniform", "RandomNormal"}) {
    const Host a = draw(op, DType::kFloat, {4, 5}, 3.0f, 0, 1);
    EXPECT_EQ(values(a), values(draw(op, DType::kFloat, {4, 5}, 3.0f, 0, 1))) << op;
    EXPECT_NE(values(a), values(draw(op, DType::kFloat, {4, 5}, 4.0f, 0, 1))) << op;
    EXPECT_NE(values(a), values(draw(op, DType::kFloat, {4, 5}, -1.5f, 0, 1))) << op;
  }
}

TEST(CpuGenericRandom, UnseededRunsDifferAndDistributionsHoldTheirMoments) {
  const Host a = draw("RandomUniform", DType::kFloat, {64}, std::nullopt, 0, 1);
  EXPECT_NE(values(a), values(draw("RandomUniform", DType::kFloat, {64}, std::nullopt, 0, 1)));
  const std::vector<double> u =
      values(draw("RandomUniform", DType::kDouble, {200, 100}, std::nullopt, -2, 6));
  for (double x : u) ASSERT_TRUE(x >= -2 && x < 6) << x;
  EXPECT_NEAR(mean(u), 2.0, 0.1);
  EXPECT_NEAR(variance(u), 64.0 / 12, 0.2);
  const std::vector<double> n =
      values(draw("RandomNormal", DType::kDouble, {200, 100}, 5.0f, 1.5f, 3));
  EXPECT_NEAR(mean(n), 1.5, 0.1);
  EXPECT_NEAR(variance(n), 9.0, 0.3);
  const Host half = draw("RandomNormal", DType::kFloat16, {2, 3}, 1.0f, 0, 1);
  EXPECT_EQ(half.desc.dtype, DType::kFloat16);
  EXPECT_EQ(half.shape(), (Dims{2, 3}));
}

TEST(CpuGenericRandom, LikeFormsTakeTheInputsShapeAndTheirDtype) {
  std::mt19937 rng(1);
  const Host x = Host::random(DType::kDouble, {3, 4}, rng).strided({1, 0});
  NodeGraph ng("RandomUniformLike", 22);
  ng.in(x).attr_i("dtype", 1).attr_f("low", 5).attr_f("high", 7).out(DType::kFloat, {3, 4});
  const Host y = ng.run(gen())[0];
  EXPECT_EQ(y.desc.dtype, DType::kFloat);
  EXPECT_EQ(y.shape(), (Dims{3, 4}));
  for (double v : values(y)) EXPECT_TRUE(v >= 5 && v <= 7) << v;
  NodeGraph nl("RandomNormalLike", 22);
  nl.in(x).attr_f("seed", 2).out(DType::kDouble, {3, 4});
  EXPECT_EQ(values(nl.run(gen())[0]), values(nl.run(gen())[0]));
}

TEST(CpuGenericRandom, BernoulliDrawsOnesWithTheGivenProbability) {
  // numpy: RandomState(3).binomial(1, [0.2, 0.9, 0.5, 0.7, 0.1]) is [0, 1, 0, 1, 0].
  NodeGraph seeded("Bernoulli", 22);
  seeded.in(Host::of(DType::kFloat, {5}, {0.2, 0.9, 0.5, 0.7, 0.1})).attr_f("seed", 3);
  seeded.out(DType::kInt32, {5});
  expect_values(seeded.run(gen())[0], {5}, [](int64_t i) { return i == 1 || i == 3 ? 1.0 : 0.0; });
  NodeGraph edges("Bernoulli", 22);
  edges.in(Host::of(DType::kDouble, {2, 3}, {0, 1, 0, 1, 1, 0}).strided({1, 0}));
  edges.out(DType::kBool, {2, 3});
  const Host e = edges.run(gen())[0];
  EXPECT_EQ(e.desc.dtype, DType::kBool);
  expect_values(e, {2, 3}, [](int64_t i) { return std::vector<double>{0, 1, 0, 1, 1, 0}[i]; });
  NodeGraph many("Bernoulli", 22);
  many.in(Host::of(DType::kFloat, {1}, {0.3})).out(DType::kFloat, {1});
  double ones = 0;
  for (int i = 0; i < 4000; ++i) ones += many.run(gen())[0].at(0);
  EXPECT_NEAR(ones / 4000, 0.3, 0.04);
  NodeGraph bad("Bernoulli", 22);
  bad.in(Host::of(DType::kFloat, {2}, {0.5, 1.5})).out(DType::kFloat, {2});
  expect_error(bad, gen(), ErrorCode::kInvalidArgument, {"Bernoulli", "[0, 1]"});
}

TEST(CpuGenericRandom, MultinomialSamplesClassesBySoftmaxWeight) {
  const std::vector<double> logits = {std::log(0.1), std::log(0.6), std::log(0.3), 0, -1e9, 0};
  NodeGraph ng("Multinomial", 7);
  ng.in(Host::of(DType::kFloat, {2, 3}, logits)).attr_i("sample_size", 3000);
  ng.attr_f("seed", 11).out(DType::kInt64, {2, 3000});
  const Host y = ng.run(gen())[0];
  EXPECT_EQ(values(y), values(ng.run(gen())[0]));  // seeded: every run the same
  double count[2][3] = {};
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t s = 0; s < 3000; ++s) {
      const double c = y.at(b * 3000 + s);
      ASSERT_TRUE(c == 0 || c == 1 || c == 2) << c;
      count[b][static_cast<int>(c)] += 1.0 / 3000;
    }
  EXPECT_NEAR(count[0][0], 0.1, 0.03);
  EXPECT_NEAR(count[0][1], 0.6, 0.03);
  EXPECT_NEAR(count[1][1], 0.0, 1e-12);  // weight e^-1e9
  EXPECT_NEAR(count[1][0], 0.5, 0.04);
  NodeGraph nan("Multinomial", 7);
  nan.in(Host::of(DType::kFloat, {1, 2}, {NAN, 0})).attr_i("sample_size", 2);
  nan.out(DType::kInt32, {1, 2});
  expect_error(nan, gen(), ErrorCode::kInvalidArgument, {"Multinomial", "NaN"});
}

TEST(CpuGenericRandom, BadParametersAreRefused) {
  NodeGraph huge("RandomUniform", 22);
  huge.attr_ints("shape", {int64_t{1} << 30, int64_t{1} << 30}).out(DType::kFloat);
  ASSERT_TRUE(huge.supports(gen()));
  NodeGraph low("RandomUniform", 22);
  low.attr_ints("shape", {2}).attr_f("low", 3).attr_f("high", 1).out(DType::kFloat, {2});
  ASSERT_TRUE(low.supports(gen()));
  NodeGraph ints("RandomNormal", 22);
  ints.attr_ints("shape", {2}).out(DType::kInt32, {2});
  ASSERT_TRUE(ints.supports(gen()));
  NodeGraph samples("Multinomial", 7);
  samples.in(Host::of(DType::kFloat, {1, 2}, {})).attr_i("sample_size", 0).out(DType::kInt32);
  ASSERT_TRUE(samples.supports(gen()));
}

}  // namespace
}  // namespace geon::cpu::testing
