// cpu.generic Cast / CastLike with strings and Equal on strings: numbers to their shortest
// round-trip text and back (every text read back gives the same number), the spec's NaN / INF
// spellings, integers of every width, bool, strided inputs, broadcasting Equal, and the error
// naming the element that is not a number.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <random>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/generic/text/text_harness.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

TEST(TextCast, FloatToStringRoundTripsEveryValue) {
  std::mt19937 rng(11);
  std::vector<double> v;
  std::uniform_real_distribution<float> u(-1e6f, 1e6f);
  for (int i = 0; i < 40; ++i) v.push_back(std::ldexp(u(rng), static_cast<int>(rng() % 60) - 30));
  v.push_back(NAN);
  v.push_back(INFINITY);
  v.push_back(-INFINITY);
  v.push_back(0.1);
  const int64_t n = static_cast<int64_t>(v.size());
  for (DType t : {DType::kFloat, DType::kDouble}) {
    NodeGraph ng("Cast", 21);
    ng.in(Host::of(t, {n}, v)).out(DType::kString, {n}).attr_i("to", 8);
    const Host y = ng.run(gen())[0];
    for (int64_t i = 0; i < n; ++i) {
      const std::string s = string_at(y, i);
      if (std::isnan(v[i])) {
        EXPECT_EQ(s, "NaN");
      } else if (std::isinf(v[i])) {
        EXPECT_EQ(s, v[i] > 0 ? "INF" : "-INF");
      } else if (t == DType::kFloat) {
        EXPECT_EQ(std::strtof(s.c_str(), nullptr), static_cast<float>(v[i])) << s;
      } else {
        EXPECT_EQ(std::strtod(s.c_str(), nullptr), v[i]) << s;
      }
    }
  }
  NodeGraph tenth("Cast", 21);
  tenth.in(Host::of(DType::kFloat, {1}, {0.1})).out(DType::kString, {1}).attr_i("to", 8);
  EXPECT_EQ(string_at(tenth.run(gen())[0], 0), "0.1");  // shortest, not 0.100000001
}

TEST(TextCast, IntegersAndBoolToString) {
  NodeGraph i8("Cast", 21);
  i8.in(Host::of(DType::kInt8, {3}, {-128, 0, 127})).out(DType::kString, {3}).attr_i("to", 8);
  EXPECT_EQ(all_strings(i8.run(gen())[0]), (std::vector<std::string>{"-128", "0", "127"}));
  NodeGraph b("Cast", 21);
  b.in(Host::of(DType::kBool, {2}, {1, 0})).out(DType::kString, {2}).attr_i("to", 8);
  EXPECT_EQ(all_strings(b.run(gen())[0]), (std::vector<std::string>{"True", "False"}));
}

TEST(TextCast, StringToNumbers) {
  const std::vector<std::string> text{"0.5", "NaN", "INF", "+INF", "-INF", "-2.25e3"};
  NodeGraph f("Cast", 21);
  f.in(transposed_strings({2, 3}, text)).out(DType::kFloat, {2, 3}).attr_i("to", 1);
  const Host y = f.run(gen())[0];
  for (int64_t i = 0; i < 6; ++i) {
    const float want = std::strtof(text[i].c_str(), nullptr);
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(y.at(i)));
    else
      EXPECT_EQ(y.at(i), want) << text[i];
  }
  NodeGraph i("Cast", 21);
  i.in(strings({3}, {"-7", "+12", "9000000000"})).out(DType::kInt64, {3}).attr_i("to", 7);
  const Host z = i.run(gen())[0];
  EXPECT_EQ(z.at(0), -7);
  EXPECT_EQ(z.at(1), 12);
  EXPECT_EQ(z.at(2), 9e9);
}

TEST(TextCast, RefusesTextThatIsNotANumber) {
  NodeGraph ng("Cast", 21);
  ng.in(strings({2}, {"1", "one"})).out(DType::kInt32, {2}).attr_i("to", 6);
  expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"element 1", "'one'", "int32"});
  NodeGraph f("Cast", 21);
  f.in(strings({1}, {"1.5x"})).out(DType::kFloat, {1}).attr_i("to", 1);
  expect_error(f, gen(), ErrorCode::kInvalidArgument, {"element 0", "1.5x"});
}

TEST(TextCast, StringToStringCopiesHandles) {
  NodeGraph ng("Cast", 21);
  ng.in(transposed_strings({2, 2}, {"a", "b", "c", "d"})).out(DType::kString, {2, 2});
  ng.attr_i("to", 8);
  EXPECT_EQ(all_strings(ng.run(gen())[0]), (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(TextEqual, BroadcastsOverStridedStrings) {
  const std::vector<std::string> a{"x", "y", "", "é", "x", "z"};
  NodeGraph ng("Equal", 19);
  ng.in(transposed_strings({2, 3}, a)).in(strings({3}, {"x", "y", "é"})).out(DType::kBool, {2, 3});
  const Host y = ng.run(gen())[0];
  const std::vector<std::string> b{"x", "y", "é"};
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(y.at(i), a[i] == b[i % 3] ? 1 : 0) << i;
}

TEST(TextEqual, RefusesStringAgainstNumber) {
  NodeGraph ng("Equal", 19);
  ng.in(strings({1}, {"1"})).in(Host::dense(DType::kFloat, {1})).out(DType::kBool, {1});
  EXPECT_TRUE(ng.supports(gen()).has_value());
}

}  // namespace
}  // namespace geon::cpu::testing
