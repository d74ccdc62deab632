// cpu.generic MatMulInteger against a naive triple loop over the zero-point-shifted operands:
// int8 and uint8 mixes, scalar and per-row / per-column zero points, broadcast batch dims, 1-D
// operands, a transposed (strided) b, and the errors for mismatched lengths and zero points.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/generic/quant/reference.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

using quant::random_q;

const KernelSet& gen() { return generic_kernels(); }

using quant::reference_product;

TEST(CpuGenericMatMulInteger, ZeroPointsPerTensorRowAndColumnWithBroadcastBatches) {
  std::mt19937 rng(8);
  int trial = 0;
  for (DType ta : {DType::kUInt8, DType::kInt8}) {
    for (DType tb : {DType::kUInt8, DType::kInt8}) {
      for (const auto& [ash, bsh] : std::vector<std::pair<Dims, Dims>>{{{3, 4}, {4, 5}},
                                                                       {{2, 1, 3, 7}, {1, 4, 7, 2}},
                                                                       {{1, 1}, {1, 1}},
                                                                       {{5, 9}, {9, 1}}}) {
        ++trial;
        const Host a = random_q(ta, ash, rng), b = random_q(tb, bsh, rng);
        const int64_t M = ash[ash.size() - 2], N = bsh.back();
        const Host za = trial % 2 ? random_q(ta, {}, rng) : random_q(ta, {M}, rng);
        const Host zb = trial % 3 ? random_q(tb, {N}, rng) : random_q(tb, {1}, rng);
        NodeGraph ng("MatMulInteger", 10);
        const bool strided = trial % 4 == 0 && bsh.size() == 2;  // b seen transposed
        ng.in(a).in(strided ? b.strided({1, 0}) : b).in(za).in(zb).out(DType::kInt32);
        ASSERT_EQ(ng.supports(gen()), std::nullopt);
        Dims out;
        const std::vector<double> want = reference_product(a, b, &za, &zb, out);
        expect_values(
            ng.run(gen())[0], out, [&](int64_t i) { return want[i]; }, 0);
      }
    }
  }
}

TEST(CpuGenericMatMulInteger, OneDimensionalOperandsAndNoZeroPoints) {
  std::mt19937 rng(9);
  const Host a = random_q(DType::kInt8, {6}, rng), b = random_q(DType::kUInt8, {6, 3}, rng);
  NodeGraph ng("MatMulInteger", 10);
  ng.in(a).in(b).out(DType::kInt32);
  const std::vector<Host> got = ng.run(gen());
  ASSERT_EQ(got[0].shape(), (Dims{3}));
  for (int64_t j = 0; j < 3; ++j) {
    double s = 0;
    for (int64_t k = 0; k < 6; ++k) s += a.at(k) * b.at(k * 3 + j);
    EXPECT_EQ(got[0].at(j), s);
  }
}

TEST(CpuGenericMatMulInteger, MismatchedLengthsAndZeroPointsAreErrors) {
  std::mt19937 rng(10);
  {
    NodeGraph ng("MatMulInteger", 10);
    ng.in(random_q(DType::kUInt8, {2, 3}, rng)).in(random_q(DType::kUInt8, {4, 2}, rng));
    ng.out(DType::kInt32);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"MatMulInteger", "contracted"});
  }
  {
    NodeGraph ng("MatMulInteger", 10);
    ng.in(random_q(DType::kUInt8, {2, 3}, rng)).in(random_q(DType::kUInt8, {3, 2}, rng));
    ng.in(random_q(DType::kUInt8, {5}, rng)).out(DType::kInt32);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"a_zero_point", "(5)"});
  }
}

// y = saturate(rint(acc * (sa * sb / sy)) + zy), the multiplier in the scales' type.
}  // namespace
}  // namespace geon::cpu::testing
