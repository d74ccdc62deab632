// cpu.generic TopK against a stable sort of each line: every real dtype, random shapes, axes
// and k (0 and n included), largest and smallest over data full of ties (equal values keep the
// lower index first), k by attribute (opset 1) and by constant or run-time input (10, 11, 24),
// strided inputs, NaN ordered above every number, and the errors for k out of range, a K
// tensor of two values and a bad axis.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/generic/ordering/lines.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

struct Expected {
  std::vector<double> values, indices;  // row-major, shaped like the outputs
};

// Each line stably sorted (NaN above everything), the first k kept.
Expected naive_top_k(const Host& x, int axis, int64_t k, bool largest) {
  Dims out = x.shape();
  out[axis] = k;
  Expected e;
  e.values.resize(static_cast<size_t>(element_count(out)));
  e.indices.resize(e.values.size());
  const std::vector<Line> lines = lines_along(x.shape(), axis);
  const std::vector<Line> outs = k ? lines_along(out, axis) : std::vector<Line>{};
  auto above = [](double a, double b) {
    if (std::isnan(a)) return !std::isnan(b);
    return !std::isnan(b) && a > b;
  };
  for (size_t j = 0; j < outs.size(); ++j) {
    std::vector<int64_t> order(static_cast<size_t>(lines[j].length));
    std::iota(order.begin(), order.end(), int64_t{0});
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      const double va = x.at(lines[j].at(a)), vb = x.at(lines[j].at(b));
      return largest ? above(va, vb) : above(vb, va);
    });
    for (int64_t i = 0; i < k; ++i) {
      e.values[outs[j].at(i)] = x.at(lines[j].at(order[i]));
      e.indices[outs[j].at(i)] = static_cast<double>(order[i]);
    }
  }
  return e;
}

// Exact comparison that also holds for infinities (expect_values' relative tolerance does not).
void expect_exact(const Host& got, const Dims& shape, const std::vector<double>& want) {
  ASSERT_EQ(got.shape(), shape);
  for (int64_t i = 0; i < element_count(shape); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got.at(i))) << "at " << i;
    else
      EXPECT_EQ(got.at(i), want[i]) << "at " << i;
  }
}

Host tied_values(std::mt19937& rng, DType t, const Dims& shape) {
  const bool is_unsigned =
      t == DType::kUInt8 || t == DType::kUInt16 || t == DType::kUInt32 || t == DType::kUInt64;
  std::vector<double> v(static_cast<size_t>(element_count(shape)));
  for (double& e : v) e = static_cast<double>(rng() % 9) - (is_unsigned ? 0 : 4);
  return Host::of(t, shape, v);
}

// Runs TopK at `opset` (k as attribute before 10, as a constant or run-time input from 10).
void expect_top_k(const Host& x, int opset, int64_t axis, int64_t k, bool largest,
                  bool const_k = true) {
  const int r = x.desc.rank();
  const int a = static_cast<int>(axis < 0 ? axis + r : axis);
  Dims out = x.shape();
  out[a] = k;
  NodeGraph ng("TopK", opset);
  ng.in(x);
  if (opset < 10)
    ng.attr_i("k", k);
  else
    ng.in(ints({k}), const_k);
  ng.out(x.desc.dtype, out).out(DType::kInt64, out).attr_i("axis", axis);
  if (opset >= 11) ng.attr_i("largest", largest);
  const Expected e = naive_top_k(x, a, k, largest);
  SCOPED_TRACE("TopK k " + std::to_string(k) + " axis " + std::to_string(axis) + " largest " +
               std::to_string(largest) + " " + to_string(x.desc));
  const std::vector<Host> got = ng.run(gen());
  expect_exact(got[0], out, e.values);
  expect_exact(got[1], out, e.indices);
}

TEST(CpuGenericTopK, EveryDtypeLargestAndSmallestWithTies) {
  std::mt19937 rng(41);
  for (DType t : ordered_dtypes()) {
    for (int trial = 0; trial < 10; ++trial) {
      const int r = 1 + trial % 3;
      const Host x = tied_values(rng, t, random_shape(rng, r, 7));
      const int64_t axis = static_cast<int64_t>(rng() % r) - (trial % 2 ? r : 0);
      const int64_t n = x.shape()[axis < 0 ? axis + r : axis];
      const int64_t k = static_cast<int64_t>(rng() % (n + 1));
      expect_top_k(x, trial % 2 ? 11 : 24, axis, k, trial % 3 != 0, trial % 4 != 0);
    }
  }
}

TEST(CpuGenericTopK, FewOfLongLinesWithTiesEveryDtype) {
  // k well below n (the kernel's heap of the best k): ties at the boundary of the kept set
  // must still keep the lowest indices.
  std::mt19937 rng(45);
  for (DType t : ordered_dtypes()) {
    for (int trial = 0; trial < 4; ++trial) {
      const Host x = tied_values(rng, t, trial % 2 ? Dims{3, 90} : Dims{90, 2});
      const int64_t axis = trial % 2 ? 1 : 0;
      expect_top_k(x, 11, axis, 1 + static_cast<int64_t>(rng() % 10), trial < 2);
    }
  }
}

TEST(CpuGenericTopK, OlderOpsetsAreLargestFirst) {
  std::mt19937 rng(42);
  const Host x = Host::random(DType::kFloat, {3, 8}, rng);
  expect_top_k(x, 1, 1, 3, true);
  expect_top_k(x, 10, 0, 2, true);
  expect_top_k(x, 10, -1, 8, true, false);
}

TEST(CpuGenericTopK, StridedInputsWholeAndEmptyK) {
  std::mt19937 rng(43);
  for (int trial = 0; trial < 6; ++trial) {
    const Host x = tied_values(rng, DType::kDouble, {4, 3, 5}).strided({1, 2, 0});
    const int64_t axis = trial % 3;
    const int64_t n = x.shape()[axis];
    expect_top_k(x, 11, axis, trial < 3 ? n : 0, trial % 2);
  }
  // A long line with few kept (the partial sort) and many columns.
  expect_top_k(Host::random(DType::kFloat, {2, 500, 3}, rng), 11, 1, 7, false);
}

TEST(CpuGenericTopK, NanIsAboveEveryNumber) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Host x = Host::of(DType::kFloat, {7}, {1, nan, inf, -inf, nan, 0, -1});
  for (int64_t k : {1, 3, 7})
    for (bool largest : {true, false}) expect_top_k(x, 11, 0, k, largest);
}

TEST(CpuGenericTopK, KOutOfRangeTwoValuedKAndBadAxisAreErrors) {
  const Host x = Host::of(DType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  NodeGraph big("TopK", 11);
  big.in(x).in(ints({4})).out(DType::kFloat).out(DType::kInt64);
  expect_error(big, gen(), ErrorCode::kInvalidArgument, {"TopK", "K is 4", "[0, 3]"});
  NodeGraph neg("TopK", 11);
  neg.in(x).in(ints({-1})).out(DType::kFloat).out(DType::kInt64);
  expect_error(neg, gen(), ErrorCode::kInvalidArgument, {"TopK", "K is -1"});
  NodeGraph two("TopK", 11);
  two.in(x).in(ints({1, 2})).out(DType::kFloat).out(DType::kInt64);
  expect_error(two, gen(), ErrorCode::kInvalidArgument, {"TopK", "one value", "got 2"});
  NodeGraph far("TopK", 11);
  far.in(x).in(ints({1})).out(DType::kFloat).out(DType::kInt64).attr_i("axis", -3);
  expect_error(far, gen(), ErrorCode::kInvalidArgument, {"TopK", "axis -3", "rank 2"});
  NodeGraph huge("TopK", 1);
  huge.in(x).out(DType::kFloat).out(DType::kInt64).attr_i("k", int64_t{1} << 62);
  expect_error(huge, gen(), ErrorCode::kInvalidArgument, {"TopK", "K is"});
}

TEST(CpuGenericTopK, ANodeListingOnlyTheValuesStillGetsThem) {
  std::mt19937 rng(44);
  const Host x = tied_values(rng, DType::kInt32, {3, 6});
  NodeGraph ng("TopK", 11);
  ng.in(x).in(ints({4}), true).out(DType::kInt32, {3, 4}).attr_i("largest", 0);
  const std::vector<Host> got = ng.run(gen());
  ASSERT_EQ(got.size(), 1u);
  expect_exact(got[0], {3, 4}, naive_top_k(x, 1, 4, false).values);
}

TEST(CpuGenericTopK, FloatKAndMissingKAreRefused) {
  const Host x = Host::of(DType::kFloat, {3}, {1, 2, 3});
  NodeGraph fk("TopK", 11);
  fk.in(x).in(Host::of(DType::kFloat, {1}, {2})).out(DType::kFloat).out(DType::kInt64);
  ASSERT_TRUE(fk.supports(gen()).has_value());
  EXPECT_NE(fk.supports(gen())->find("K (input 1)"), std::string::npos);
  NodeGraph none("TopK", 11);
  none.in(x).out(DType::kFloat).out(DType::kInt64);
  ASSERT_TRUE(none.supports(gen()).has_value());
}

}  // namespace
}  // namespace geon::cpu::testing
