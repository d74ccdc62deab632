// The cuda kernel set on every machine: its name, device and rows (one per elementwise op of
// the shared ONNX table, plus the assign-shaped ops and reductions); without a GPU every row
// refuses with the availability reason; with one, supports() accepts and refuses nodes for
// the right reasons. Also: the first kernel_set() call registers the device copy and pool.
#include <gtest/gtest.h>

#include <string>

#include "core/base/error.h"
#include "core/buffer/device_copy.h"
#include "core/onnx/elementwise.h"
#include "kernels/cuda/device.h"
#include "kernels/cuda/kernel_set.h"
#include "tests/kernels/cuda/gpu_util.h"
#include "tests/kernels/cuda/set_harness.h"

namespace geon::cuda::testing {
namespace {

bool contains(const std::string& s, std::string_view part) {
  return s.find(part) != std::string::npos;
}

Node node_of(std::string_view op, int opset) {
  Node n;
  n.op = std::string(op);
  n.opset = opset;
  return n;
}

TEST(CudaKernelSet, NamesItsDeviceAndCoversTheSharedElementwiseTable) {
  const KernelSet& set = kernel_set();
  EXPECT_EQ(set.name, "cuda");
  EXPECT_EQ(set.device, (Device{DeviceKind::kCuda, 0}));
  ASSERT_FALSE(set.entries.empty());
  for (const onnx::ElementwiseOp& e : onnx::elementwise_ops()) {
    EXPECT_NE(find_kernel(set, node_of(e.onnx, e.since)), nullptr) << e.onnx;
    EXPECT_EQ(find_kernel(set, node_of(e.onnx, e.since - 1)), nullptr)
        << e.onnx << " below its first opset";
  }
  for (const char* op : {"Identity", "Cast", "CastLike", "Transpose", "Clip", "ReduceSum",
                         "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"})
    EXPECT_NE(find_kernel(set, node_of(op, 18)), nullptr) << op;
  EXPECT_EQ(find_kernel(set, node_of("Conv", 18)), nullptr);
}

TEST(CudaKernelSet, WithoutAGpuEveryRowRefusesWithTheAvailabilityReason) {
  const Availability& a = cached_availability();
  if (a.available) GTEST_SKIP() << "a CUDA device is present: the refusal path cannot run";
  ASSERT_FALSE(a.reason.empty());
  EXPECT_TRUE(contains(a.reason, "driver") || contains(a.reason, "libcuda") ||
              contains(a.reason, "initialisation"))
      << a.reason;
  std::mt19937 rng(1);
  for (const KernelEntry& e : kernel_set().entries) {
    NodeGraph ng(std::string(e.op), e.since);
    ng.in(Host::random(DType::kFloat, {2, 3}, rng)).out(DType::kFloat, {2, 3});
    const std::optional<std::string> why = e.supports(ng.g, *ng.node);
    ASSERT_TRUE(why.has_value()) << e.op;
    EXPECT_TRUE(contains(*why, a.reason)) << e.op << ": " << *why;
  }
}

TEST(CudaKernelSet, WithoutAGpuTheDeviceCopySaysWhy) {
  const Availability& a = cached_availability();
  if (a.available) GTEST_SKIP() << "a CUDA device is present";
  kernel_set();
  float x[2] = {1, 2}, y[2] = {};
  try {
    copy_bytes(y, Device{DeviceKind::kCuda, 0}, x, Device{}, sizeof x);
    ADD_FAILURE() << "copy_bytes to cuda:0 did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDeviceUnavailable) << e.what();
    EXPECT_TRUE(contains(e.what(), a.reason)) << e.what();  // not "no copy is registered"
  }
}

TEST(CudaKernelSet, TheFirstCallRegistersThePoolOfDeviceZero) {
  GEON_REQUIRE_CUDA();
  kernel_set();
  Allocator* pool = find_allocator(Device{DeviceKind::kCuda, 0});
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool, &allocator(0));
}

TEST(CudaKernelSet, SupportsAcceptsEngineNodesAndRefusesOthersWithReasons) {
  GEON_REQUIRE_CUDA();
  const KernelSet& set = kernel_set();
  std::mt19937 rng(2);
  const Host f = Host::random(DType::kFloat, {2, 3}, rng);
  {
    NodeGraph ng("Add", 14);
    ng.in(f).in(f).out(DType::kFloat, {2, 3});
    EXPECT_EQ(ng.supports(set), std::nullopt);
  }
  {
    NodeGraph ng("Identity", 16);
    ng.in(Host{row_major(DType::kString, Dims{2}), nullptr}).out(DType::kString, {2});
    ASSERT_TRUE(ng.supports(set));
    EXPECT_TRUE(contains(*ng.supports(set), "string")) << *ng.supports(set);
  }
  {
    NodeGraph ng("Exp", 13);
    ng.in(Host::random(DType::kInt32, {2}, rng)).out(DType::kInt32, {2});
    ASSERT_TRUE(ng.supports(set));
    EXPECT_TRUE(contains(*ng.supports(set), "exp")) << *ng.supports(set);
  }
  {
    NodeGraph ng("Transpose", 13);
    ng.in(f).out(DType::kFloat, {3, 2}).attr_ints("perm", {0, 0});
    ASSERT_TRUE(ng.supports(set));
    EXPECT_TRUE(contains(*ng.supports(set), "perm")) << *ng.supports(set);
  }
  {
    NodeGraph ng("ReduceSum", 13);
    ng.in(f).in(cpu::testing::ints({2}), /*constant=*/true).out(DType::kFloat, {2});
    ASSERT_TRUE(ng.supports(set)) << "axis 2 of a rank-2 input";
    EXPECT_TRUE(contains(*ng.supports(set), "out of range")) << *ng.supports(set);
  }
  {
    NodeGraph ng("ReduceSum", 13);
    ng.in(f).in(cpu::testing::ints({1}), /*constant=*/false).out(DType::kFloat, {2});
    ASSERT_TRUE(ng.supports(set)) << "axes from a run-time input";
    EXPECT_TRUE(contains(*ng.supports(set), "constant")) << *ng.supports(set);
  }
  {
    NodeGraph ng("Sum", 13);
    for (int i = 0; i < 7; ++i) ng.in(f);
    ng.out(DType::kFloat, {2, 3});
    ASSERT_TRUE(ng.supports(set)) << "more inputs than one pass takes";
  }
  {
    NodeGraph ng("BitShift", 11);
    const Host u = Host::random(DType::kUInt8, {2}, rng, 0, 4);
    ng.in(u).in(u).out(DType::kUInt8, {2});
    ASSERT_TRUE(ng.supports(set)) << "no direction";
  }
}

TEST(CudaKernelSet, AKernelGivenHostMemoryFailsNamingTheNode) {
  GEON_REQUIRE_CUDA();
  std::mt19937 rng(3);
  NodeGraph ng("Relu", 14);
  ng.node->name = "the_relu";
  ng.in(Host::random(DType::kFloat, {4}, rng)).out(DType::kFloat, {4});
  const KernelEntry* e = find_kernel(kernel_set(), *ng.node);
  ASSERT_NE(e, nullptr);
  // The CPU harness's context hands out host memory: the kernel must refuse it, not read it.
  cpu::testing::FakeContext ctx(ng.inputs, {DType::kFloat});
  try {
    e->create(ng.g, *ng.node)->compute(ctx);
    ADD_FAILURE() << "a kernel read host memory as device memory";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ErrorCode::kInvalidArgument) << err.what();
    EXPECT_TRUE(contains(err.what(), "the_relu")) << err.what();
    EXPECT_TRUE(contains(err.what(), "host")) << err.what();
  }
}

}  // namespace
}  // namespace geon::cuda::testing
