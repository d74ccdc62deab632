// The CPU kernel sets' tables: names, devices, and lookup by opset.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"

namespace geon::cpu {
namespace {

TEST(CpuKernelSets, NamesAndLookup) {
  EXPECT_EQ(generic_kernels().name, "cpu.generic");
  EXPECT_EQ(dnnl_kernels().name, "cpu.dnnl");
  Node n;
  n.op = "Clip";
  n.opset = 13;
  const KernelEntry* e = find_kernel(generic_kernels(), n);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->since, 11);
  n.opset = 6;
  EXPECT_EQ(find_kernel(generic_kernels(), n)->since, 6);
  n.op = "NoSuchOp";
  EXPECT_EQ(find_kernel(generic_kernels(), n), nullptr);
  n.op = "MatMul";
  EXPECT_NE(find_kernel(dnnl_kernels(), n), nullptr);
}

}  // namespace
}  // namespace geon::cpu
