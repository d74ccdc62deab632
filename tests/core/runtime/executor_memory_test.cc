// Memory and concurrency: arena reuse on a chain (peak below the sum of intermediates),
// poison mode giving identical results, and many threads running one executable at once.
#include <gtest/gtest.h>

#include <array>
#include <thread>

#include "tests/core/runtime/executor_fixture.h"

namespace geon {
namespace {

using namespace geon::testing;  // NOLINT

// Eight Relu/Add steps on x [N, 16], each reading the previous value and x.
std::shared_ptr<Graph> chain(std::vector<Dim> dims) {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, dims);
  int v = x;
  for (int i = 0; i < 8; ++i) {
    const std::string name = "v" + std::to_string(i);
    v = i % 2 ? b.node("Add", {v, x}, name, DType::kFloat, dims)
              : b.node("Relu", {v}, name, DType::kFloat, dims);
  }
  b.output(v);
  return b.shared();
}

std::vector<float> chain_reference(std::vector<float> x) {
  std::vector<float> v = x;
  for (int i = 0; i < 8; ++i)
    for (size_t j = 0; j < v.size(); ++j) v[j] = i % 2 ? v[j] + x[j] : std::max(v[j], 0.0f);
  return v;
}

std::vector<float> values(int n, int seed) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<float>((i * 7 + seed * 13) % 23) - 11.0f);
  return v;
}

TEST(ExecutorMemory, ChainPeakIsBelowTheSumOfIntermediates) {
  auto exe = Executable::compile(chain({32, 16}), host_only());
  const std::vector<MemoryStats> stats = exe->memory();
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].device, Device{});
  // Seven intermediates of 2 KiB each (the last value is an output, not in the arena).
  EXPECT_EQ(stats[0].intermediate_bytes, 7u * 32 * 16 * 4);
  EXPECT_LT(stats[0].peak_bytes, stats[0].intermediate_bytes);
  EXPECT_GE(stats[0].peak_bytes, 2u * 32 * 16 * 4);  // a step's input and output coexist
}

TEST(ExecutorMemory, PoisonModeGivesIdenticalResults) {
  for (const bool symbolic : {false, true}) {
    auto graph = symbolic ? chain({"N", 16}) : chain({32, 16});
    ExecutorOptions poison;
    poison.poison_freed = true;
    auto plain = Executable::compile(graph, host_only());
    auto checked = Executable::compile(graph, host_only(), poison);
    const std::array<int, 1> outs{0};
    for (int seed = 0; seed < 3; ++seed) {
      HostTensor x = floats({32, 16}, values(512, seed));
      const std::array<TensorRef, 1> in{x.ref()};
      const std::vector<float> a = values_of<float>(plain->run(in, outs)[0]);
      const std::vector<float> b = values_of<float>(checked->run(in, outs)[0]);
      EXPECT_EQ(a, b);
      EXPECT_EQ(a, chain_reference(values(512, seed)));
    }
  }
}

TEST(ExecutorMemory, ConcurrentRunsMatchSingleThreadedResults) {
  ExecutorOptions opt;
  opt.poison_freed = true;
  auto exe = Executable::compile(chain({"N", 16}), host_only(), opt);
  const std::array<int, 1> outs{0};
  constexpr int kThreads = 4, kRuns = 50;
  // Reference results computed first, one thread.
  std::vector<std::vector<float>> expected(kThreads * kRuns);
  auto rows = [](int t, int r) { return 1 + (t * kRuns + r) % 5; };
  for (int t = 0; t < kThreads; ++t)
    for (int r = 0; r < kRuns; ++r) {
      HostTensor x = floats({rows(t, r), 16}, values(rows(t, r) * 16, t * kRuns + r));
      const std::array<TensorRef, 1> in{x.ref()};
      expected[t * kRuns + r] = values_of<float>(exe->run(in, outs)[0]);
    }
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        HostTensor x = floats({rows(t, r), 16}, values(rows(t, r) * 16, t * kRuns + r));
        const std::array<TensorRef, 1> in{x.ref()};
        if (values_of<float>(exe->run(in, outs)[0]) != expected[t * kRuns + r]) ++mismatches[t];
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
  EXPECT_EQ(expected[0], chain_reference(values(rows(0, 0) * 16, 0)));
}

}  // namespace
}  // namespace geon
