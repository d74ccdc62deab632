// One cuda kernel computed from several threads at once (Run is thread-safe on a session, so
// the executor may do this): every thread gets its own inputs' result, none another's.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "kernels/cpu/kernel_sets.h"
#include "kernels/cuda/kernel_set.h"
#include "tests/kernels/cuda/gpu_util.h"
#include "tests/kernels/cuda/set_harness.h"

namespace geon::cuda::testing {
namespace {

TEST(CudaSetConcurrency, OneKernelComputedFromManyThreads) {
  GEON_REQUIRE_CUDA();
  constexpr int kThreads = 6;
  // One node (one kernel); each thread feeds it its own inputs.
  std::vector<std::unique_ptr<NodeGraph>> graphs;
  std::vector<Host> want;
  for (int t = 0; t < kThreads; ++t) {
    std::mt19937 rng(100 + t);
    auto ng = std::make_unique<NodeGraph>("ReduceSum", 13);
    ng->in(Host::random(DType::kInt64, {64, 257}, rng, -1000, 1000))
        .in(cpu::testing::ints({1}), true)
        .out(DType::kInt64, {64, 1});
    want.push_back(ng->run(cpu::generic_kernels())[0]);
    graphs.push_back(std::move(ng));
  }
  const KernelEntry* e = find_kernel(kernel_set(), *graphs[0]->node);
  ASSERT_NE(e, nullptr);
  ASSERT_EQ(e->supports(graphs[0]->g, *graphs[0]->node), std::nullopt);
  const std::unique_ptr<Kernel> kernel = e->create(graphs[0]->g, *graphs[0]->node);
  std::vector<Host> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 5; ++rep) got[t] = compute_on_device(*graphs[t], *kernel)[0];
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t)
    expect_close(got[t], want[t], 0, "thread " + std::to_string(t));
}

}  // namespace
}  // namespace geon::cuda::testing
