// Random inputs: reproducible by seed, in the documented ranges, refused for types without a
// generator.
#include "tools/common/random_tensor.h"

#include <gtest/gtest.h>

namespace geon::tools {
namespace {

TEST(RandomTensor, SameSeedSameBytesOtherSeedOtherBytes) {
  const auto a = random_tensor("x", kFloat, {4, 8}, 3);
  const auto b = random_tensor("x", kFloat, {4, 8}, 3);
  const auto c = random_tensor("x", kFloat, {4, 8}, 4);
  EXPECT_EQ(a.data, b.data);
  EXPECT_NE(a.data, c.data);
  EXPECT_EQ(a.data.size(), 32u * 4);
}

TEST(RandomTensor, ValuesStayInTheirRanges) {
  const auto f = random_tensor("f", kFloat, {1000}, 1);
  const auto h = random_tensor("h", kFloat16, {1000}, 1);
  const auto i = random_tensor("i", kInt64, {1000}, 1);
  const auto b = random_tensor("b", kBool, {1000}, 1);
  double lo = 1, hi = -1;
  int trues = 0;
  for (int64_t k = 0; k < 1000; ++k) {
    lo = std::min(lo, element_value(f, k));
    hi = std::max(hi, element_value(f, k));
    EXPECT_GE(element_value(h, k), -1.0);
    EXPECT_LT(element_value(h, k), 1.0);
    EXPECT_GE(element_value(i, k), 0);
    EXPECT_LT(element_value(i, k), 10);
    trues += element_value(b, k) != 0;
  }
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, -0.9);  // the range is actually covered
  EXPECT_GT(hi, 0.9);
  EXPECT_GT(trues, 400);
  EXPECT_LT(trues, 600);
}

TEST(RandomTensor, RefusesTypesWithoutAGeneratorNamingTheInput) {
  try {
    random_tensor("tokens", kString, {2}, 0);
    FAIL();
  } catch (const ToolError& e) {
    EXPECT_NE(std::string(e.what()).find("tokens"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace geon::tools
