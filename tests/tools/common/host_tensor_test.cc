// Element counts that refuse to overflow, and element values decoded from every dtype's bits.
#include "tools/common/host_tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace geon::tools {
namespace {

HostTensor bytes_of(int32_t dtype, std::vector<uint8_t> b) {
  HostTensor t;
  t.dtype = dtype;
  t.shape = {static_cast<int64_t>(b.size())};
  t.data.resize(b.size());
  std::memcpy(t.data.data(), b.data(), b.size());
  return t;
}

TEST(ElementCount, MultipliesAndRefusesNegativeOrOverflowingShapes) {
  EXPECT_EQ(element_count({2, 3, 4}, "t"), 24);
  EXPECT_EQ(element_count({}, "t"), 1);
  EXPECT_EQ(element_count({5, 0, int64_t{1} << 62}, "t"), 0);
  EXPECT_THROW(element_count({2, -1}, "t"), ToolError);
  EXPECT_THROW(element_count({int64_t{1} << 32, int64_t{1} << 32}, "t"), ToolError);
}

TEST(ByteSize, PacksFourBitTypesAndRefusesStrings) {
  EXPECT_EQ(byte_size(kFloat, 3, "t"), 12u);
  EXPECT_EQ(byte_size(kInt4, 3, "t"), 2u);
  EXPECT_EQ(byte_size(kComplex128, 2, "t"), 32u);
  EXPECT_THROW(byte_size(kString, 1, "t"), ToolError);
}

TEST(ElementValue, DecodesSmallFloatFormats) {
  // 1.0 and -2.0 in each format; NaN codes where the format has them.
  EXPECT_EQ(element_value(bytes_of(kFloat16, {0x00, 0x3c}), 0), 1.0);
  EXPECT_EQ(element_value(bytes_of(kFloat16, {0x01, 0x00}), 0), std::ldexp(1.0, -24));
  EXPECT_EQ(element_value(bytes_of(kBfloat16, {0x80, 0x3f}), 0), 1.0);
  EXPECT_EQ(element_value(bytes_of(kFloat8E4M3FN, {0x38, 0xc0}), 0), 1.0);
  EXPECT_EQ(element_value(bytes_of(kFloat8E4M3FN, {0x38, 0xc0}), 1), -2.0);
  EXPECT_TRUE(std::isnan(element_value(bytes_of(kFloat8E4M3FN, {0x7f}), 0)));
  EXPECT_EQ(element_value(bytes_of(kFloat8E4M3FN, {0x7e}), 0), 448.0);
  EXPECT_EQ(element_value(bytes_of(kFloat8E5M2, {0x3c}), 0), 1.0);
  EXPECT_TRUE(std::isinf(element_value(bytes_of(kFloat8E5M2, {0x7c}), 0)));
  EXPECT_EQ(element_value(bytes_of(kFloat8E4M3FNUZ, {0x40}), 0), 1.0);
  EXPECT_TRUE(std::isnan(element_value(bytes_of(kFloat8E4M3FNUZ, {0x80}), 0)));
  EXPECT_EQ(element_value(bytes_of(kFloat8E5M2FNUZ, {0x40}), 0), 1.0);
}

TEST(ElementValue, DecodesPackedIntegersLowNibbleFirst) {
  HostTensor t = bytes_of(kInt4, {0x9f});
  t.shape = {2};
  EXPECT_EQ(element_value(t, 0), -1);
  EXPECT_EQ(element_value(t, 1), -7);
  t.dtype = kUint4;
  EXPECT_EQ(element_value(t, 0), 15);
  EXPECT_EQ(element_value(t, 1), 9);
}

}  // namespace
}  // namespace geon::tools
