// cpu.generic AffineGrid against a naive reference (theta times the homogeneous pixel
// position, positions from the spec's formulas): 2-D and 3-D, both align_corners, every float
// type, size as a constant and as a run-time input, strided theta, and the errors for a size
// of the wrong length, a theta that does not match it, negative and huge sizes.
#include <gtest/gtest.h>

#include <string>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// Pixel i of a dim of length len in [-1, 1]: centres, or corners with align_corners.
double position(int64_t i, int64_t len, bool align) {
  if (align)
    return len == 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(len - 1);
  return -1.0 + (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(len);
}

std::vector<double> reference(const Host& theta, const std::vector<int64_t>& size, bool align) {
  const int r = static_cast<int>(size.size()) - 2;
  const Dims spatial(size.begin() + 2, size.end());
  const int64_t points = element_count(spatial);
  std::vector<double> y;
  for (int64_t n = 0; n < size[0]; ++n)
    for (int64_t p = 0; p < points; ++p) {
      // (x, y[, z], 1): x runs along the last dim.
      std::vector<double> h(static_cast<size_t>(r) + 1, 1.0);
      int64_t rest = p;
      for (int i = r - 1; i >= 0; --i) {
        h[static_cast<size_t>(r - 1 - i)] = position(rest % spatial[i], spatial[i], align);
        rest /= spatial[i];
      }
      for (int k = 0; k < r; ++k) {
        double acc = 0;
        for (int j = 0; j <= r; ++j) acc += theta.at((n * r + k) * (r + 1) + j) * h[j];
        y.push_back(acc);
      }
    }
  return y;
}

void expect_affine_grid(const Host& theta, const std::vector<int64_t>& size, bool align,
                        bool const_size, double tol) {
  NodeGraph ng("AffineGrid", 20);
  ng.in(theta).in(ints(size), const_size).out(theta.desc.dtype).attr_i("align_corners", align);
  Dims shape = {size[0]};
  shape.insert(shape.end(), size.begin() + 2, size.end());
  shape.push_back(static_cast<int64_t>(size.size()) - 2);
  const std::vector<double> want = reference(theta, size, align);
  expect_values(
      ng.run(gen())[0], shape, [&](int64_t i) { return want[i]; }, tol);
}

TEST(CpuGenericAffineGrid, TwoAndThreeDimsBothAlignments) {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 16; ++trial) {
    const int r = 2 + trial % 2;
    std::vector<int64_t> size = {1 + static_cast<int64_t>(rng() % 3), 3};
    for (int i = 0; i < r; ++i) size.push_back(1 + static_cast<int64_t>(rng() % 6));
    const Host theta = Host::random(DType::kFloat, {size[0], r, r + 1}, rng);
    expect_affine_grid(theta, size, trial % 4 < 2, trial % 3 == 0, 1e-5);
  }
}

TEST(CpuGenericAffineGrid, EveryFloatTypeAndStridedTheta) {
  std::mt19937 rng(32);
  const std::vector<int64_t> size = {2, 1, 3, 4, 5};
  for (DType t : {DType::kDouble, DType::kFloat16, DType::kBFloat16}) {
    const Host theta = Host::random(t, {2, 3, 4}, rng);
    const double tol = t == DType::kDouble ? 1e-12 : t == DType::kFloat16 ? 2e-3 : 1.6e-2;
    expect_affine_grid(theta, size, false, true, tol);
  }
  const Host theta = Host::random(DType::kFloat, {2, 2, 3}, rng).strided({2, 0, 1});
  expect_affine_grid(theta, {2, 7, 5, 3}, true, false, 1e-5);
}

TEST(CpuGenericAffineGrid, EmptySpatialDims) {
  std::mt19937 rng(33);
  NodeGraph ng("AffineGrid", 20);
  ng.in(Host::random(DType::kFloat, {1, 2, 3}, rng)).in(ints({1, 1, 0, 4})).out(DType::kFloat);
  EXPECT_EQ(ng.run(gen())[0].shape(), (Dims{1, 0, 4, 2}));
}

TEST(CpuGenericAffineGrid, BadSizesAreErrors) {
  const Host theta2 = Host::dense(DType::kFloat, {1, 2, 3});
  NodeGraph entries("AffineGrid", 20);
  entries.in(theta2).in(ints({1, 1, 4})).out(DType::kFloat);
  expect_error(entries, gen(), ErrorCode::kInvalidArgument, {"AffineGrid", "3 entries"});
  NodeGraph match("AffineGrid", 20);
  match.in(theta2).in(ints({1, 1, 2, 2, 2})).out(DType::kFloat);
  expect_error(match, gen(), ErrorCode::kInvalidArgument, {"theta must be (N, 3, 4)"});
  NodeGraph batch("AffineGrid", 20);
  batch.in(theta2).in(ints({2, 1, 2, 2})).out(DType::kFloat);
  expect_error(batch, gen(), ErrorCode::kInvalidArgument, {"size's N is 2"});
  NodeGraph negative("AffineGrid", 20);
  negative.in(theta2).in(ints({1, 1, -2, 2})).out(DType::kFloat);
  expect_error(negative, gen(), ErrorCode::kInvalidArgument, {"negative length -2"});
  NodeGraph huge("AffineGrid", 20);
  huge.in(theta2).in(ints({1, 1, int64_t{1} << 40, int64_t{1} << 40})).out(DType::kFloat);
  expect_error(huge, gen(), ErrorCode::kResourceExhausted, {"above the limit"});
}

}  // namespace
}  // namespace geon::cpu::testing
