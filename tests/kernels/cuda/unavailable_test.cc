// Without a usable CUDA device (no driver, old driver, no GPU) every entry point of the CUDA
// backend throws geon::Error(kDeviceUnavailable) whose message carries the probe's reason,
// and the library itself loads and answers. Skipped, with a note, where a device exists.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/buffer/buffer.h"
#include "kernels/cuda/allocator.h"
#include "kernels/cuda/device.h"
#include "kernels/cuda/engine.h"

namespace geon::cuda {
namespace {

TEST(CudaUnavailable, EveryEntryPointThrowsDeviceUnavailableWithTheReason) {
  const Availability& a = cached_availability();
  if (a.available) GTEST_SKIP() << "a CUDA device is present: the unavailable path cannot run";
  ASSERT_FALSE(a.reason.empty());
  float x[4] = {1, 2, 3, 4}, y[4] = {};
  const TensorDesc d = row_major(DType::kFloat, std::vector<int64_t>{4});
  const TensorDesc s = row_major(DType::kFloat, {});
  const DType f = DType::kFloat;
  ExprBuilder b(std::span<const DType>(&f, 1));
  b.apply("neg", {b.input(0)});
  const Expr e = b.build();
  const ConstOperand in[] = {{d, x}};
  const Device cuda0{DeviceKind::kCuda, 0};
  const std::vector<std::pair<std::string, std::function<void()>>> entry_points = {
      {"require_device", [] { require_device(0); }},
      {"multiprocessor_count", [] { multiprocessor_count(0); }},
      {"allocator", [] { allocator(0); }},
      {"CachingAllocator::allocate", [] { CachingAllocator(0).allocate(16); }},
      {"CachingAllocator::allocate(stream)",
       [] { CachingAllocator(0).allocate(16, StreamHandle{}); }},
      {"Stream", [] { Stream st(0); }},
      {"synchronize", [] { cuda::synchronize(); }},
      {"evaluate",
       [&] {
         cuda::evaluate(e, {d, y}, in);
       }},
      {"evaluate (reduce)",
       [&] {
         cuda::evaluate(e, {s, y}, in, Reduce::kSum);
       }},
      {"unary",
       [&] {
         cuda::unary("neg", {d, y}, {d, x});
       }},
      {"binary",
       [&] {
         cuda::binary("add", {d, y}, {d, x}, {d, x});
       }},
      {"ternary",
       [&] {
         cuda::ternary("clip", {d, y}, {d, x}, {d, x}, {d, x});
       }},
      {"reduce",
       [&] {
         cuda::reduce(Reduce::kMax, {s, y}, {d, x});
       }},
      {"assign",
       [&] {
         cuda::assign({d, y}, {d, x});
       }},
      {"assign host to device",
       [&] {
         cuda::assign({d, y}, cuda0, {d, x}, Device{});
       }},
      {"assign device to host",
       [&] {
         cuda::assign({d, y}, Device{}, {d, x}, cuda0);
       }},
      {"assign host to host",
       [&] {
         cuda::assign({d, y}, Device{}, {d, x}, Device{});
       }},
      // Argument errors do not mask the device's absence.
      {"evaluate with bad arguments",
       [&] {
         cuda::evaluate(e, {d, nullptr}, {});
       }},
  };
  for (const auto& [name, call] : entry_points) {
    try {
      call();
      ADD_FAILURE() << name << " did not throw";
    } catch (const Error& err) {
      EXPECT_EQ(err.code(), ErrorCode::kDeviceUnavailable) << name << ": " << err.what();
      EXPECT_NE(std::string(err.what()).find(a.reason), std::string::npos)
          << name << ": " << err.what();
    }
  }
  EXPECT_EQ(y[0], 0.0f);  // nothing ran
}

TEST(CudaUnavailable, TheHostAllocatorIsRegisteredOnEveryMachine) {
  EXPECT_EQ(find_allocator(Device{}), &host_allocator());
  if (!cached_availability().available) {
    EXPECT_EQ(find_allocator(Device{DeviceKind::kCuda, 0}), nullptr);
  }
}

}  // namespace
}  // namespace geon::cuda
