// CUDA streams for the engine's entry points: an owning Stream, and the Options every entry
// point takes (device, stream, cast rules). Free of CUDA headers, so any C++ file can use it.
#pragma once

#include "core/dtype/scalar.h"
#include "kernels/cuda/allocator.h"

namespace geon::cuda {

struct Options {
  int device = 0;
  StreamHandle stream = nullptr;  // null: the legacy default stream
  CastOptions cast{};             // for stores into float8 and e8m0 destinations
};

// A blocking stream (it synchronises with the legacy default stream) on one device. Throws
// geon::Error(kDeviceUnavailable) without a usable device.
class Stream {
 public:
  explicit Stream(int device = 0);
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  StreamHandle get() const { return stream_; }
  int device() const { return device_; }
  // Options running on this stream.
  Options options() const { return Options{device_, stream_, {}}; }
  void synchronize() const;

 private:
  int device_ = 0;
  StreamHandle stream_ = nullptr;
};

// Waits until all work queued on opt.stream of opt.device has finished.
void synchronize(const Options& opt = {});

}  // namespace geon::cuda
