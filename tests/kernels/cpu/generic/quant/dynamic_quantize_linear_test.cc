// cpu.generic DynamicQuantizeLinear against the spec's float formulas computed here: ranges that
// straddle zero, lie above or below it, and are empty (all zeros), on a strided input, with the
// scale and zero point outputs checked too.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

void expect_dynamic(const Host& x) {
  NodeGraph ng("DynamicQuantizeLinear", 11);
  ng.in(x).out(DType::kUInt8).out(DType::kFloat).out(DType::kUInt8);
  ASSERT_EQ(ng.supports(gen()), std::nullopt);
  float lo = 0, hi = 0;
  for (int64_t i = 0; i < element_count(x.shape()); ++i) {
    lo = std::min(lo, static_cast<float>(x.at(i)));
    hi = std::max(hi, static_cast<float>(x.at(i)));
  }
  const float scale = (hi == lo ? 1.0f : hi - lo) / 255.0f;
  const float zp = std::nearbyint(std::clamp(0.0f - lo / scale, 0.0f, 255.0f));
  const std::vector<Host> got = ng.run(gen());
  EXPECT_EQ(got[1].at(0), scale);
  EXPECT_EQ(got[2].at(0), zp);
  expect_values(
      got[0], x.shape(),
      [&](int64_t i) {
        const float q = static_cast<float>(x.at(i)) / scale;
        return std::clamp(std::nearbyint(q) + zp, 0.0f, 255.0f);
      },
      0);
}

TEST(CpuGenericDynamicQuantizeLinear, RangesAroundAboveAndBelowZero) {
  std::mt19937 rng(16);
  expect_dynamic(Host::random(DType::kFloat, {3, 7}, rng, -3, 5));
  expect_dynamic(Host::random(DType::kFloat, {3, 7}, rng, 1, 5).strided({1, 0}));
  expect_dynamic(Host::random(DType::kFloat, {2, 2, 5}, rng, -9, -1));
  expect_dynamic(Host::of(DType::kFloat, {4}, {0, 0, 0, 0}));
}

}  // namespace
}  // namespace geon::cpu::testing
