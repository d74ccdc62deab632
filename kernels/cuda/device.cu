// CUDA availability probe. The runtime is linked statically; it loads the driver library
// (libcuda.so.1) itself and reports its absence as an error code, which becomes the reason.
#include <cuda_runtime.h>

#include "kernels/cuda/device.h"

namespace geon::cuda {

namespace {
std::string version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}
}  // namespace

Availability availability() {
  Availability a;
  cudaRuntimeGetVersion(&a.runtime_version);
  if (cudaDriverGetVersion(&a.driver_version) != cudaSuccess || a.driver_version == 0) {
    a.reason =
        "no CUDA driver: libcuda.so.1 was not found or did not load (geon's CUDA runtime is " +
        version_text(a.runtime_version) + ")";
    return a;
  }
  const cudaError_t err = cudaGetDeviceCount(&a.device_count);
  if (err == cudaErrorInsufficientDriver) {
    a.reason = "CUDA driver " + version_text(a.driver_version) + " is older than the runtime " +
               version_text(a.runtime_version) + " geon was built with";
  } else if (err == cudaErrorNoDevice || (err == cudaSuccess && a.device_count == 0)) {
    a.reason = "no CUDA device found (driver " + version_text(a.driver_version) + ")";
  } else if (err != cudaSuccess) {
    a.reason = std::string("CUDA initialisation failed: ") + cudaGetErrorString(err);
  } else {
    a.available = true;
  }
  if (!a.available) a.device_count = 0;
  return a;
}

}  // namespace geon::cuda
