// ScopedPool: engine calls that name no pool use the scoped one on this thread, nested scopes
// restore the enclosing pool, other threads keep the process-wide pool; an idle pool's workers
// stop spinning and wake for the next job; and an evaluation whose destination is the very same
// view as an input (the executor's in-place outputs) is correct.
#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <set>
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

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Workers spin for a while after a job (about a millisecond) and must then sleep: an idle
// session may not hold the cores. And a sleeping worker must still be woken for the next job.
TEST(EngineThreadPool, IdleWorkersSleepAndWakeForTheNextJob) {
  ThreadPool pool(3);
  pool.run(3, [](int) {});
  const double before = process_cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // Two workers spinning throughout would use 0.6 s; spinning for their budget, a few ms.
  EXPECT_LT(process_cpu_seconds() - before, 0.1);

  std::mutex m;
  std::set<std::thread::id> ran_on;
  pool.run(8, [&](int) {
    {
      std::lock_guard lock(m);
      ran_on.insert(std::this_thread::get_id());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  });
  // 200 ms of parts: a woken worker takes some; left asleep, the caller would run all eight.
  EXPECT_GE(ran_on.size(), 2u);
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
