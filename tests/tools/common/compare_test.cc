// Output comparison as the ONNX harness judges it: tolerances for floats, exactness for
// integers and bools, NaN equal to NaN, dtype and shape exactly.
#include "tools/common/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace geon::tools {
namespace {

template <typename T>
HostTensor tensor(int32_t dtype, std::vector<int64_t> shape, const std::vector<T>& v) {
  HostTensor t;
  t.name = "y";
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.data.resize(v.size() * sizeof(T));
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

HostTensor floats(const std::vector<float>& v) {
  return tensor<float>(kFloat, {static_cast<int64_t>(v.size())}, v);
}

TEST(CompareTensors, WithinRtolAndAtolMatches) {
  // 1000 * (1 + 0.9e-3) is inside rtol 1e-3; 0 vs 5e-8 is inside atol 1e-7.
  EXPECT_FALSE(compare_tensors(floats({1000.9f, 5e-8f}), floats({1000.0f, 0.0f}), {}).has_value());
}

TEST(CompareTensors, OutsideToleranceReportsTheFirstIndexAndTheCount) {
  const auto m = compare_tensors(floats({1, 2.5f, 3, 4.5f}), floats({1, 2, 3, 4}), {});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->what, "value");
  EXPECT_EQ(m->index, 1);
  EXPECT_EQ(m->mismatches, 2);
  EXPECT_EQ(m->got, "2.5");
  EXPECT_EQ(m->expected, "2");
  EXPECT_NE(describe(*m, "y").find("index 1"), std::string::npos);
}

TEST(CompareTensors, LooserToleranceFromTheTestIsHonoured) {
  EXPECT_TRUE(compare_tensors(floats({1.05f}), floats({1.0f}), {}).has_value());
  EXPECT_FALSE(compare_tensors(floats({1.05f}), floats({1.0f}), {0.1, 0.0}).has_value());
}

TEST(CompareTensors, NanEqualsNanButNotANumber) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(compare_tensors(floats({nan, 1}), floats({nan, 1}), {}).has_value());
  EXPECT_TRUE(compare_tensors(floats({0, 1}), floats({nan, 1}), {}).has_value());
  EXPECT_TRUE(compare_tensors(floats({nan, 1}), floats({0, 1}), {}).has_value());
}

TEST(CompareTensors, InfinitiesMustMatchExactly) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(compare_tensors(floats({inf, -inf}), floats({inf, -inf}), {}).has_value());
  EXPECT_TRUE(compare_tensors(floats({-inf}), floats({inf}), {}).has_value());
  EXPECT_TRUE(compare_tensors(floats({3e38f}), floats({inf}), {}).has_value());
}

TEST(CompareTensors, IntegersCompareExactlyEvenBeyondDoublePrecision) {
  const int64_t big = (int64_t{1} << 60) + 1;
  const auto a = tensor<int64_t>(kInt64, {2}, {big, 5});
  const auto b = tensor<int64_t>(kInt64, {2}, {big - 1, 5});
  const auto m = compare_tensors(a, b, {});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->got, std::to_string(big));
  EXPECT_FALSE(compare_tensors(a, a, {}).has_value());
  EXPECT_TRUE(compare_tensors(tensor<int32_t>(kInt32, {1}, {1001}),
                              tensor<int32_t>(kInt32, {1}, {1000}), {})
                  .has_value());
}

TEST(CompareTensors, BoolsCompareByTruth) {
  const auto a = tensor<uint8_t>(kBool, {3}, {1, 0, 1});
  EXPECT_FALSE(compare_tensors(a, tensor<uint8_t>(kBool, {3}, {1, 0, 1}), {}).has_value());
  EXPECT_TRUE(compare_tensors(a, tensor<uint8_t>(kBool, {3}, {1, 1, 1}), {}).has_value());
}

TEST(CompareTensors, DtypeAndShapeMustMatchExactly) {
  const auto m = compare_tensors(tensor<double>(kDouble, {1}, {1.0}), floats({1.0f}), {});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->what, "dtype");
  const auto s = compare_tensors(tensor<float>(kFloat, {1, 2}, {1, 2}),
                                 tensor<float>(kFloat, {2}, {1, 2}), {});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->what, "shape");
  EXPECT_EQ(s->got, "[1, 2]");
}

TEST(CompareTensors, HalfFloatsCompareByValue) {
  // 0x3c00 = 1.0; 0x3c01 = 1 + 2^-10 is 9.8e-4 away (inside rtol 1e-3), 0x3c02 is 2e-3 away.
  EXPECT_FALSE(compare_tensors(tensor<uint16_t>(kFloat16, {1}, {0x3c01}),
                               tensor<uint16_t>(kFloat16, {1}, {0x3c00}), {})
                   .has_value());
  EXPECT_TRUE(compare_tensors(tensor<uint16_t>(kFloat16, {1}, {0x3c02}),
                              tensor<uint16_t>(kFloat16, {1}, {0x3c00}), {})
                  .has_value());
}

HostTensor text(std::vector<std::string> v) {
  HostTensor t;
  t.name = "y";
  t.shape = {static_cast<int64_t>(v.size())};
  set_strings(t, std::move(v));
  return t;
}

TEST(CompareTensors, StringsCompareExactlyElementByElement) {
  EXPECT_FALSE(compare_tensors(text({"a", "", "é"}), text({"a", "", "é"}), {}));
  const auto m = compare_tensors(text({"a", "b", "c"}), text({"a", "B", "x"}), {});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->index, 1);
  EXPECT_EQ(m->mismatches, 2);
  EXPECT_EQ(m->got, "\"b\"");
  EXPECT_EQ(m->expected, "\"B\"");
}

}  // namespace
}  // namespace geon::tools
