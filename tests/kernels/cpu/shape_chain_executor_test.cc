// The run-time shape kernels through the executor: a Shape -> Gather -> Concat -> Reshape chain
// over an input with a symbolic batch dim, run for several batch sizes on cpu.generic, before
// and after constant folding (which must leave the chain alone: its input is not a constant).
#include <gtest/gtest.h>

#include "core/passes/fold_constants.h"
#include "core/runtime/executor.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/graph_builder.h"

namespace geon::cpu::testing {
namespace {

// y = Reshape(x, Concat(Gather(Shape(x), [0]), [-1])) for x of shape (N, 3, 4).
std::shared_ptr<Graph> flatten_by_shape_chain(bool fold) {
  Builder b;
  const int x = b.input("x", DType::kFloat, {-1, 3, 4});
  const int idx = b.constant("idx", DType::kInt64, {1}, {0});
  const int rest = b.constant("rest", DType::kInt64, {1}, {-1});
  const int s = b.node("Shape", {x}, DType::kInt64, {3});
  const int n = b.node("Gather", {s, idx}, DType::kInt64, {1});
  const int target = b.node("Concat", {n, rest}, DType::kInt64, {2});
  b.attr_i("axis", 0);
  const int y = b.node("Reshape", {x, target}, DType::kFloat, {}, false);
  b.g.outputs = {y};
  if (fold) {
    const KernelSet* sets[] = {&generic_kernels()};
    EXPECT_EQ(fold_constants(b.g, sets), 0);
  }
  return std::make_shared<Graph>(std::move(b.g));
}

TEST(CpuShapeChainExecutor, ReshapeTargetComputedPerRun) {
  for (bool fold : {false, true}) {
    const KernelSet* sets[] = {&generic_kernels()};
    auto exe = Executable::compile(flatten_by_shape_chain(fold), sets);
    for (int64_t batch : {2, 5, 1}) {
      std::vector<float> xs(batch * 12);
      for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(i) * 0.5f - 3;
      TensorRef in{row_major(DType::kFloat, Dims{batch, 3, 4}), xs.data(), Device{}};
      const int outputs[] = {0};
      const std::vector<OwnedTensor> got = exe->run({&in, 1}, outputs);
      ASSERT_EQ(got.size(), 1u);
      ASSERT_EQ(got[0].desc.shape, (Dims{batch, 12}));
      const auto* ys = static_cast<const float*>(got[0].data());
      for (size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(ys[i], xs[i]) << "at " << i;
    }
  }
}

}  // namespace
}  // namespace geon::cpu::testing
