// cpu.generic NonZero against a naive scan: random ranks with many zeros, NaN (nonzero) and
// -0.0 (zero), strided inputs, a scalar, an empty input, complex and bool data.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

void expect_non_zero(const Host& x, const std::function<bool(int64_t)>& nonzero) {
  NodeGraph ng("NonZero", 13);
  ng.in(x).out(DType::kInt64);
  const Dims xs = x.shape();
  const auto r = static_cast<int64_t>(xs.size());
  std::vector<std::vector<int64_t>> cols;
  for (int64_t i = 0; i < element_count(xs); ++i) {
    if (!nonzero(i)) continue;
    std::vector<int64_t> c(r);
    int64_t rest = i;
    for (int64_t d = r - 1; d >= 0; --d) {
      c[d] = rest % xs[d];
      rest /= xs[d];
    }
    cols.push_back(c);
  }
  const auto n = static_cast<int64_t>(cols.size());
  expect_values(
      ng.run(gen())[0], {r, n}, [&](int64_t i) { return static_cast<double>(cols[i % n][i / n]); },
      0);
}

TEST(CpuGenericNonZero, RandomTensorsWithZerosNanAndNegativeZero) {
  std::mt19937 rng(81);
  for (int trial = 0; trial < 30; ++trial) {
    const Dims xs = random_shape(rng, 1 + trial % 4, 5);
    Host x = Host::random(DType::kFloat, xs, rng, -1.5, 1.5);
    for (int64_t i = 0; i < element_count(xs); ++i) {
      if (rng() % 3 == 0) x.set(i, 0);
      if (rng() % 7 == 0) x.set(i, -0.0);
      if (rng() % 11 == 0) x.set(i, std::nan(""));
    }
    expect_non_zero(x, [&](int64_t i) { return x.at(i) != 0 || std::isnan(x.at(i)); });
    if (xs.size() == 3) {
      const Host s = x.strided({2, 0, 1});
      expect_non_zero(s, [&](int64_t i) { return s.at(i) != 0 || std::isnan(s.at(i)); });
    }
  }
}

TEST(CpuGenericNonZero, ScalarEmptyAndOtherDtypes) {
  expect_non_zero(Host::of(DType::kFloat, {}, {3}), [](int64_t) { return true; });
  expect_non_zero(Host::dense(DType::kFloat, {2, 0, 3}), [](int64_t) { return false; });
  std::mt19937 rng(82);
  for (DType t : {DType::kBool, DType::kInt8, DType::kUInt64, DType::kFloat16, DType::kBFloat16,
                  DType::kComplex64, DType::kInt4}) {
    const Host x = Host::random(t, {4, 5}, rng, 0, 2);
    expect_non_zero(x, [&](int64_t i) { return x.at(i) != 0; });
  }
}

}  // namespace
}  // namespace geon::cpu::testing
