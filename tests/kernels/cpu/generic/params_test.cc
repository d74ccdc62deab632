// cpu.generic ops whose parameter inputs (Reshape's shape, Slice's starts/ends/axes/steps,
// Squeeze/Unsqueeze axes, Expand's shape, Reduce axes) are not constants: read from the run's
// tensors, they must give what the constant form gives, and bad values must be clear errors.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

void expect_error(const NodeGraph& ng, ErrorCode code, std::initializer_list<const char*> parts) {
  testing::expect_error(ng, gen(), code, parts);
}

Host ints32(const std::vector<int64_t>& v) {
  return Host::of(DType::kInt32, {static_cast<int64_t>(v.size())}, {v.begin(), v.end()});
}

TEST(CpuGenericRunTimeParams, ReshapeResolvesZeroAndMinusOne) {
  std::mt19937 rng(1);
  const Host x = Host::random(DType::kFloat, {2, 3, 4}, rng).strided({2, 0, 1});
  struct Case {
    std::vector<int64_t> spec;
    bool allowzero;
    Dims want;
  };
  for (const Case& c : {Case{{0, -1}, false, {2, 12}}, Case{{-1, 0, 2}, false, {4, 3, 2}},
                        Case{{4, 6}, true, {4, 6}}, Case{{24}, false, {24}}}) {
    NodeGraph ng("Reshape", 14);
    ng.in(x).in(ints(c.spec)).out(DType::kFloat).attr_i("allowzero", c.allowzero);
    ASSERT_FALSE(ng.supports(gen()));
    expect_values(ng.run(gen())[0], c.want, [&](int64_t i) { return x.at(i); });
  }
  // allowzero keeps a 0 as a length: an empty tensor reshaped to (0, 5).
  NodeGraph empty("Reshape", 14);
  empty.in(Host::dense(DType::kFloat, {0, 3})).in(ints({0, 5})).out(DType::kFloat);
  empty.attr_i("allowzero", 1);
  EXPECT_EQ(empty.run(gen())[0].shape(), (Dims{0, 5}));
}

TEST(CpuGenericRunTimeParams, ReshapeBadShapesAreErrors) {
  const Host x = Host::dense(DType::kFloat, {2, 3});
  auto reshape = [&](std::vector<int64_t> spec) {
    auto ng = std::make_unique<NodeGraph>("Reshape", 14);
    ng->in(x).in(ints(spec)).out(DType::kFloat);
    return ng;
  };
  expect_error(*reshape({-1, -1}), ErrorCode::kInvalidArgument, {"Reshape: ", "more than one -1"});
  expect_error(*reshape({4, 2}), ErrorCode::kInvalidArgument, {"holds 8 elements", "has 6"});
  expect_error(*reshape({4, -1}), ErrorCode::kInvalidArgument, {"-1 cannot be inferred"});
  expect_error(*reshape({0, 0, 0, -1}), ErrorCode::kInvalidArgument, {"entry 2 is 0", "rank 2"});
  expect_error(*reshape({-2, 3}), ErrorCode::kInvalidArgument, {"entry 0 is -2"});
}

TEST(CpuGenericRunTimeParams, SliceMatchesConstantForm) {
  std::mt19937 rng(2);
  const Host x = Host::random(DType::kFloat, {5, 6, 3}, rng);
  const std::vector<int64_t> starts = {-1, 1}, ends = {-100, 5}, axes = {1, 0}, steps = {-2, 3};
  NodeGraph constant("Slice", 13), runtime("Slice", 13);
  constant.in(x)
      .in(ints(starts), true)
      .in(ints(ends), true)
      .in(ints(axes), true)
      .in(ints(steps), true)
      .out(DType::kFloat);
  runtime.in(x).in(ints32(starts)).in(ints32(ends)).in(ints(axes)).in(ints32(steps));
  runtime.out(DType::kFloat);
  ASSERT_FALSE(runtime.supports(gen()));
  const Host want = constant.run(gen())[0];
  // x[1:5:3, -1::-2, :] has shape (2, 3, 3).
  ASSERT_EQ(want.shape(), (Dims{2, 3, 3}));
  expect_values(runtime.run(gen())[0], want.shape(), [&](int64_t i) { return want.at(i); });
  expect_values(want, {2, 3, 3}, [&](int64_t i) {
    const int64_t r = 1 + 3 * (i / 9), c = 5 - 2 * (i / 3 % 3), k = i % 3;
    return x.at(r * 18 + c * 3 + k);
  });
}

TEST(CpuGenericRunTimeParams, SliceBadParametersAreErrors) {
  const Host x = Host::dense(DType::kFloat, {4, 4});
  auto slice = [&](std::vector<int64_t> s, std::vector<int64_t> e, std::vector<int64_t> a,
                   std::vector<int64_t> st) {
    auto ng = std::make_unique<NodeGraph>("Slice", 13);
    ng->in(x).in(ints(s)).in(ints(e)).in(ints(a)).in(ints(st)).out(DType::kFloat);
    return ng;
  };
  expect_error(*slice({0}, {1, 2}, {0}, {1}), ErrorCode::kInvalidArgument, {"Slice", "ends has 2"});
  expect_error(*slice({0, 0}, {1, 1}, {1, -1}, {1, 1}), ErrorCode::kInvalidArgument,
               {"axis 1 is sliced more than once"});
  expect_error(*slice({0}, {1}, {2}, {1}), ErrorCode::kInvalidArgument,
               {"axis 2 is out of range", "rank 2"});
  expect_error(*slice({0}, {1}, {0}, {0}), ErrorCode::kInvalidArgument, {"steps[0] is 0"});
  expect_error(*slice({0}, {1}, {0}, {1, 1}), ErrorCode::kInvalidArgument, {"steps has 2"});
}

TEST(CpuGenericRunTimeParams, SqueezeUnsqueezeAxes) {
  std::mt19937 rng(3);
  const Host x = Host::random(DType::kInt32, {3, 1, 2, 1}, rng, -9, 9);
  NodeGraph sq("Squeeze", 13), unsq("Unsqueeze", 13);
  sq.in(x).in(ints({-1, 1})).out(DType::kInt32);
  unsq.in(x).in(ints({0, -1})).out(DType::kInt32);
  expect_values(sq.run(gen())[0], {3, 2}, [&](int64_t i) { return x.at(i); });
  expect_values(unsq.run(gen())[0], {1, 3, 1, 2, 1, 1}, [&](int64_t i) { return x.at(i); });
  NodeGraph bad("Squeeze", 13);
  bad.in(x).in(ints({0})).out(DType::kInt32);
  expect_error(bad, ErrorCode::kInvalidArgument, {"Squeeze", "axis 0 has length 3, not 1"});
  NodeGraph twice("Unsqueeze", 13);
  twice.in(x).in(ints({1, -5})).out(DType::kInt32);
  expect_error(twice, ErrorCode::kInvalidArgument, {"Unsqueeze", "more than once"});
}

TEST(CpuGenericRunTimeParams, ExpandShapeAndBounds) {
  std::mt19937 rng(4);
  const Host x = Host::random(DType::kFloat, {3, 1}, rng);
  NodeGraph ex("Expand", 13);
  ex.in(x).in(ints({2, 1, 4})).out(DType::kFloat);
  expect_values(ex.run(gen())[0], {2, 3, 4}, [&](int64_t i) { return bcast_at(x, {2, 3, 4}, i); });
  NodeGraph mismatch("Expand", 13);
  mismatch.in(x).in(ints({2, 4})).out(DType::kFloat);
  expect_error(mismatch, ErrorCode::kInvalidArgument, {"Expand"});
  NodeGraph huge("Expand", 13);
  huge.in(x).in(ints({1 << 20, 1 << 20, 1 << 20})).out(DType::kFloat);
  expect_error(huge, ErrorCode::kResourceExhausted, {"Expand", "limit"});
  // Small enough as given, too large once broadcast against x's 3 rows.
  NodeGraph grown("Expand", 13);
  grown.in(x).in(ints({1 << 15, 1 << 15, 1, 1 << 2})).out(DType::kFloat);
  expect_error(grown, ErrorCode::kResourceExhausted, {"expanded shape", "limit"});
}

TEST(CpuGenericRunTimeParams, ReduceAxesInput) {
  std::mt19937 rng(5);
  const Host a = Host::random(DType::kFloat, {2, 3, 4}, rng);
  NodeGraph sum("ReduceSum", 13);
  sum.in(a).in(ints({-1, 0})).out(DType::kFloat).attr_i("keepdims", 0);
  expect_values(sum.run(gen())[0], {3}, [&](int64_t j) {
    double s = 0;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t k = 0; k < 4; ++k) s += a.at(i * 12 + j * 4 + k);
    return s;
  });
  // An empty run-time axes tensor with noop_with_empty_axes copies the input.
  NodeGraph noop("ReduceMax", 18);
  noop.in(a).in(Host::dense(DType::kInt64, {0})).out(DType::kFloat);
  noop.attr_i("noop_with_empty_axes", 1);
  expect_values(noop.run(gen())[0], {2, 3, 4}, [&](int64_t i) { return a.at(i); });
  NodeGraph bad("ReduceMean", 18);
  bad.in(a).in(ints({3})).out(DType::kFloat);
  expect_error(bad, ErrorCode::kInvalidArgument,
               {"ReduceMean: ", "axis 3 is out of range", "rank 3"});
  NodeGraph real_axes("ReduceSum", 13);
  real_axes.in(a).in(Host::of(DType::kFloat, {1}, {0})).out(DType::kFloat);
  ASSERT_TRUE(real_axes.supports(gen()));
  EXPECT_NE(real_axes.supports(gen())->find("not an integer tensor"), std::string::npos);
}

}  // namespace
}  // namespace geon::cpu::testing
