// ScopedPool: engine calls that name no pool use the scoped one on this thread, nested scopes
// restore the enclosing pool, other threads keep the process-wide pool; and an evaluation whose
// destination is the very same view as an input (the executor's in-place outputs) is correct.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "core/engine/engine.h"

namespace geon {
namespace {

// Large enough for the engine to split across a pool of three.
constexpr int64_t kN = 1 << 20;
const TensorDesc kDesc = row_major(DType::kFloat, std::vector<int64_t>{1024, 1024});

TEST(EngineScopedPool, RoutesEngineWorkToTheScopedPool) {
  ThreadPool pool(3);
  std::vector<float> x(kN, 2.0f), y(kN);
  {
    ScopedPool scope(&pool);
    EXPECT_EQ(&default_thread_pool(), &pool);
    unary("neg", {kDesc, y.data()}, {kDesc, x.data()});
  }
  const uint64_t jobs = pool.parallel_jobs();
  EXPECT_GT(jobs, 0u);
  EXPECT_EQ(y, std::vector<float>(kN, -2.0f));
  EXPECT_NE(&default_thread_pool(), &pool);
  unary("neg", {kDesc, y.data()}, {kDesc, x.data()});  // outside the scope: not this pool
  EXPECT_EQ(pool.parallel_jobs(), jobs);
}

TEST(EngineScopedPool, NestedScopesRestoreAndOtherThreadsAreUnaffected) {
  ThreadPool outer(2), inner(3);
  ThreadPool& global = default_thread_pool();
  {
    ScopedPool a(&outer);
    {
      ScopedPool b(&inner);
      EXPECT_EQ(&default_thread_pool(), &inner);
      ScopedPool none(nullptr);  // no pool: no change
      EXPECT_EQ(&default_thread_pool(), &inner);
      ThreadPool* seen = nullptr;
      std::thread([&] { seen = &default_thread_pool(); }).join();
      EXPECT_EQ(seen, &global);
    }
    EXPECT_EQ(&default_thread_pool(), &outer);
  }
  EXPECT_EQ(&default_thread_pool(), &global);
}

TEST(EngineScopedPool, OneThreadPoolRunsInline) {
  ThreadPool one(1);
  std::vector<float> x(kN, 1.0f), y(kN);
  ScopedPool scope(&one);
  unary("exp", {kDesc, y.data()}, {kDesc, x.data()});
  EXPECT_EQ(one.parallel_jobs(), 0u);
  EXPECT_NEAR(y[kN - 1], std::exp(1.0f), 1e-3 * std::exp(1.0f));
}

TEST(EngineInPlace, DestinationThatIsTheInputViewIsComputedCorrectly) {
  // Unary, binary with the destination as either operand, and a strided (transposed) view
  // shared by input and destination, over several chunks and threads.
  ThreadPool pool(3);
  EngineOptions opt;
  opt.pool = &pool;
  std::vector<float> a(kN), b(kN);
  for (int64_t i = 0; i < kN; ++i) {
    a[i] = static_cast<float>(i % 97) - 48.0f;
    b[i] = static_cast<float>(i % 13) * 0.5f;
  }
  std::vector<float> x = a;
  unary("neg", {kDesc, x.data()}, {kDesc, x.data()}, 1, opt);
  for (int64_t i = 0; i < kN; i += 4099) ASSERT_EQ(x[i], -a[i]) << i;

  x = a;
  binary("sub", {kDesc, x.data()}, {kDesc, x.data()}, {kDesc, b.data()}, 1, 1, opt);
  for (int64_t i = 0; i < kN; i += 4099) ASSERT_EQ(x[i], a[i] - b[i]) << i;

  x = b;
  binary("sub", {kDesc, x.data()}, {kDesc, a.data()}, {kDesc, x.data()}, 1, 1, opt);
  for (int64_t i = 0; i < kN; i += 4099) ASSERT_EQ(x[i], a[i] - b[i]) << i;

  x = a;
  TensorDesc t = kDesc;
  std::swap(t.shape[0], t.shape[1]);
  std::swap(t.strides[0], t.strides[1]);
  unary("relu", {t, x.data()}, {t, x.data()}, 1, opt);
  for (int64_t i = 0; i < kN; i += 4099) ASSERT_EQ(x[i], std::max(a[i], 0.0f)) << i;
}

}  // namespace
}  // namespace geon
