// Device memory: one caching pool per CUDA device behind core's Allocator interface, so
// Storage and BufferRef work for device memory as for host memory. Freed blocks stay cached
// and are handed out again without cudaMalloc, which is what makes repeated runs free of
// allocation calls. Reuse is stream-ordered: a block remembers the stream it was freed on
// and an event recorded there; a later user on another stream first waits for that event.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>

#include "core/buffer/buffer.h"

struct CUstream_st;  // cudaStream_t is CUstream_st*; this header stays free of CUDA headers
struct CUevent_st;

namespace geon::cuda {

using StreamHandle = CUstream_st*;  // null: the legacy default stream

struct PoolStats {
  int64_t device_allocations = 0;  // cudaMalloc calls so far
  int64_t bytes_reserved = 0;      // held from the device: in use + cached
  int64_t bytes_in_use = 0;
  int64_t bytes_cached = 0;
};

// Block sizes: requests are rounded up (512 bytes below 1 MiB, then 2 MiB steps) so that
// repeated, slightly different sizes share blocks; a cached block serves a request when it is
// at most a quarter (plus one rounding step) larger.
size_t pool_block_size(size_t bytes);
bool pool_block_fits(size_t block, size_t need);

class CachingAllocator final : public Allocator {
 public:
  explicit CachingAllocator(int device);
  ~CachingAllocator() override;
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  Device device() const override { return {DeviceKind::kCuda, device_}; }
  // Allocator interface: ordered on the legacy default stream, which every blocking stream
  // synchronises with, so memory freed this way is safe for any stream geon creates.
  void* allocate(size_t bytes) override;
  void deallocate(void* p, size_t bytes) override;

  // Stream-ordered forms: memory freed on `stream` may still be in use by work queued there.
  void* allocate(size_t bytes, StreamHandle stream);
  void deallocate(void* p, size_t bytes, StreamHandle stream);

  PoolStats stats() const;
  // Returns every cached block to the device (waiting for their last uses to finish).
  void release_cached();

 private:
  struct Block {
    void* ptr = nullptr;
    size_t size = 0;
    CUevent_st* freed = nullptr;  // recorded on `stream` when the block was freed
    StreamHandle stream = nullptr;
  };
  void release_cached_locked();

  int device_;
  mutable std::mutex mu_;
  std::multimap<size_t, Block> cached_;
  std::unordered_map<void*, Block> in_use_;
  PoolStats stats_;
};

// The pool of `device`, created (and registered with core's allocator registry) on first use.
// Throws geon::Error(kDeviceUnavailable) without a usable device.
CachingAllocator& allocator(int device = 0);

}  // namespace geon::cuda
