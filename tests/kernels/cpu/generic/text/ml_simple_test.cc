// cpu.generic ai.onnx.ml ArrayFeatureExtractor and Binarizer against naive loops: picks along
// the last dim of strided numeric and string inputs (a vector gives one row), thresholds over
// float, double and integer inputs, and an out-of-range index refused with its position.
#include <gtest/gtest.h>

#include <random>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/generic/text/text_harness.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

TEST(TextArrayFeatureExtractor, PicksAlongTheLastDim) {
  std::mt19937 rng(5);
  for (DType t : {DType::kFloat, DType::kInt64, DType::kDouble, DType::kInt32}) {
    const Host x = Host::random(t, {4, 3}, rng, -9, 9).strided({1, 0});
    const std::vector<int64_t> idx{2, 0, 2};
    NodeGraph ng("ArrayFeatureExtractor", 1);
    ng.node->domain = "ai.onnx.ml";
    ng.in(x).in(ints(idx)).out(t, {4, 3});
    const Host y = ng.run(gen())[0];
    ASSERT_EQ(y.shape(), (Dims{4, 3}));
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t k = 0; k < 3; ++k) EXPECT_EQ(y.at(r * 3 + k), x.at(r * 3 + idx[k]));
  }
}

TEST(TextArrayFeatureExtractor, StringsAndVectors) {
  NodeGraph ng("ArrayFeatureExtractor", 1);
  ng.node->domain = "ai.onnx.ml";
  ng.in(strings({3}, {"a", "b", "c"})).in(ints({1, 1, 0})).out(DType::kString, {1, 3});
  const Host y = ng.run(gen())[0];
  EXPECT_EQ(y.shape(), (Dims{1, 3}));
  EXPECT_EQ(all_strings(y), (std::vector<std::string>{"b", "b", "a"}));
}

TEST(TextArrayFeatureExtractor, RefusesAnOutOfRangeIndex) {
  NodeGraph ng("ArrayFeatureExtractor", 1);
  ng.node->domain = "ai.onnx.ml";
  ng.in(Host::dense(DType::kFloat, {2, 3})).in(ints({0, 3})).out(DType::kFloat, {2, 2});
  expect_error(ng, gen(), ErrorCode::kOutOfRange, {"index 3", "element 1", "length 3"});
}

TEST(TextBinarizer, ThresholdsEveryType) {
  std::mt19937 rng(9);
  for (DType t : {DType::kFloat, DType::kDouble, DType::kInt64, DType::kInt32}) {
    const Host x = Host::random(t, {3, 4}, rng, -3, 3).strided({1, 0});
    NodeGraph ng("Binarizer", 1);
    ng.node->domain = "ai.onnx.ml";
    ng.in(x).out(t, {3, 4}).attr_f("threshold", 0.5f);
    const Host y = ng.run(gen())[0];
    for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(y.at(i), x.at(i) > 0.5 ? 1 : 0) << i;
  }
}

}  // namespace
}  // namespace geon::cpu::testing
