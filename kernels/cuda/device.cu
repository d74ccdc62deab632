// CUDA availability probe. The runtime is linked statically; it loads the driver library
// (libcuda.so.1) itself and reports its absence as an error code, which becomes the reason.
#include <cuda_runtime.h>

#include <mutex>
#include <vector>

#include "core/base/error.h"
#include "kernels/cuda/device.h"
#include "kernels/cuda/runtime.h"

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
  if (!a.available) {
    a.device_count = 0;
    cudaGetLastError();  // the probe's failure must not surface as a later call's error
  }
  return a;
}

const Availability& cached_availability() {
  static const Availability a = availability();
  return a;
}

void require_device(int device) {
  const Availability& a = cached_availability();
  if (!a.available) fail(ErrorCode::kDeviceUnavailable, "CUDA backend unavailable: " + a.reason);
  require(device >= 0 && device < a.device_count, "CUDA device " + std::to_string(device) +
                                                      " does not exist (" +
                                                      std::to_string(a.device_count) + " devices)");
}

int multiprocessor_count(int device) {
  require_device(device);
  static std::mutex mu;
  static std::vector<int> counts;
  std::lock_guard<std::mutex> lock(mu);
  if (counts.empty()) counts.assign(cached_availability().device_count, 0);
  if (counts[device] == 0) {
    int n = 0;
    check_cuda(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device),
               "querying the multiprocessor count");
    counts[device] = n > 0 ? n : 1;
  }
  return counts[device];
}

}  // namespace geon::cuda
