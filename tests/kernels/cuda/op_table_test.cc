// The CUDA op table against the CPU table: the same names, arities, result kinds and compute
// types, so an op added to one table and not the other fails here until it is added (or
// listed as not on CUDA, with the reason).
#include <gtest/gtest.h>

#include <string>

#include "core/engine/ops.h"
#include "kernels/cuda/op_table.h"

namespace geon::cuda {
namespace {

const NotOnCuda* not_on_cuda(std::string_view name) {
  for (const NotOnCuda& n : ops_not_on_cuda())
    if (n.name == name) return &n;
  return nullptr;
}

TEST(CudaOpTable, EveryCpuOpIsOnCudaWithTheSameSignatureOrListedWithAReason) {
  for (const OpDef& cpu : geon::all_ops()) {
    const CudaOpDef* gpu = find_op(cpu.name);
    if (gpu == nullptr) {
      const NotOnCuda* n = not_on_cuda(cpu.name);
      ASSERT_NE(n, nullptr) << "CPU op '" << cpu.name << "' has no CUDA entry and no reason";
      EXPECT_FALSE(n->reason.empty()) << cpu.name;
      continue;
    }
    EXPECT_EQ(gpu->arity, cpu.arity) << cpu.name;
    EXPECT_EQ(gpu->result, cpu.result) << cpu.name;
    EXPECT_EQ(gpu->condition_first, cpu.condition_first) << cpu.name;
    for (int ci = 0; ci < kComputeTypeCount; ++ci)
      EXPECT_EQ(gpu->types[ci], cpu.fn[ci] != nullptr)
          << cpu.name << " on " << dtype_name(kComputeTypes[ci]);
  }
}

TEST(CudaOpTable, HasNoOpTheCpuLacksAndIdsArePositions) {
  int i = 0;
  for (const CudaOpDef& gpu : all_ops()) {
    EXPECT_NE(geon::find_op(gpu.name), nullptr) << "CUDA op '" << gpu.name << "' is not a CPU op";
    EXPECT_EQ(static_cast<int>(gpu.id), i++) << gpu.name;
    EXPECT_EQ(not_on_cuda(gpu.name), nullptr) << gpu.name << " is both present and listed absent";
  }
  EXPECT_EQ(i, static_cast<int>(OpId::kCount));
}

}  // namespace
}  // namespace geon::cuda
