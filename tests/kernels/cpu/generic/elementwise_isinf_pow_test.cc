// cpu.generic IsInf with detect_positive / detect_negative (each sign alone, both, neither) and
// Pow of an integer base by a floating exponent (computed in floating point, truncated into the
// base's type) against std::isinf and std::pow, on strided and broadcast inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

TEST(CpuGenericIsInf, EachSignAloneBothOrNeither) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v = {-inf, -1, 0, 2.5, inf, NAN, inf, -inf};
  for (DType t : {DType::kFloat, DType::kDouble, DType::kFloat16, DType::kBFloat16})
    for (int pos : {0, 1})
      for (int neg : {0, 1}) {
        const Host x = Host::of(t, {2, 4}, v).strided({1, 0});
        NodeGraph ng("IsInf", 20);
        ng.in(x).attr_i("detect_positive", pos).attr_i("detect_negative", neg);
        ng.out(DType::kBool, {2, 4});
        ASSERT_FALSE(ng.supports(gen())) << *ng.supports(gen());
        expect_values(ng.run(gen())[0], {2, 4}, [&](int64_t i) {
          const double e = x.at(i);
          return std::isinf(e) && (e > 0 ? pos : neg) ? 1.0 : 0.0;
        });
      }
}

TEST(CpuGenericPow, IntegerBaseByFloatingExponent) {
  std::mt19937 rng(6);
  for (DType base : {DType::kInt32, DType::kInt64, DType::kUInt8, DType::kInt16})
    for (DType exp : {DType::kFloat, DType::kDouble, DType::kFloat16}) {
      const Host a = Host::random(base, {3, 4}, rng, 1, 9).strided({1, 0});
      const Host b = Host::random(exp, {4}, rng, -1, 2.5);  // broadcast over rows
      NodeGraph ng("Pow", 15);
      ng.in(a).in(b).out(base, {3, 4});
      ASSERT_FALSE(ng.supports(gen())) << *ng.supports(gen());
      const Host y = ng.run(gen())[0];
      EXPECT_EQ(y.desc.dtype, base);
      expect_values(y, {3, 4}, [&](int64_t i) {
        return std::trunc(std::pow(a.at(i), bcast_at(b, {3, 4}, i)));
      });
    }
  // Results past the base's range saturate instead of wrapping.
  NodeGraph big("Pow", 15);
  big.in(Host::of(DType::kInt32, {2}, {10, -10})).in(Host::of(DType::kFloat, {2}, {12.5, 11}));
  big.out(DType::kInt32, {2});
  expect_values(big.run(gen())[0], {2},
                [](int64_t i) { return i == 0 ? 2147483647.0 : -2147483648.0; });
}

}  // namespace
}  // namespace geon::cpu::testing
