// Streams and synchronisation.
#include "kernels/cuda/stream.h"

#include <cuda_runtime_api.h>

#include <utility>

#include "kernels/cuda/device.h"
#include "kernels/cuda/runtime.h"

namespace geon::cuda {

Stream::Stream(int device) : device_(device) {
  require_device(device);
  DeviceScope scope(device);
  check_cuda(cudaStreamCreate(&stream_), "cudaStreamCreate");
}

Stream::~Stream() {
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

Stream::Stream(Stream&& other) noexcept
    : device_(other.device_), stream_(std::exchange(other.stream_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    device_ = other.device_;
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

void Stream::synchronize() const { cuda::synchronize(options()); }

void synchronize(const Options& opt) {
  require_device(opt.device);
  DeviceScope scope(opt.device);
  check_cuda(cudaStreamSynchronize(opt.stream), "synchronising a stream");
}

}  // namespace geon::cuda
