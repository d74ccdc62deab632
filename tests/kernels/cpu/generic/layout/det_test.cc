// cpu.generic Det against a cofactor expansion in double: batched matrices of sizes 1 to 5,
// singular and permutation matrices (the sign of a row swap), strided input, double and half
// dtypes, an empty batch, and the error for non-square matrices.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

double cofactor_det(const std::vector<double>& a, int64_t m) {
  if (m == 0) return 1;
  if (m == 1) return a[0];
  double d = 0;
  for (int64_t c = 0; c < m; ++c) {
    std::vector<double> minor;
    for (int64_t r = 1; r < m; ++r)
      for (int64_t j = 0; j < m; ++j)
        if (j != c) minor.push_back(a[r * m + j]);
    d += (c % 2 ? -1 : 1) * a[c] * cofactor_det(minor, m - 1);
  }
  return d;
}

void expect_det(const Host& x, double tol = 1e-5) {
  NodeGraph ng("Det", 22);
  ng.in(x).out(x.desc.dtype);
  const Dims s = x.shape();
  const int64_t m = s.back();
  const Dims batch(s.begin(), s.end() - 2);
  expect_values(
      ng.run(gen())[0], batch,
      [&](int64_t b) {
        std::vector<double> a;
        for (int64_t i = 0; i < m * m; ++i) a.push_back(x.at(b * m * m + i));
        return cofactor_det(a, m);
      },
      tol);
}

TEST(CpuGenericDet, MatchesCofactorExpansionOverBatches) {
  std::mt19937 rng(1);
  for (int64_t m = 1; m <= 5; ++m) {
    expect_det(Host::random(DType::kFloat, {m, m}, rng));
    expect_det(Host::random(DType::kDouble, {2, 3, m, m}, rng), 1e-10);
    expect_det(Host::random(DType::kFloat, {3, m, m}, rng).strided({2, 0, 1}));
  }
  expect_det(Host::random(DType::kFloat16, {2, 3, 3}, rng, -1, 1), 2e-2);
  expect_det(Host::random(DType::kBFloat16, {2, 2, 2}, rng, -1, 1), 5e-2);
}

TEST(CpuGenericDet, SingularAndPermutationMatrices) {
  expect_det(Host::of(DType::kFloat, {3, 3}, {1, 2, 3, 2, 4, 6, 0, 1, 1}));
  expect_det(Host::of(DType::kFloat, {3, 3}, {0, 1, 0, 1, 0, 0, 0, 0, 1}));
  expect_det(Host::of(DType::kDouble, {2, 2, 2}, {0, 0, 0, 0, 0, 2, 3, 0}), 1e-12);
  expect_det(Host::dense(DType::kFloat, {0, 3, 3}));
}

TEST(CpuGenericDet, NonSquareIsAnError) {
  NodeGraph ng("Det", 22);
  ng.in(Host::dense(DType::kFloat, {2, 3, 4})).out(DType::kFloat);
  expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"Det", "not square"});
  NodeGraph it("Det", 22);
  it.in(Host::dense(DType::kInt32, {2, 2})).out(DType::kInt32);
  ASSERT_TRUE(it.supports(gen()).has_value());
}

}  // namespace
}  // namespace geon::cpu::testing
