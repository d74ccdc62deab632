// cpu.generic OneHot against the spec's rule: every axis (negative too), negative indices and
// indices outside [-depth, depth) (an all-off row), float indices and depth, values of other
// dtypes, and the errors for a negative depth, a huge depth and malformed values.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

void expect_one_hot(const Host& indices, const Host& depth, const Host& values, int64_t axis_attr,
                    int opset = 11) {
  NodeGraph ng("OneHot", opset);
  ng.in(indices).in(depth).in(values).out(values.desc.dtype).attr_i("axis", axis_attr);
  const Dims is = indices.shape();
  const int r = static_cast<int>(is.size());
  const auto d = static_cast<int64_t>(depth.at(0));
  const auto axis = static_cast<size_t>(axis_attr < 0 ? axis_attr + r + 1 : axis_attr);
  Dims shape = is;
  shape.insert(shape.begin() + static_cast<int64_t>(axis), d);
  int64_t inner = 1;
  for (size_t k = axis; k < is.size(); ++k) inner *= is[k];
  const double off = values.at(0), on = values.at(1);
  expect_values(
      ng.run(gen())[0], shape,
      [&](int64_t i) {
        const int64_t in = i % inner, rest = i / inner, pos = rest % d, outer = rest / d;
        auto v = static_cast<int64_t>(indices.at(outer * inner + in));
        if (v < 0) v += d;
        return v == pos ? on : off;
      },
      0);
}

TEST(CpuGenericOneHot, EveryAxisWithNegativeAndOutOfRangeIndices) {
  std::mt19937 rng(71);
  for (int trial = 0; trial < 40; ++trial) {
    const int r = trial % 4;
    const Dims is = random_shape(rng, r, 4);
    const int64_t depth = 1 + static_cast<int64_t>(rng() % 6);
    Host idx = Host::dense(DType::kInt64, is);
    for (int64_t i = 0; i < element_count(is); ++i)
      idx.set(i, static_cast<double>(static_cast<int64_t>(rng() % (4 * depth)) - 2 * depth));
    // In [0, r], or its negative form in [-r - 1, -1].
    const int64_t pick = static_cast<int64_t>(rng() % (r + 1));
    const int64_t axis = trial % 2 ? pick - r - 1 : pick;
    expect_one_hot(idx, ints({depth}), Host::of(DType::kFloat, {2}, {-1.5, 3}), axis);
  }
}

TEST(CpuGenericOneHot, FloatIndicesAndDepthAndOtherValueDtypes) {
  std::mt19937 rng(72);
  const Host idx = Host::of(DType::kFloat, {2, 3}, {0.7, -1.2, 2.9, 5, -4, 1});
  const Host depth = Host::of(DType::kFloat, {}, {4.0});
  for (DType t : {DType::kFloat, DType::kInt8, DType::kUInt64, DType::kFloat16, DType::kBool,
                  DType::kDouble, DType::kComplex128}) {
    expect_one_hot(idx, depth, Host::of(t, {2}, {0, 1}), -1);
    expect_one_hot(idx.strided({1, 0}), Host::of(DType::kInt32, {1}, {3}), Host::of(t, {2}, {1, 0}),
                   0, 9);
  }
}

TEST(CpuGenericOneHot, BadDepthAndValuesAreErrors) {
  const Host idx = ints({0, 1});
  const Host values = Host::of(DType::kFloat, {2}, {0, 1});
  NodeGraph neg("OneHot", 11);
  neg.in(idx).in(Host::of(DType::kInt64, {}, {-2})).in(values).out(DType::kFloat);
  expect_error(neg, gen(), ErrorCode::kInvalidArgument, {"OneHot", "depth is -2"});
  NodeGraph huge("OneHot", 11);
  huge.in(idx).in(Host::of(DType::kInt64, {}, {1e15})).in(values).out(DType::kFloat);
  expect_error(huge, gen(), ErrorCode::kResourceExhausted, {"OneHot", "limit"});
  NodeGraph nan("OneHot", 11);
  nan.in(idx).in(Host::of(DType::kFloat, {}, {std::nan("")})).in(values).out(DType::kFloat);
  expect_error(nan, gen(), ErrorCode::kInvalidArgument, {"depth is"});
  NodeGraph three("OneHot", 11);
  three.in(idx).in(ints({2})).in(Host::of(DType::kFloat, {3}, {0, 1, 2})).out(DType::kFloat);
  expect_error(three, gen(), ErrorCode::kInvalidArgument, {"values must be 1-D"});
}

}  // namespace
}  // namespace geon::cpu::testing
