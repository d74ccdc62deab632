// The scatter reductions' element combine (indexing/combine.h), shared by ScatterElements and
// ScatterND: integers wrap instead of overflowing (UBSan would flag signed overflow), bool bytes
// of any nonzero value read as true, and max / min keep a NaN already in place. ScatterND runs
// once at the int64 limits to pin down that it uses the same combine.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/cpu/generic/indexing/combine.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/harness.h"

namespace geon::cpu::testing {
namespace {

TEST(CpuGenericScatterCombine, IntegersWrap) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(combine<int64_t>(kMax, 1, Reduction::kAdd), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(combine<int64_t>(kMax, 2, Reduction::kMul), -2);
  EXPECT_EQ(combine<int8_t>(100, 100, Reduction::kAdd), -56);
  EXPECT_EQ(combine<uint16_t>(65535, 65535, Reduction::kMul), 1);  // no int promotion overflow
  EXPECT_EQ(combine<int32_t>(-7, 3, Reduction::kMin), -7);
  EXPECT_EQ(combine<uint64_t>(3, 9, Reduction::kMax), 9u);
}

TEST(CpuGenericScatterCombine, BoolBytesAndNan) {
  const BoolByte odd{7}, zero{0}, one{1};
  EXPECT_EQ(combine(odd, zero, Reduction::kAdd).v, 1);
  EXPECT_EQ(combine(odd, one, Reduction::kMul).v, 1);
  EXPECT_EQ(combine(odd, zero, Reduction::kMin).v, 0);
  EXPECT_EQ(combine(zero, odd, Reduction::kNone).v, 7);
  EXPECT_TRUE(std::isnan(combine<float>(std::nanf(""), 3.f, Reduction::kMax)));
  EXPECT_EQ(combine<float>(3.f, std::nanf(""), Reduction::kMin), 3.f);
}

TEST(CpuGenericScatterCombine, ScatterNDWrapsAtTheInt64Limits) {
  Host data = Host::dense(DType::kInt64, {2});
  auto* d = reinterpret_cast<int64_t*>(data.bytes->data());
  d[0] = std::numeric_limits<int64_t>::max();
  d[1] = std::numeric_limits<int64_t>::min();
  NodeGraph ng("ScatterND", 18);
  ng.in(data).in(Host::of(DType::kInt64, {2, 1}, {0, 1})).in(Host::of(DType::kInt64, {2}, {1, -1}));
  ng.out(DType::kInt64).attr_s("reduction", "add");
  const Host got = ng.run(generic_kernels())[0];
  const auto* g = reinterpret_cast<const int64_t*>(got.bytes->data());
  EXPECT_EQ(g[0], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(g[1], std::numeric_limits<int64_t>::max());
}

}  // namespace
}  // namespace geon::cpu::testing
