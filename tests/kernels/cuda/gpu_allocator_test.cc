// The caching device pool: pool sizing rules on every machine; on a GPU (skipped elsewhere,
// with the reason) device Storage through core's Allocator, reuse without cudaMalloc, the
// registry entry, and stream-ordered reuse across streams.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/cuda/allocator.h"
#include "kernels/cuda/engine.h"
#include "tests/kernels/cuda/gpu_util.h"

namespace geon::cuda {
namespace {

TEST(CudaPool, BlockSizesRoundUpAndReuseOnlyCloseFits) {
  EXPECT_EQ(pool_block_size(0), 512u);
  EXPECT_EQ(pool_block_size(1), 512u);
  EXPECT_EQ(pool_block_size(513), 1024u);
  EXPECT_EQ(pool_block_size((size_t{1} << 20) + 1), size_t{2} << 20);
  EXPECT_EQ(pool_block_size(size_t{3} << 20), size_t{4} << 20);
  EXPECT_TRUE(pool_block_fits(1024, 1024));
  EXPECT_TRUE(pool_block_fits(1536, 1024));
  EXPECT_FALSE(pool_block_fits(512, 1024));
  EXPECT_FALSE(pool_block_fits(size_t{64} << 20, 1024));
}

TEST(CudaPool, DeviceStorageIsReusedWithoutCudaMalloc) {
  GEON_REQUIRE_CUDA();
  CachingAllocator& pool = allocator(0);
  EXPECT_EQ(find_allocator(Device{DeviceKind::kCuda, 0}), &pool);
  { Storage warm(pool, 1 << 20); }
  const int64_t mallocs = pool.stats().device_allocations;
  for (int i = 0; i < 10; ++i) {
    Storage s(pool, 1 << 20);
    EXPECT_EQ(s.device(), (Device{DeviceKind::kCuda, 0}));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(s.data()) % kStorageAlignment, 0u);
  }
  EXPECT_EQ(pool.stats().device_allocations, mallocs);
  EXPECT_GE(pool.stats().bytes_cached, 1 << 20);
}

TEST(CudaPool, BlocksFreedOnOneStreamAreSafeOnAnother) {
  GEON_REQUIRE_CUDA();
  Stream a(0), b(0);
  CachingAllocator& pool = allocator(0);
  const int64_t n = 1 << 22;
  const TensorDesc d = row_major(DType::kFloat, std::vector<int64_t>{n});
  std::vector<float> host(n);
  for (int rep = 0; rep < 4; ++rep) {
    void* p = pool.allocate(n * 4, a.get());
    cuda::assign({d, p}, ConstOperand::scalar(1.0 + rep, DType::kFloat), a.options());
    pool.deallocate(p, n * 4, a.get());  // the fill may still be running on a
    void* q = pool.allocate(n * 4, b.get());
    cuda::assign({d, q}, ConstOperand::scalar(-7.0, DType::kFloat), b.options());
    cuda::assign({d, host.data()}, Device{}, {d, q}, Device{DeviceKind::kCuda, 0}, b.options());
    for (int64_t i = 0; i < n; i += 4099) ASSERT_EQ(host[i], -7.0f);
    pool.deallocate(q, n * 4, b.get());
  }
}

}  // namespace
}  // namespace geon::cuda
