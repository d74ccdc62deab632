// cpu.generic CumSum / CumProd against a naive running total of each line: every real dtype,
// random shapes and axes (negative, int32 and int64, constant or read at run time), exclusive
// and reverse in every combination, strided inputs, integer wrap-around (numpy's), and the
// errors for a bad axis, an axis of two values and a scalar input.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/generic/ordering/lines.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

std::vector<double> naive_cumulative(const Host& x, int axis, bool product, bool exclusive,
                                     bool reverse) {
  std::vector<double> out(static_cast<size_t>(element_count(x.shape())));
  for (const Line& l : lines_along(x.shape(), axis)) {
    double acc = product ? 1 : 0;
    for (int64_t step = 0; step < l.length; ++step) {
      const int64_t k = reverse ? l.length - 1 - step : step;
      const double before = acc;
      acc = product ? acc * x.at(l.at(k)) : acc + x.at(l.at(k));
      out[l.at(k)] = exclusive ? before : acc;
    }
  }
  return out;
}

// Values whose sums and products stay exact in every dtype (half types round only the last
// step's result, which the tolerance covers).
Host small_values(std::mt19937& rng, DType t, const Dims& shape, bool product) {
  const bool is_unsigned =
      t == DType::kUInt8 || t == DType::kUInt16 || t == DType::kUInt32 || t == DType::kUInt64;
  std::vector<double> v(static_cast<size_t>(element_count(shape)));
  for (double& e : v) {
    if (product)
      e = is_unsigned ? 1 + rng() % 2 : (rng() % 2 ? 1.0 : -1.0) * (1 + rng() % 2);
    else
      e = static_cast<double>(rng() % 5) - (is_unsigned ? 0 : 2);
  }
  return Host::of(t, shape, v);
}

void expect_cumulative(const Host& x, const char* op, const Host& axis, bool exclusive,
                       bool reverse, bool const_axis, double tol = 0) {
  const int r = x.desc.rank();
  const int64_t a0 = static_cast<int64_t>(axis.at(0));
  const int a = static_cast<int>(a0 < 0 ? a0 + r : a0);
  const bool product = std::string(op) == "CumProd";
  NodeGraph ng(op, product ? 26 : 14);
  ng.in(x).in(axis, const_axis).out(x.desc.dtype, x.shape());
  ng.attr_i("exclusive", exclusive).attr_i("reverse", reverse);
  const std::vector<double> want = naive_cumulative(x, a, product, exclusive, reverse);
  SCOPED_TRACE(std::string(op) + " axis " + std::to_string(a0) + " exclusive " +
               std::to_string(exclusive) + " reverse " + std::to_string(reverse) + " " +
               to_string(x.desc));
  expect_values(
      ng.run(gen())[0], x.shape(), [&](int64_t i) { return want[i]; }, tol);
}

TEST(CpuGenericCumulative, EveryDtypeEveryFlagCombination) {
  std::mt19937 rng(51);
  for (DType t : ordered_dtypes()) {
    for (int trial = 0; trial < 8; ++trial) {
      const char* op = trial % 2 ? "CumProd" : "CumSum";
      const int r = 1 + trial % 3;
      const Host x = small_values(rng, t, random_shape(rng, r, 4), trial % 2);
      const int64_t axis = static_cast<int64_t>(rng() % r) - (trial % 3 == 0 ? r : 0);
      const Host ax = Host::of(trial % 4 < 2 ? DType::kInt32 : DType::kInt64, {}, {double(axis)});
      const bool half = t == DType::kFloat16 || t == DType::kBFloat16;
      expect_cumulative(x, op, ax, trial & 2, trial & 4, trial % 3 != 1, half ? 1e-2 : 0);
    }
  }
}

TEST(CpuGenericCumulative, StridedInputsAndManyColumns) {
  std::mt19937 rng(52);
  for (int trial = 0; trial < 8; ++trial) {
    const Host x = Host::random(DType::kFloat, {3, 4, 5}, rng).strided({2, 1, 0});
    const Host ax = Host::of(DType::kInt64, {1}, {double(trial % 3)});
    expect_cumulative(x, trial % 2 ? "CumProd" : "CumSum", ax, trial & 2, trial & 4, true, 1e-5);
  }
  const Host wide = Host::random(DType::kDouble, {3, 700}, rng);
  expect_cumulative(wide, "CumSum", Host::of(DType::kInt32, {}, {0}), true, true, false, 1e-12);
}

TEST(CpuGenericCumulative, IntegersWrapAround) {
  // int32: 2^31 - 1 + 1 wraps to -2^31; uint32: 0xFFFFFFFF + 2 wraps to 1; products likewise.
  const Host s = Host::of(DType::kInt32, {3}, {2147483647.0, 1, 1});
  NodeGraph sum("CumSum", 14);
  sum.in(s).in(Host::of(DType::kInt64, {}, {0}), true).out(DType::kInt32, {3});
  const Host got = sum.run(gen())[0];
  EXPECT_EQ(got.at(1), -2147483648.0);
  EXPECT_EQ(got.at(2), -2147483647.0);
  const Host u = Host::of(DType::kUInt32, {2}, {4294967295.0, 2});
  NodeGraph usum("CumSum", 14);
  usum.in(u).in(Host::of(DType::kInt64, {}, {0}), true).out(DType::kUInt32, {2});
  EXPECT_EQ(usum.run(gen())[0].at(1), 1.0);
  const Host p = Host::of(DType::kUInt16, {2}, {65535, 65535});
  NodeGraph prod("CumProd", 26);
  prod.in(p).in(Host::of(DType::kInt64, {}, {0}), true).out(DType::kUInt16, {2});
  EXPECT_EQ(prod.run(gen())[0].at(1), 1.0);  // 65535^2 = 1 (mod 2^16)
}

TEST(CpuGenericCumulative, BadAxisTwoAxesAndScalarAreErrors) {
  const Host x = Host::of(DType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  NodeGraph far("CumSum", 14);
  far.in(x).in(Host::of(DType::kInt64, {}, {2})).out(DType::kFloat);
  expect_error(far, gen(), ErrorCode::kInvalidArgument, {"CumSum", "axis", "2", "rank 2"});
  NodeGraph low("CumProd", 26);
  low.in(x).in(Host::of(DType::kInt32, {}, {-3}), true).out(DType::kFloat);
  expect_error(low, gen(), ErrorCode::kInvalidArgument, {"CumProd", "-3", "rank 2"});
  NodeGraph two("CumSum", 14);
  two.in(x).in(ints({0, 1})).out(DType::kFloat);
  expect_error(two, gen(), ErrorCode::kInvalidArgument, {"CumSum", "one value", "got 2"});
  NodeGraph scalar("CumSum", 14);
  scalar.in(Host::of(DType::kFloat, {}, {1})).in(Host::of(DType::kInt64, {}, {0}));
  scalar.out(DType::kFloat);
  expect_error(scalar, gen(), ErrorCode::kInvalidArgument, {"CumSum", "scalar"});
}

TEST(CpuGenericCumulative, FloatAxisAndBoolDataAreRefused) {
  NodeGraph fa("CumSum", 14);
  fa.in(Host::dense(DType::kFloat, {3})).in(Host::of(DType::kFloat, {}, {0})).out(DType::kFloat);
  ASSERT_TRUE(fa.supports(gen()).has_value());
  EXPECT_NE(fa.supports(gen())->find("axis"), std::string::npos);
  NodeGraph b("CumSum", 14);
  b.in(Host::dense(DType::kBool, {3})).in(Host::of(DType::kInt64, {}, {0})).out(DType::kBool);
  ASSERT_TRUE(b.supports(gen()).has_value());
}

TEST(CpuGenericCumulative, EmptyTensorGivesAnEmptyResult) {
  NodeGraph e("CumSum", 14);
  e.in(Host::dense(DType::kFloat, {0, 3})).in(Host::of(DType::kInt64, {}, {1}), true);
  e.out(DType::kFloat, {0, 3});
  EXPECT_EQ(e.run(gen())[0].shape(), (Dims{0, 3}));
}

}  // namespace
}  // namespace geon::cpu::testing
