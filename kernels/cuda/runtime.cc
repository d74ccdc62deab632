// Error conversion and the current-device scope.
#include "kernels/cuda/runtime.h"

#include "core/base/error.h"

namespace geon::cuda {

void check_cuda(cudaError_t err, const std::string& what) {
  if (err == cudaSuccess) return;
  cudaGetLastError();
  const std::string text =
      what + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
  fail(err == cudaErrorMemoryAllocation ? ErrorCode::kResourceExhausted : ErrorCode::kInternal,
       "CUDA: " + text);
}

void check_launch(const std::string& what) { check_cuda(cudaGetLastError(), "launching " + what); }

DeviceScope::DeviceScope(int device) {
  check_cuda(cudaGetDevice(&previous_), "cudaGetDevice");
  if (previous_ != device) {
    check_cuda(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")");
    changed_ = true;
  }
}

DeviceScope::~DeviceScope() {
  if (changed_) cudaSetDevice(previous_);
}

}  // namespace geon::cuda
