// Symbolic lengths: runs with different input shapes, the plan cache per shape (and its LRU
// bound), data-dependent outputs larger than planned, the working-memory limit, and the
// input checks (dtype, rank, static dims, symbol conflicts, count) with their messages.
#include <gtest/gtest.h>

#include <array>

#include "core/runtime/plan_cache.h"
#include "tests/core/runtime/executor_fixture.h"

namespace geon {
namespace {

using namespace geon::testing;  // NOLINT

std::vector<float> chain_reference(const std::vector<float>& x) {
  std::vector<float> y;
  for (float v : x) y.push_back(std::max(std::max(v, 0.0f) + v, 0.0f) * v);
  return y;
}

std::vector<float> ramp(int n, float start) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i) v.push_back(start + static_cast<float>(i) * 0.5f);
  return v;
}

std::string error_of(const Executable& exe, std::span<const TensorRef> in) {
  const std::array<int, 1> outs{0};
  try {
    exe.run(in, outs);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(ExecutorShapes, SymbolicBatchRunsWithTwoShapesAndReusesPlans) {
  ExecutorOptions opt;
  opt.poison_freed = true;  // plans are verified, dead slots overwritten
  auto exe = Executable::compile(batch_chain(), host_only(), opt);
  EXPECT_TRUE(exe->memory().empty());  // nothing planned before the first run

  const std::array<int, 1> outs{0};
  auto run = [&](int n, float start) {
    HostTensor x = floats({n, 4}, ramp(n * 4, start));
    const std::array<TensorRef, 1> in{x.ref()};
    std::vector<OwnedTensor> r = exe->run(in, outs);
    EXPECT_EQ(r[0].desc.shape, (Dims{n, 4}));
    EXPECT_EQ(values_of<float>(r[0]), chain_reference(ramp(n * 4, start)));
    return exe->memory();
  };
  const std::vector<MemoryStats> two = run(2, -3);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_GT(two[0].peak_bytes, 0u);
  const std::vector<MemoryStats> five = run(5, -4);
  ASSERT_EQ(five.size(), 1u);
  EXPECT_GT(five[0].peak_bytes, two[0].peak_bytes);
  // Same shapes again: the cached plans serve (and results stay right in their arenas).
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(run(2, static_cast<float>(i))[0].peak_bytes, two[0].peak_bytes);
    EXPECT_EQ(run(5, static_cast<float>(-i))[0].peak_bytes, five[0].peak_bytes);
  }
}

TEST(ExecutorShapes, PlanCacheDropsTheLeastRecentlyUsed) {
  PlanCache cache(2);
  auto plan = [] { return std::make_shared<const ShapePlan>(); };
  const auto a = plan(), b = plan(), c = plan();
  cache.insert({1, 2}, a);
  cache.insert({1, 3}, b);
  EXPECT_EQ(cache.find({1, 2}), a);  // now the most recent
  cache.insert({1, 4}, c);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.find({1, 3}), nullptr);
  EXPECT_EQ(cache.find({1, 2}), a);
  EXPECT_EQ(cache.find({1, 4}), c);
  PlanCache none(0);
  none.insert({1}, a);
  EXPECT_EQ(none.find({1}), nullptr);
}

TEST(ExecutorShapes, ManyShapesWithASmallCacheStayCorrect) {
  ExecutorOptions opt;
  opt.shape_cache_entries = 2;
  auto exe = Executable::compile(batch_chain(), host_only(), opt);
  const std::array<int, 1> outs{0};
  for (int round = 0; round < 2; ++round)
    for (int n : {1, 3, 6, 3, 1}) {
      HostTensor x = floats({n, 4}, ramp(n * 4, static_cast<float>(-n)));
      const std::array<TensorRef, 1> in{x.ref()};
      EXPECT_EQ(values_of<float>(exe->run(in, outs)[0]),
                chain_reference(ramp(n * 4, static_cast<float>(-n))));
    }
}

TEST(ExecutorShapes, DataDependentOutputLargerThanPlannedFallsBack) {
  // Grow(n) gives n elements; the input shape (the cache key) is the same each run.
  ExecBuilder b;
  const int n = b.input("n", DType::kInt64, {1});
  const int g = b.node_unknown("Grow", {n}, "g", DType::kFloat);
  const int r = b.node_unknown("Relu", {g}, "r", DType::kFloat);
  b.output(b.node_unknown("Add", {r, g}, "y", DType::kFloat));
  ExecutorOptions opt;
  opt.poison_freed = true;
  auto exe = Executable::compile(b.shared(), host_only(), opt);
  const std::array<int, 1> outs{0};
  for (int64_t k : {2, 9, 1, 33}) {
    HostTensor nt = int64s({1}, {k});
    const std::array<TensorRef, 1> in{nt.ref()};
    std::vector<OwnedTensor> y = exe->run(in, outs);
    EXPECT_EQ(values_of<float>(y[0]), std::vector<float>(k, static_cast<float>(2 * k)));
  }
}

TEST(ExecutorShapes, WorkingMemoryLimitIsEnforced) {
  ExecutorOptions opt;
  opt.arena_limit_bytes = 256;
  auto exe = Executable::compile(batch_chain(), host_only(), opt);
  const std::array<int, 1> outs{0};
  HostTensor small = floats({2, 4}, ramp(8, 0));
  const std::array<TensorRef, 1> in_small{small.ref()};
  EXPECT_NO_THROW(exe->run(in_small, outs));
  HostTensor big = floats({64, 4}, ramp(256, 0));
  const std::array<TensorRef, 1> in_big{big.ref()};
  try {
    exe->run(in_big, outs);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kResourceExhausted);
    EXPECT_NE(std::string(e.what()).find("arena_limit_bytes"), std::string::npos) << e.what();
  }
}

TEST(ExecutorShapes, BadInputsAreNamedWithExpectedAndGot) {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {"N", 4});
  const int y = b.input("y", DType::kFloat, {"N", 4});
  b.output(b.node("Add", {x, y}, "z", DType::kFloat, {"N", 4}));
  auto exe = Executable::compile(b.shared(), host_only());
  HostTensor good = floats({2, 4}, ramp(8, 0));
  HostTensor ints = int64s({2, 4}, std::vector<int64_t>(8, 1));
  HostTensor rank1 = floats({8}, ramp(8, 0));
  HostTensor wide = floats({2, 5}, ramp(10, 0));
  HostTensor three = floats({3, 4}, ramp(12, 0));

  const std::array<TensorRef, 2> dtype{good.ref(), ints.ref()};
  std::string e = error_of(*exe, dtype);
  EXPECT_NE(e.find("input 'y': expected dtype float, got int64"), std::string::npos) << e;

  const std::array<TensorRef, 2> rank{rank1.ref(), good.ref()};
  e = error_of(*exe, rank);
  EXPECT_NE(e.find("input 'x': expected rank 2"), std::string::npos) << e;
  EXPECT_NE(e.find("got shape [8]"), std::string::npos) << e;

  const std::array<TensorRef, 2> dim{good.ref(), wide.ref()};
  e = error_of(*exe, dim);
  EXPECT_NE(e.find("input 'y': dim 1 must be 4, got shape [2, 5]"), std::string::npos) << e;

  const std::array<TensorRef, 2> symbol{good.ref(), three.ref()};
  e = error_of(*exe, symbol);
  EXPECT_NE(e.find("input 'y': dim 0 is 'N', which input 'x' binds to 2, but it is 3"),
            std::string::npos)
      << e;

  const std::array<TensorRef, 1> count{good.ref()};
  e = error_of(*exe, count);
  EXPECT_NE(e.find("2 inputs ('x', 'y') but the run gives 1"), std::string::npos) << e;

  const std::array<TensorRef, 2> absent{good.ref(), TensorRef{}};
  e = error_of(*exe, absent);
  EXPECT_NE(e.find("input 'y' is missing"), std::string::npos) << e;

  TensorRef strided = three.ref();
  strided.desc.strides = {1, 3};
  const std::array<TensorRef, 2> layout{strided, three.ref()};
  e = error_of(*exe, layout);
  EXPECT_NE(e.find("input 'x' must be a dense row-major tensor"), std::string::npos) << e;
}

}  // namespace
}  // namespace geon
