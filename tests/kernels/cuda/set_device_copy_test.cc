// The CUDA device copy registered with core (core/buffer/device_copy.h): bytes survive a
// host -> device -> device -> host round trip through copy_bytes, including an unaligned
// length and a zero-byte copy; a copy with no CUDA side is refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

#include "core/base/error.h"
#include "core/buffer/device_copy.h"
#include "kernels/cuda/device_copy.h"
#include "kernels/cuda/kernel_set.h"
#include "tests/kernels/cuda/gpu_util.h"

namespace geon::cuda::testing {
namespace {

const Device kHost{};
const Device kCuda0{DeviceKind::kCuda, 0};

TEST(CudaDeviceCopy, RoundTripThroughTheRegistry) {
  GEON_REQUIRE_CUDA();
  kernel_set();  // registers the copy
  for (size_t bytes : {size_t{1}, size_t{1000003}, size_t{4096}}) {
    std::vector<uint8_t> src(bytes), back(bytes, 0);
    std::iota(src.begin(), src.end(), uint8_t{7});
    Storage a(allocator(0), bytes), b(allocator(0), bytes);
    copy_bytes(a.data(), kCuda0, src.data(), kHost, bytes);
    copy_bytes(b.data(), kCuda0, a.data(), kCuda0, bytes);
    copy_bytes(back.data(), kHost, b.data(), kCuda0, bytes);
    EXPECT_EQ(back, src) << bytes << " bytes";
  }
  uint8_t one = 5;
  copy_bytes(nullptr, kCuda0, &one, kHost, 0);  // nothing to do, no pointer touched
}

TEST(CudaDeviceCopy, RefusesACopyWithNoCudaSide) {
  uint8_t x = 1, y = 0;
  try {
    copy_device_bytes(&y, kHost, &x, kHost, 1);
    ADD_FAILURE() << "a host-to-host copy went through the CUDA copy";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
  }
  EXPECT_EQ(y, 0);
}

}  // namespace
}  // namespace geon::cuda::testing
