// cpu.generic Split against index arithmetic: every opset's way of giving the parts (attribute,
// input, even division, num_outputs with a short last part), strided inputs, empty parts, and
// the errors for parts that do not add up.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// Expects outs[p] to be the p-th part (lengths `parts`) of x along `axis`.
void expect_parts(const Host& x, int axis, const Dims& parts, const std::vector<Host>& outs) {
  ASSERT_EQ(outs.size(), parts.size());
  const Dims& s = x.shape();
  int64_t inner = 1;
  for (size_t k = axis + 1; k < s.size(); ++k) inner *= s[k];
  int64_t start = 0;
  for (size_t p = 0; p < parts.size(); ++p) {
    Dims shape = s;
    shape[axis] = parts[p];
    expect_values(outs[p], shape, [&](int64_t i) {
      const int64_t o = i / (parts[p] * inner), a = i / inner % parts[p], j = i % inner;
      return x.at((o * s[axis] + start + a) * inner + j);
    });
    start += parts[p];
  }
}

TEST(CpuGenericSplit, EveryOpsetsFormOfTheParts) {
  std::mt19937 rng(3);
  const Host x = Host::random(DType::kFloat, {3, 7, 2}, rng).strided({2, 0, 1});
  auto node = [&](int opset, const Dims& parts) {
    auto ng = std::make_unique<NodeGraph>("Split", opset);
    ng->in(x);
    for (int64_t len : parts) ng->out(DType::kFloat, {3, len, 2});
    ng->attr_i("axis", opset >= 11 ? -2 : 1);
    return ng;
  };
  auto v1 = node(1, {2, 5});  // opset 1: split as an input
  v1->in(ints({2, 5}), true);
  expect_parts(x, 1, {2, 5}, v1->run(gen()));
  auto v2 = node(2, {4, 0, 3});  // attribute, with an empty part
  v2->attr_ints("split", {4, 0, 3});
  expect_parts(x, 1, {4, 0, 3}, v2->run(gen()));
  auto v13 = node(13, {1, 6});  // input known only at run time
  v13->in(ints({1, 6}));
  expect_parts(x, 1, {1, 6}, v13->run(gen()));
  auto v18 = node(18, {3, 3, 1});  // num_outputs: ceil(7 / 3) each, the rest last
  v18->attr_i("num_outputs", 3);
  expect_parts(x, 1, {3, 3, 1}, v18->run(gen()));
  const Host y = Host::random(DType::kInt64, {6, 2}, rng, -50, 50);
  NodeGraph even("Split", 11);
  even.in(y).out(DType::kInt64, {2, 2}).out(DType::kInt64, {2, 2}).out(DType::kInt64, {2, 2});
  expect_parts(y, 0, {2, 2, 2}, even.run(gen()));
}

TEST(CpuGenericSplit, PartsThatDoNotAddUpAreErrors) {
  const Host x = Host::dense(DType::kFloat, {5});
  NodeGraph sum("Split", 13);
  sum.in(x).in(ints({2, 2})).out(DType::kFloat).out(DType::kFloat);
  expect_error(sum, gen(), ErrorCode::kInvalidArgument, {"Split", "sums to 4", "length 5"});
  NodeGraph uneven("Split", 13);
  uneven.in(x).out(DType::kFloat).out(DType::kFloat);
  expect_error(uneven, gen(), ErrorCode::kInvalidArgument, {"does not split evenly"});
  NodeGraph scalar("Split", 13);
  scalar.in(Host::dense(DType::kFloat, {})).out(DType::kFloat);
  expect_error(scalar, gen(), ErrorCode::kInvalidArgument, {"scalar"});
}

}  // namespace
}  // namespace geon::cpu::testing
