// Helpers for the tests that need a GPU: the skip (with the probe's reason) on machines
// without one, and host test buffers mirrored byte for byte in device memory.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <memory>

#include "core/buffer/buffer.h"
#include "kernels/cuda/allocator.h"
#include "kernels/cuda/device.h"
#include "tests/core/engine/random_views.h"

#define GEON_REQUIRE_CUDA()                                                     \
  do {                                                                          \
    const ::geon::cuda::Availability& a_ = ::geon::cuda::cached_availability(); \
    if (!a_.available) GTEST_SKIP() << "no CUDA device: " << a_.reason;         \
  } while (0)

namespace geon::cuda::testing {

// A host test buffer's bytes in device memory (whole storage, so views keep their offsets).
class DeviceCopy {
 public:
  explicit DeviceCopy(const testing_views::Buffer& b)
      : storage_(std::make_shared<Storage>(allocator(0), b.bytes.size())) {
    EXPECT_EQ(cudaMemcpy(storage_->data(), b.bytes.data(), b.bytes.size(), cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  void* data() const { return storage_->data(); }
  // The device bytes back into a copy of b.
  testing_views::Buffer download(const testing_views::Buffer& b) const {
    testing_views::Buffer out = b;
    EXPECT_EQ(
        cudaMemcpy(out.bytes.data(), storage_->data(), out.bytes.size(), cudaMemcpyDeviceToHost),
        cudaSuccess);
    return out;
  }

 private:
  std::shared_ptr<Storage> storage_;
};

}  // namespace geon::cuda::testing
