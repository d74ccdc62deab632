// Small helpers over the CUDA runtime for the backend's host code: turning error codes into
// geon::Error and making a device current for a scope. Internal to kernels/cuda.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace geon::cuda {

// Throws geon::Error naming `what` and the CUDA error unless err is cudaSuccess: out of memory
// becomes kResourceExhausted, anything else kInternal. Clears the runtime's sticky last error.
void check_cuda(cudaError_t err, const std::string& what);

// Throws like check_cuda if the last kernel launch failed.
void check_launch(const std::string& what);

// Makes `device` the calling thread's current device until the scope ends.
class DeviceScope {
 public:
  explicit DeviceScope(int device);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
  bool changed_ = false;
};

}  // namespace geon::cuda
