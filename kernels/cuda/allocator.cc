// The caching device allocator.
#include "kernels/cuda/allocator.h"

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "core/base/error.h"
#include "kernels/cuda/device.h"
#include "kernels/cuda/runtime.h"

namespace geon::cuda {

size_t pool_block_size(size_t bytes) {
  constexpr size_t kSmallStep = 512, kLargeStep = size_t{2} << 20, kLarge = size_t{1} << 20;
  if (bytes == 0) bytes = 1;  // zero-byte storages still get a distinct pointer
  const size_t step = bytes < kLarge ? kSmallStep : kLargeStep;
  return (bytes + step - 1) / step * step;
}

bool pool_block_fits(size_t block, size_t need) {
  const size_t step = need < (size_t{1} << 20) ? 512 : (size_t{2} << 20);
  return block >= need && block - need <= need / 4 + step;
}

CachingAllocator::CachingAllocator(int device) : device_(device) {}

// Never runs for the process-wide pools (they outlive every Storage); a pool built directly
// gives its blocks back here.
CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> lock(mu_);
  release_cached_locked();
}

void* CachingAllocator::allocate(size_t bytes) { return allocate(bytes, nullptr); }

void CachingAllocator::deallocate(void* p, size_t bytes) { deallocate(p, bytes, nullptr); }

void* CachingAllocator::allocate(size_t bytes, StreamHandle stream) {
  require_device(device_);
  const size_t size = pool_block_size(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cached_.lower_bound(size);
  if (it != cached_.end() && pool_block_fits(it->first, size)) {
    Block b = it->second;
    if (b.stream != stream)  // its last user may still be running on another stream
      check_cuda(cudaStreamWaitEvent(stream, b.freed, 0), "waiting for a cached block");
    cached_.erase(it);
    b.stream = stream;
    in_use_[b.ptr] = b;
    stats_.bytes_cached -= static_cast<int64_t>(b.size);
    stats_.bytes_in_use += static_cast<int64_t>(b.size);
    return b.ptr;
  }
  DeviceScope scope(device_);
  void* p = nullptr;
  cudaError_t err = cudaMalloc(&p, size);
  if (err == cudaErrorMemoryAllocation) {  // give the cache back and try once more
    cudaGetLastError();
    release_cached_locked();
    err = cudaMalloc(&p, size);
  }
  check_cuda(err,
             "cudaMalloc of " + std::to_string(size) + " bytes on cuda:" + std::to_string(device_));
  Block b{p, size, nullptr, stream};
  cudaEvent_t ev = nullptr;
  err = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  if (err != cudaSuccess) {
    cudaFree(p);
    check_cuda(err, "creating a pool event");
  }
  b.freed = ev;
  in_use_[p] = b;
  ++stats_.device_allocations;
  stats_.bytes_reserved += static_cast<int64_t>(size);
  stats_.bytes_in_use += static_cast<int64_t>(size);
  return p;
}

// Must not throw (Storage's destructor calls it): failures, e.g. after the CUDA runtime has
// shut down at process exit, drop the block instead.
void CachingAllocator::deallocate(void* p, size_t, StreamHandle stream) {
  if (p == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = in_use_.find(p);
  if (it == in_use_.end()) return;  // not ours
  Block b = it->second;
  in_use_.erase(it);
  stats_.bytes_in_use -= static_cast<int64_t>(b.size);
  int previous = 0;
  const bool scoped = cudaGetDevice(&previous) == cudaSuccess;
  if (scoped && previous != device_) cudaSetDevice(device_);
  const cudaError_t err = cudaEventRecord(b.freed, stream);
  if (scoped && previous != device_) cudaSetDevice(previous);
  if (err != cudaSuccess) {
    cudaGetLastError();
    stats_.bytes_reserved -= static_cast<int64_t>(b.size);
    return;
  }
  b.stream = stream;
  cached_.emplace(b.size, b);
  stats_.bytes_cached += static_cast<int64_t>(b.size);
}

PoolStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void CachingAllocator::release_cached() {
  std::lock_guard<std::mutex> lock(mu_);
  release_cached_locked();
}

void CachingAllocator::release_cached_locked() {
  int previous = 0;
  const bool scoped = cudaGetDevice(&previous) == cudaSuccess;
  if (scoped && previous != device_) cudaSetDevice(device_);
  for (auto& [size, b] : cached_) {
    cudaEventSynchronize(b.freed);
    cudaEventDestroy(b.freed);
    cudaFree(b.ptr);
    stats_.bytes_reserved -= static_cast<int64_t>(b.size);
  }
  stats_.bytes_cached = 0;
  cached_.clear();
  cudaGetLastError();
  if (scoped && previous != device_) cudaSetDevice(previous);
}

CachingAllocator& allocator(int device) {
  require_device(device);
  // Never destroyed: device Storage may be freed during static destruction.
  static std::mutex mu;
  static auto* pools = new std::vector<CachingAllocator*>();
  std::lock_guard<std::mutex> lock(mu);
  if (pools->size() <= static_cast<size_t>(device)) pools->resize(device + 1, nullptr);
  CachingAllocator*& pool = (*pools)[device];
  if (pool == nullptr) {
    pool = new CachingAllocator(device);
    register_allocator(*pool);
  }
  return *pool;
}

}  // namespace geon::cuda
