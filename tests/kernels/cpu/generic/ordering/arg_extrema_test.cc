// cpu.generic ArgMax / ArgMin against a naive scan of each line: every real dtype, random
// shapes and axes (negative too), keepdims, select_last_index over data full of ties, strided
// inputs, NaN (numpy's rule: the first NaN wins, the last with select_last_index), and the
// errors for a bad axis, an empty axis and a scalar input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/generic/ordering/lines.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// The expected index along each line: a plain scan with the comparison the spec describes.
std::vector<double> naive_arg(const Host& x, int axis, bool max, bool last) {
  std::vector<double> out;
  for (const Line& l : lines_along(x.shape(), axis)) {
    int64_t best = 0;
    for (int64_t k = 1; k < l.length; ++k) {
      const double v = x.at(l.at(k)), b = x.at(l.at(best));
      if (std::isnan(b)) {
        if (last && std::isnan(v)) best = k;
        continue;
      }
      const bool wins = std::isnan(v) || (max ? (last ? v >= b : v > b) : (last ? v <= b : v < b));
      if (wins) best = k;
    }
    out.push_back(static_cast<double>(best));
  }
  return out;
}

// Small integers, so equal values are common; unsigned types get non-negative ones.
Host tied_values(std::mt19937& rng, DType t, const Dims& shape) {
  const bool is_unsigned =
      t == DType::kUInt8 || t == DType::kUInt16 || t == DType::kUInt32 || t == DType::kUInt64;
  std::vector<double> v(static_cast<size_t>(element_count(shape)));
  for (double& e : v) e = static_cast<double>(rng() % 7) - (is_unsigned ? 0 : 3);
  return Host::of(t, shape, v);
}

void expect_arg(const Host& x, const char* op, int opset, int64_t axis, bool keep, bool last) {
  const int r = x.desc.rank();
  const int a = static_cast<int>(axis < 0 ? axis + r : axis);
  Dims out = x.shape();
  if (keep)
    out[a] = 1;
  else
    out.erase(out.begin() + a);
  NodeGraph ng(op, opset);
  ng.in(x).out(DType::kInt64, out).attr_i("axis", axis).attr_i("keepdims", keep);
  if (opset >= 12) ng.attr_i("select_last_index", last);
  const std::vector<double> want = naive_arg(x, a, std::string(op) == "ArgMax", last);
  SCOPED_TRACE(std::string(op) + " axis " + std::to_string(axis) + " " + to_string(x.desc));
  expect_values(
      ng.run(gen())[0], out, [&](int64_t i) { return want[i]; }, 0);
}

TEST(CpuGenericArgExtrema, EveryDtypeRandomAxesWithTies) {
  std::mt19937 rng(31);
  for (DType t : ordered_dtypes()) {
    for (int trial = 0; trial < 12; ++trial) {
      const int r = 1 + trial % 4;
      const Host x = tied_values(rng, t, random_shape(rng, r, 6));
      const int64_t axis = static_cast<int64_t>(rng() % r) - (trial % 2 ? r : 0);
      expect_arg(x, trial % 3 ? "ArgMax" : "ArgMin", 13, axis, trial % 4 != 1, trial % 5 > 1);
    }
  }
}

TEST(CpuGenericArgExtrema, StridedInputsAndWideLines) {
  std::mt19937 rng(32);
  for (int trial = 0; trial < 8; ++trial) {
    Host x = tied_values(rng, DType::kFloat, {3, 5, 4});
    x = x.strided({2, 0, 1});
    expect_arg(x, trial % 2 ? "ArgMax" : "ArgMin", 12, trial % 3, trial % 2, trial % 4 < 2);
  }
  // More columns than one block of the kernel's column loop (256), and a long axis.
  const Host wide = tied_values(rng, DType::kInt32, {2, 3, 600});
  expect_arg(wide, "ArgMax", 13, 1, true, true);
  const Host longer = Host::random(DType::kDouble, {1000, 3}, rng, -5, 5);
  expect_arg(longer, "ArgMin", 13, 0, false, false);
}

TEST(CpuGenericArgExtrema, OlderOpsetsTakeTheFirstIndex) {
  std::mt19937 rng(33);
  const Host x = tied_values(rng, DType::kFloat, {4, 6});
  expect_arg(x, "ArgMax", 1, 1, true, false);
  expect_arg(x, "ArgMin", 11, -1, false, false);
}

TEST(CpuGenericArgExtrema, NanIsTheExtremumFirstOrLast) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Along the last axis (the kernel's line scan) and along the first (its column blocks).
  const Host x =
      Host::of(DType::kFloat, {3, 5}, {1, nan, 7, nan, 2, 3, 3, -1, 3, -1, nan, 0, 9, 9, nan});
  for (const char* op : {"ArgMax", "ArgMin"})
    for (int64_t axis : {0, 1})
      for (bool last : {false, true}) expect_arg(x, op, 13, axis, true, last);
}

TEST(CpuGenericArgExtrema, BadAxisEmptyAxisAndScalarAreErrors) {
  const Host x = Host::of(DType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  NodeGraph far("ArgMax", 13);
  far.in(x).out(DType::kInt64).attr_i("axis", 2);
  expect_error(far, gen(), ErrorCode::kInvalidArgument, {"ArgMax", "axis 2", "rank 2"});
  NodeGraph empty("ArgMin", 13);
  empty.in(Host::dense(DType::kFloat, {2, 0})).out(DType::kInt64).attr_i("axis", 1);
  expect_error(empty, gen(), ErrorCode::kInvalidArgument, {"ArgMin", "empty"});
  NodeGraph scalar("ArgMax", 13);
  scalar.in(Host::of(DType::kFloat, {}, {1})).out(DType::kInt64);
  expect_error(scalar, gen(), ErrorCode::kInvalidArgument, {"ArgMax", "scalar"});
  // An empty tensor whose other dims hold no element has nothing to choose and no error.
  NodeGraph none("ArgMax", 13);
  none.in(Host::dense(DType::kFloat, {0, 3})).out(DType::kInt64).attr_i("axis", 1);
  EXPECT_EQ(none.run(gen())[0].shape(), (Dims{0, 1}));
}

TEST(CpuGenericArgExtrema, BoolInputIsRefused) {
  NodeGraph s("ArgMax", 13);
  s.in(Host::dense(DType::kBool, {2})).out(DType::kInt64);
  ASSERT_TRUE(s.supports(gen()).has_value());
  EXPECT_NE(s.supports(gen())->find("bool"), std::string::npos);
}

}  // namespace
}  // namespace geon::cpu::testing
