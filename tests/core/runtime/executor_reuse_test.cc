// An executable keeps its runs' states between runs (run_state.h): what one run bound, asked
// for or failed in must not reach the next. Runs that fail part way, changing requested
// outputs, caller memory given then not, and changing symbolic lengths, each checked against
// a naive reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "tests/core/runtime/executor_fixture.h"

namespace geon {
namespace {

using namespace geon::testing;  // NOLINT

// y = relu(x), bad = Fail(y) (always throws), z = x + x; x [n] with a symbolic n.
std::shared_ptr<Graph> with_failing_branch() {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {"n"});
  const int y = b.node("Relu", {x}, "y", DType::kFloat, {"n"});
  b.output(y);
  b.output(b.node("Fail", {y}, "bad", DType::kFloat, {"n"}));
  b.output(b.node("Add", {x, x}, "z", DType::kFloat, {"n"}));
  return b.shared();
}

std::vector<float> relu(const std::vector<float>& x) {
  std::vector<float> y;
  for (float v : x) y.push_back(std::max(v, 0.0f));
  return y;
}

std::vector<float> twice(const std::vector<float>& x) {
  std::vector<float> y;
  for (float v : x) y.push_back(v + v);
  return y;
}

std::vector<float> ramp(int n, float from) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i) v.push_back(from + static_cast<float>(i));
  return v;
}

TEST(ExecutorReuse, RunsThatFailPartWayLeaveNoWorkingMemoryBehind) {
  // Room for one run's values and no more: memory a failed run left counted would make a later
  // run fail on the limit.
  ExecutorOptions opt;
  opt.arena_limit_bytes = 3 * 64 * sizeof(float);
  opt.poison_freed = true;
  auto exe = Executable::compile(with_failing_branch(), host_only(), opt);
  const std::array<int, 3> all{0, 1, 2};
  const std::array<int, 2> good{0, 2};
  for (int round = 0; round < 20; ++round) {
    const std::vector<float> xv = ramp(64, static_cast<float>(-round));
    HostTensor x = floats({64}, xv);
    const std::array<TensorRef, 1> in{x.ref()};
    EXPECT_THROW(exe->run(in, all), Error);
    const std::vector<OwnedTensor> r = exe->run(in, good);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(values_of<float>(r[0]), relu(xv));
    EXPECT_EQ(values_of<float>(r[1]), twice(xv));
  }
}

TEST(ExecutorReuse, RequestedOutputsAndTheirOrderChangeBetweenRuns) {
  auto exe = Executable::compile(with_failing_branch(), host_only());
  const std::vector<float> xv{-2, 3, -1, 4};
  HostTensor x = floats({4}, xv);
  const std::array<TensorRef, 1> in{x.ref()};
  const std::vector<std::vector<int>> requests{{2}, {0, 2}, {2, 0}, {0}, {2, 2, 0}};
  for (const std::vector<int>& request : requests) {
    const std::vector<OwnedTensor> r = exe->run(in, request);
    ASSERT_EQ(r.size(), request.size());
    for (size_t k = 0; k < request.size(); ++k)
      EXPECT_EQ(values_of<float>(r[k]), request[k] == 0 ? relu(xv) : twice(xv))
          << "output " << request[k] << " at position " << k;
  }
}

TEST(ExecutorReuse, CallerMemoryOfOneRunIsNotWrittenByTheNext) {
  auto exe = Executable::compile(with_failing_branch(), host_only());
  const std::array<int, 1> z{2};
  HostTensor x1 = floats({3}, {1, 2, 3});
  HostTensor dst = floats({3}, {0, 0, 0});
  const std::array<TensorRef, 1> in1{x1.ref()};
  const std::array<TensorRef, 1> caller{dst.ref()};
  exe->run(in1, z, caller);
  EXPECT_EQ(std::vector<float>(reinterpret_cast<float*>(dst.bytes.data()),
                               reinterpret_cast<float*>(dst.bytes.data()) + 3),
            (std::vector<float>{2, 4, 6}));

  const std::vector<float> sentinel{-7, -7, -7};
  std::memcpy(dst.bytes.data(), sentinel.data(), 3 * sizeof(float));
  HostTensor x2 = floats({3}, {5, 6, 7});
  const std::array<TensorRef, 1> in2{x2.ref()};
  const std::vector<OwnedTensor> r = exe->run(in2, z);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(values_of<float>(r[0]), (std::vector<float>{10, 12, 14}));
  EXPECT_EQ(std::vector<float>(reinterpret_cast<float*>(dst.bytes.data()),
                               reinterpret_cast<float*>(dst.bytes.data()) + 3),
            sentinel);
}

TEST(ExecutorReuse, SymbolsAreBoundAfreshEachRun) {
  auto exe = Executable::compile(with_failing_branch(), host_only());
  const std::array<int, 2> good{0, 2};
  for (int n : {5, 2, 9, 2, 0, 5}) {
    const std::vector<float> xv = ramp(n, -3);
    HostTensor x = floats({n}, xv);
    const std::array<TensorRef, 1> in{x.ref()};
    const std::vector<OwnedTensor> r = exe->run(in, good);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].desc.shape, (Dims{n}));
    EXPECT_EQ(values_of<float>(r[0]), relu(xv));
    EXPECT_EQ(values_of<float>(r[1]), twice(xv));
  }
}

TEST(ExecutorReuse, AnInputRefusedAtBindingLeavesTheNextRunIntact) {
  auto exe = Executable::compile(with_failing_branch(), host_only());
  const std::array<int, 1> y{0};
  HostTensor wrong = int64s({3}, {1, 2, 3});
  const std::array<TensorRef, 1> bad_in{wrong.ref()};
  EXPECT_THROW(exe->run(bad_in, y), Error);
  const std::vector<float> xv{-1, 0, 1};
  HostTensor x = floats({3}, xv);
  const std::array<TensorRef, 1> in{x.ref()};
  EXPECT_EQ(values_of<float>(exe->run(in, y)[0]), relu(xv));
}

}  // namespace
}  // namespace geon
