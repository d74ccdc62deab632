// Device scratch memory for one entry-point call (partials, copies of aliasing inputs,
// transfer staging), taken from the device's pool and returned to it stream-ordered when the
// call ends: the kernels that use it may still be queued, and the pool's events keep a later
// user on another stream from overtaking them.
#pragma once

#include <cstddef>

#include "kernels/cuda/allocator.h"

namespace geon::cuda {

class DeviceTemp {
 public:
  DeviceTemp(CachingAllocator& pool, StreamHandle stream, size_t bytes)
      : pool_(&pool), stream_(stream), bytes_(bytes), ptr_(pool.allocate(bytes, stream)) {}
  ~DeviceTemp() { pool_->deallocate(ptr_, bytes_, stream_); }
  DeviceTemp(const DeviceTemp&) = delete;
  DeviceTemp& operator=(const DeviceTemp&) = delete;

  void* get() const { return ptr_; }

 private:
  CachingAllocator* pool_;
  StreamHandle stream_;
  size_t bytes_;
  void* ptr_;
};

}  // namespace geon::cuda
