// cpu.dnnl kernels are created once and may compute on several threads at once (a session's
// Run is thread-safe): one MatMul kernel and one Gemm kernel, each run concurrently from
// several threads over shapes that share and do not share cached primitives, must give every
// thread the result of the naive triple loop; likewise kernels whose constant B was prepacked
// at creation (one packed copy read by every thread, primitives per row count shared).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/dnnl/runtime.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& dnnl() { return dnnl_kernels(); }

// Largest |got - want| of a (M, K) x (K, N) product plus an optional bias row, over the
// output of one run.
double max_error(const Host& a, const Host& b, const Host* bias, const Host& got) {
  const int64_t M = a.desc.shape[0], K = a.desc.shape[1], N = b.desc.shape[1];
  double worst = 0;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = bias ? bias->at(n) : 0.0;
      for (int64_t k = 0; k < K; ++k) s += a.at(m * K + k) * b.at(k * N + n);
      worst = std::max(worst, std::abs(got.at(m * N + n) - s));
    }
  return worst;
}

// Runs `round(rng, t, r)` for kRounds rounds on each of kThreads threads at once (thread t's
// rng seeded with seed + t); every thread must finish without an exception, and the worst
// error a round returns must stay within tolerance.
void run_on_threads(unsigned seed,
                    const std::function<double(std::mt19937&, int t, int r)>& round) {
  constexpr int kThreads = 4, kRounds = 20;
  std::vector<double> worst(kThreads, 0.0);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        std::mt19937 rng(seed + t);
        for (int r = 0; r < kRounds; ++r) worst[t] = std::max(worst[t], round(rng, t, r));
      } catch (const std::exception& ex) {
        errors[t] = ex.what();
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], "") << "thread " << t;
    EXPECT_LT(worst[t], 1e-3) << "thread " << t;
  }
}

void run_concurrently(const std::string& op, bool with_bias) {
  // The node's declared shapes do not matter to the kernel: it takes them from its inputs.
  NodeGraph ng(op, 13);
  std::mt19937 seed_rng(41);
  ng.in(Host::random(DType::kFloat, {2, 3}, seed_rng))
      .in(Host::random(DType::kFloat, {3, 4}, seed_rng));
  if (with_bias) ng.in(Host::random(DType::kFloat, {4}, seed_rng));
  ng.out(DType::kFloat, {2, 4});
  const KernelEntry* e = find_kernel(dnnl(), *ng.node);
  ASSERT_NE(e, nullptr);
  const std::unique_ptr<Kernel> kernel = e->create(ng.g, *ng.node);

  run_on_threads(100, [&](std::mt19937& rng, int t, int r) {
    // Two threads share each shape, so cached primitives run on several threads.
    const int64_t M = 16 + 16 * (t % 2), K = 48 + 8 * (r % 3), N = 40;
    const Host a = Host::random(DType::kFloat, {M, K}, rng);
    const Host b = Host::random(DType::kFloat, {K, N}, rng);
    const Host bias = Host::random(DType::kFloat, {N}, rng);
    std::vector<Host> in{a, b};
    if (with_bias) in.push_back(bias);
    FakeContext ctx(in, {DType::kFloat});
    kernel->compute(ctx);
    return max_error(a, b, with_bias ? &bias : nullptr, ctx.result(0));
  });
}

// B constant (prepacked, stored (N, K) when `transposed`), rows of A varying by thread and round.
void run_prepacked_concurrently(const std::string& op, bool transposed, bool with_bias) {
  constexpr int64_t K = 48, N = 40;
  std::mt19937 seed_rng(42);
  const Host b_stored = Host::random(DType::kFloat, transposed ? Dims{N, K} : Dims{K, N}, seed_rng);
  // The reference reads B as (K, N).
  Host b = Host::dense(DType::kFloat, {K, N});
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n)
      b.set(k * N + n, b_stored.at(transposed ? n * K + k : k * N + n));
  const Host bias = Host::random(DType::kFloat, {N}, seed_rng);
  NodeGraph ng(op, 13);
  ng.in(Host::random(DType::kFloat, {2, K}, seed_rng)).in(b_stored, true);
  if (with_bias) ng.in(bias);
  ng.out(DType::kFloat, {2, N});
  if (transposed) ng.attr_i("transB", 1);
  const KernelEntry* e = find_kernel(dnnl(), *ng.node);
  ASSERT_NE(e, nullptr);
  const std::unique_ptr<Kernel> kernel = e->create(ng.g, *ng.node);

  run_on_threads(200, [&](std::mt19937& rng, int t, int r) {
    const int64_t M = 1 + 16 * (t % 2) + (r % 3);  // shared and private row counts
    const Host a = Host::random(DType::kFloat, {M, K}, rng);
    std::vector<Host> in{a, b_stored};
    if (with_bias) in.push_back(bias);
    FakeContext ctx(in, {DType::kFloat});
    kernel->compute(ctx);
    return max_error(a, b, with_bias ? &bias : nullptr, ctx.result(0));
  });
}

TEST(CpuDnnlThreads, PrepackedMatMulKernelComputesOnSeveralThreadsAtOnce) {
  run_prepacked_concurrently("MatMul", false, false);
}

TEST(CpuDnnlThreads, PrepackedTransposedGemmWithBiasComputesOnSeveralThreadsAtOnce) {
  run_prepacked_concurrently("Gemm", true, true);
}

TEST(CpuDnnlThreads, OneMatMulKernelComputesOnSeveralThreadsAtOnce) {
  run_concurrently("MatMul", false);
}

TEST(CpuDnnlThreads, OneGemmKernelWithBiasComputesOnSeveralThreadsAtOnce) {
  run_concurrently("Gemm", true);
}

}  // namespace
}  // namespace geon::cpu::testing

namespace geon::cpu::testing {
namespace {

// oneDNN here runs on OpenMP, whose team would fight the session's pool for the cores: it runs
// single-threaded, and a product big enough to split is spread over the caller's scoped pool
// (a session's intra_op_threads) instead, with the same result as the naive loop.
TEST(CpuDnnlThreads, OneDnnRunsSingleThreadedAndSplitsWorkAcrossTheCallersPool) {
  NodeGraph ng("MatMul", 13);
  std::mt19937 rng(5);
  const Host a = Host::random(DType::kFloat, {96, 64}, rng);
  const Host b = Host::random(DType::kFloat, {64, 48}, rng);
  ng.in(a).in(b).out(DType::kFloat, {96, 48});
  const std::unique_ptr<Kernel> kernel = find_kernel(dnnl(), *ng.node)->create(ng.g, *ng.node);
  for (int threads : {1, 3}) {
    ThreadPool pool(threads);
    ScopedPool scope(&pool);
    FakeContext ctx({a, b}, {DType::kFloat});
    kernel->compute(ctx);
    EXPECT_EQ(omp_get_max_threads(), 1);
    EXPECT_EQ(pool.parallel_jobs() > 0, threads > 1) << threads << " threads";
    EXPECT_LT(max_error(a, b, nullptr, ctx.result(0)), 1e-4);
  }
}

// dnnl_parallel's parts cover the range once, in order, sizes within one of each other and part
// 0 the largest: the calling thread claims it while the workers wake, so it takes the extra
// item (49 pixels: 25 on the caller, 24 on the worker).
TEST(CpuDnnlThreads, ParallelPartsCoverTheRangeOnceWithPartZeroTheLargest) {
  ThreadPool pool(3);
  ScopedPool scope(&pool);
  for (int64_t n : {1, 2, 7, 49, 50, 1000})
    for (int parts : {1, 2, 3, 4, 7}) {
      SCOPED_TRACE(std::to_string(n) + " items, " + std::to_string(parts) + " parts");
      std::mutex m;
      std::vector<std::pair<int64_t, int64_t>> ranges;
      dnnl_parallel(n, parts, [&](int64_t first, int64_t last) {
        std::lock_guard lock(m);
        ranges.emplace_back(first, last);
      });
      std::sort(ranges.begin(), ranges.end());
      ASSERT_EQ(static_cast<int64_t>(ranges.size()), std::min<int64_t>(n, parts));
      int64_t next = 0;
      for (size_t i = 0; i < ranges.size(); ++i) {
        const auto [first, last] = ranges[i];
        EXPECT_EQ(first, next);
        next = last;
        const int64_t size = last - first, head = ranges[0].second - ranges[0].first;
        EXPECT_TRUE(size == head || size == head - 1) << "part " << i << " has " << size;
      }
      EXPECT_EQ(next, n);
    }
}

}  // namespace
}  // namespace geon::cpu::testing
