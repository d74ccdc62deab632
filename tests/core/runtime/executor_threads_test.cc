// The threads option: a run's kernels (and those of nested If bodies) see the executable's own
// engine pool, of the requested size; 0 keeps the process-wide pool; bad counts are refused.
#include <gtest/gtest.h>

#include <array>

#include "core/engine/thread_pool.h"
#include "tests/core/runtime/executor_fixture.h"

namespace geon {
namespace {

using namespace geon::testing;  // NOLINT

// Outputs: the pool size seen at top level, and inside an If's chosen branch.
std::shared_ptr<Graph> pool_sizes() {
  ExecBuilder b;
  const int cond = b.input("cond", DType::kBool, {});
  const int x = b.input("x", DType::kFloat, {1});
  b.output(b.node("PoolSize", {x}, "top", DType::kFloat, {1}));
  ExecBuilder then_b(b.graph()), else_b(b.graph());
  const int tx = then_b.outer(b.graph().values[x]);
  then_b.output(then_b.node("PoolSize", {tx}, "t", DType::kFloat, {1}));
  const int ex = else_b.outer(b.graph().values[x]);
  else_b.output(else_b.node("Identity", {ex}, "e", DType::kFloat, {1}));
  b.output(b.node("If", {cond}, "nested", DType::kFloat, {1}, "choose"));
  b.graph_attr("then_branch", then_b.shared());
  b.graph_attr("else_branch", else_b.shared());
  return b.shared();
}

std::vector<float> sizes_seen(const Executable& exe) {
  HostTensor yes = bools({}, {1}), x = floats({1}, {0});
  const std::array<TensorRef, 2> in{yes.ref(), x.ref()};
  const std::array<int, 2> outs{0, 1};
  const std::vector<OwnedTensor> got = exe.run(in, outs);
  return {values_of<float>(got[0])[0], values_of<float>(got[1])[0]};
}

TEST(ExecutorThreads, RunsUseTheExecutablesOwnPool) {
  for (const int threads : {1, 3}) {
    ExecutorOptions opt;
    opt.threads = threads;
    auto exe = Executable::compile(pool_sizes(), host_only(), opt);
    const auto n = static_cast<float>(threads);
    EXPECT_EQ(sizes_seen(*exe), (std::vector<float>{n, n}));
    EXPECT_EQ(sizes_seen(*exe), (std::vector<float>{n, n}));
  }
  // After the runs this thread is back on the process-wide pool.
  auto exe = Executable::compile(pool_sizes(), host_only());
  const auto global = static_cast<float>(default_thread_pool().size());
  EXPECT_EQ(sizes_seen(*exe), (std::vector<float>{global, global}));
}

TEST(ExecutorThreads, CountsOutOfRangeAreRefused) {
  for (const int threads : {-1, 5000}) {
    ExecutorOptions opt;
    opt.threads = threads;
    try {
      Executable::compile(pool_sizes(), host_only(), opt);
      FAIL() << threads;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
      EXPECT_NE(std::string(e.what()).find("threads"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace geon
