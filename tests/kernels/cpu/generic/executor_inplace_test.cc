// cpu.generic's elementwise kernels through the executor: outputs take the memory of inputs
// dying at their node (a lower arena peak, same values, poison mode too), and the executor's
// threads option gives the same results for any thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/runtime/executor.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/graph_builder.h"

namespace geon::cpu::testing {
namespace {

// y = Relu(Exp(Neg(x))) for x of shape `shape` (-1: a symbolic dim). Every value has x's
// axes, as shape inference would give.
std::shared_ptr<Graph> relu_exp_neg(const Dims& shape) {
  Builder b;
  const int x = b.input("x", DType::kFloat, shape);
  int v = x;
  for (const char* op : {"Neg", "Exp", "Relu"}) {
    v = b.node(op, {v}, DType::kFloat, {}, false);
    b.g.values[v].axes = b.g.values[x].axes;
    b.g.values[v].rank_known = true;
  }
  b.g.outputs = {v};
  return std::make_shared<Graph>(std::move(b.g));
}

std::vector<float> inputs(int64_t n) {
  std::vector<float> xs(n);
  for (int64_t i = 0; i < n; ++i) xs[i] = static_cast<float>(i % 41) * 0.25f - 5;
  return xs;
}

std::vector<float> run(const Executable& exe, std::vector<float>& xs, const Dims& shape) {
  TensorRef in{row_major(DType::kFloat, shape), xs.data(), Device{}};
  const int outputs[] = {0};
  const std::vector<OwnedTensor> got = exe.run({&in, 1}, outputs);
  std::vector<float> ys(xs.size());
  std::memcpy(ys.data(), got.at(0).data(), ys.size() * sizeof(float));
  return ys;
}

TEST(CpuGenericExecutorInPlace, ReluExpNegRunsInPlaceWithTheSameValues) {
  const Dims shape{64, 33};
  const KernelSet* sets[] = {&generic_kernels()};
  for (const bool poison : {false, true}) {
    ExecutorOptions opt;
    opt.poison_freed = poison;
    auto exe = Executable::compile(relu_exp_neg(shape), sets, opt);
    const std::vector<MemoryStats> m = exe->memory();
    ASSERT_EQ(m.size(), 1u);
    // Two intermediates (Neg's and Exp's outputs) of one size; Exp's takes Neg's memory.
    EXPECT_LT(m[0].peak_bytes, m[0].intermediate_bytes);
    EXPECT_GE(m[0].peak_bytes, 64 * 33 * sizeof(float));

    std::vector<float> xs = inputs(64 * 33);
    const std::vector<float> before = xs;
    const std::vector<float> ys = run(*exe, xs, shape);
    EXPECT_EQ(xs, before);  // the graph input is never written
    for (size_t i = 0; i < xs.size(); ++i) {
      const float want = std::max(std::exp(-xs[i]), 0.0f);
      EXPECT_NEAR(ys[i], want, 1e-7 + 1e-3 * std::fabs(want)) << i;
    }
  }
}

TEST(CpuGenericExecutorInPlace, SymbolicShapesPlanInPlaceOnTheFirstRunsPlan) {
  const KernelSet* sets[] = {&generic_kernels()};
  ExecutorOptions opt;
  opt.poison_freed = true;
  auto exe = Executable::compile(relu_exp_neg({-1, 16}), sets, opt);
  for (int64_t rows : {3, 7, 3}) {
    std::vector<float> xs = inputs(rows * 16);
    const std::vector<float> ys = run(*exe, xs, {rows, 16});
    for (size_t i = 0; i < xs.size(); ++i) {
      const float want = std::exp(-xs[i]);
      EXPECT_NEAR(ys[i], want, 1e-7 + 1e-3 * want) << i;
    }
    const std::vector<MemoryStats> m = exe->memory();
    ASSERT_EQ(m.size(), 1u);
    EXPECT_LT(m[0].peak_bytes, m[0].intermediate_bytes);
  }
}

TEST(CpuGenericExecutorThreads, ThreadCountDoesNotChangeResults) {
  const Dims shape{512, 300};  // large enough for the engine to split across threads
  const KernelSet* sets[] = {&generic_kernels()};
  std::vector<std::vector<float>> results;
  for (const int threads : {0, 1, 2, 3}) {
    ExecutorOptions opt;
    opt.threads = threads;
    auto exe = Executable::compile(relu_exp_neg(shape), sets, opt);
    std::vector<float> xs = inputs(512 * 300);
    results.push_back(run(*exe, xs, shape));
    results.push_back(run(*exe, xs, shape));  // the pool's threads wake again for a 2nd run
  }
  for (size_t r = 1; r < results.size(); ++r) EXPECT_EQ(results[r], results[0]) << r;
}

}  // namespace
}  // namespace geon::cpu::testing
