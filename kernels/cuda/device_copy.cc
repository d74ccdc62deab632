// Device copies through the CUDA runtime. The copy is queued on the legacy default stream,
// which every stream geon creates synchronises with, so it is ordered after kernels that wrote
// the source; waiting for that stream gives the registry's "dst holds the data" contract.
#include "kernels/cuda/device_copy.h"

#include <cuda_runtime_api.h>

#include <mutex>
#include <string>

#include "core/base/error.h"
#include "core/buffer/device_copy.h"
#include "kernels/cuda/device.h"
#include "kernels/cuda/runtime.h"

namespace geon::cuda {

void copy_device_bytes(void* dst, Device dst_device, const void* src, Device src_device,
                       size_t bytes) {
  const bool dst_cuda = dst_device.kind == DeviceKind::kCuda;
  const bool src_cuda = src_device.kind == DeviceKind::kCuda;
  require(dst_cuda || src_cuda, [&] {
    return "CUDA device copy between " + to_string(dst_device) + " and " + to_string(src_device) +
           ": neither side is a CUDA device";
  });
  if (dst_cuda) require_device(dst_device.index);
  if (src_cuda) require_device(src_device.index);
  if (bytes == 0) return;
  require(dst != nullptr && src != nullptr, "CUDA device copy: a null pointer");
  const std::string what = "copying " + std::to_string(bytes) + " bytes " + to_string(src_device) +
                           " -> " + to_string(dst_device);
  DeviceScope scope(dst_cuda ? dst_device.index : src_device.index);
  if (dst_cuda && src_cuda && dst_device.index != src_device.index) {
    check_cuda(cudaMemcpyPeerAsync(dst, dst_device.index, src, src_device.index, bytes, nullptr),
               what);
  } else {
    const cudaMemcpyKind kind = dst_cuda && src_cuda ? cudaMemcpyDeviceToDevice
                                : dst_cuda           ? cudaMemcpyHostToDevice
                                                     : cudaMemcpyDeviceToHost;
    check_cuda(cudaMemcpyAsync(dst, src, bytes, kind, nullptr), what);
  }
  check_cuda(cudaStreamSynchronize(nullptr), what);
}

void install_device_copy() {
  static std::once_flag once;
  std::call_once(once, [] { register_device_copy(DeviceKind::kCuda, copy_device_bytes); });
}

}  // namespace geon::cuda
