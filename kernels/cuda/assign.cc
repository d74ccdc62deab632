// assign on CUDA: device to device as one cast or copy kernel, and host<->device transfers that
// convert on whichever side keeps the bytes on the bus fewer, staging through dense buffers.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "core/engine/checks.h"
#include "kernels/cuda/device.h"
#include "kernels/cuda/engine.h"
#include "kernels/cuda/launch.h"
#include "kernels/cuda/runtime.h"
#include "kernels/cuda/temp.h"

namespace geon::cuda {
namespace {

// The CPU assign's argument rules, shared by every direction.
void check_assign(const Operand& dst, const ConstOperand& src) {
  require(is_numeric(dst.desc.dtype) && is_numeric(src.desc.dtype), [&] {
    return std::string("assign: ") + std::string(dtype_name(src.desc.dtype)) + " to " +
           std::string(dtype_name(dst.desc.dtype)) + " is not a numeric conversion";
  });
  require(dst.desc.strides.size() == dst.desc.shape.size() &&
              src.desc.strides.size() == src.desc.shape.size(),
          "assign: descriptions with mismatched shape and strides");
  const TensorDesc* descs[] = {&dst.desc, &src.desc};
  const Dims shape = loop_shape(descs);
  require(static_cast<int>(shape.size()) == dst.desc.rank() &&
              std::equal(shape.begin(), shape.end(), dst.desc.shape.begin()),
          [&] {
            return "assign: source " + to_string(src.desc) + " does not broadcast to destination " +
                   to_string(dst.desc);
          });
}

// Dense, gap-free and starting on a byte: memcpy-able as it stands.
bool dense(const TensorDesc& d) {
  return is_contiguous(d) && (d.offset * dtype_bits(d.dtype)) % 8 == 0;
}

size_t bytes_of(const TensorDesc& d) {
  return static_cast<size_t>(dtype_bytes_for(d.dtype, element_count(d)));
}

const char* first_byte(const void* base, const TensorDesc& d) {
  return static_cast<const char*>(base) + d.offset * dtype_bits(d.dtype) / 8;
}

// Page-locked host memory is read by the DMA engine after the call returns; pageable memory
// is staged before cudaMemcpyAsync returns.
bool page_locked(const void* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

void host_to_device(const Operand& dst, const ConstOperand& src, const Options& opt) {
  const cudaStream_t s = opt.stream;
  // Convert on the host when the destination's dtype is the narrower one.
  const bool convert_on_host = dtype_bits(dst.desc.dtype) < dtype_bits(src.desc.dtype);
  const DType wire = convert_on_host ? dst.desc.dtype : src.desc.dtype;
  TensorDesc packed = row_major(wire, src.desc.shape);
  const void* host = nullptr;
  std::vector<std::byte> staging;
  if (wire == src.desc.dtype && src.data != nullptr && dense(src.desc)) {
    host = first_byte(src.data, src.desc);
  } else {
    staging.resize(std::max<size_t>(bytes_of(packed), 16));
    geon::assign({packed, staging.data()}, src, EngineOptions{nullptr, opt.cast});
    host = staging.data();
  }
  const size_t bytes = bytes_of(packed);
  const bool direct = wire == dst.desc.dtype && dense(dst.desc) && dst.desc.shape == src.desc.shape;
  if (direct) {
    check_cuda(cudaMemcpyAsync(const_cast<char*>(first_byte(dst.data, dst.desc)), host, bytes,
                               cudaMemcpyHostToDevice, s),
               "copying to the device");
  } else {
    CachingAllocator& pool = allocator(opt.device);
    DeviceTemp wire_buffer(pool, s, bytes);
    check_cuda(cudaMemcpyAsync(wire_buffer.get(), host, bytes, cudaMemcpyHostToDevice, s),
               "copying to the device");
    cuda::assign(dst, ConstOperand{packed, wire_buffer.get()}, opt);
  }
  if (staging.empty() && page_locked(host))
    check_cuda(cudaStreamSynchronize(s), "waiting for a copy from page-locked memory");
}

void device_to_host(const Operand& dst, const ConstOperand& src, const Options& opt) {
  const cudaStream_t s = opt.stream;
  // Convert on the device when the destination's dtype is the narrower one.
  const bool convert_on_device = dtype_bits(dst.desc.dtype) < dtype_bits(src.desc.dtype);
  const DType wire = convert_on_device ? dst.desc.dtype : src.desc.dtype;
  const TensorDesc packed = row_major(wire, src.desc.shape);
  const size_t bytes = bytes_of(packed);
  const bool direct = wire == dst.desc.dtype && dense(dst.desc) && dst.desc.shape == src.desc.shape;
  std::vector<std::byte> staging;
  char* host = nullptr;
  if (direct) {
    host = const_cast<char*>(first_byte(dst.data, dst.desc));
  } else {
    staging.resize(std::max<size_t>(bytes, 16));
    host = reinterpret_cast<char*>(staging.data());
  }
  std::unique_ptr<DeviceTemp> wire_buffer;
  const void* device = nullptr;
  if (wire == src.desc.dtype && src.data != nullptr && dense(src.desc)) {
    device = first_byte(src.data, src.desc);
  } else {
    wire_buffer = std::make_unique<DeviceTemp>(allocator(opt.device), s, bytes);
    cuda::assign({packed, wire_buffer->get()}, src, opt);
    device = wire_buffer->get();
  }
  check_cuda(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, s),
             "copying from the device");
  check_cuda(cudaStreamSynchronize(s), "waiting for a copy from the device");
  if (!direct)
    geon::assign(dst, ConstOperand{packed, staging.data()}, EngineOptions{nullptr, opt.cast});
}

}  // namespace

void assign(const Operand& dst, const ConstOperand& src, const Options& opt) {
  require_device(opt.device);
  check_assign(dst, src);
  if (element_count(dst.desc) == 0) return;
  check_operand(dst.desc, dst.data, "assign destination");
  check_operand(src.desc, src.base(), "assign source");
  check_not_self_overlapping(dst.desc);
  if (src.data == dst.data && src.desc == dst.desc) return;  // the very same view
  DeviceScope scope(opt.device);
  ConstOperand from = src;
  std::unique_ptr<DeviceTemp> copy;
  if (src.data != nullptr && ranges_intersect(src.data, src.desc, dst.data, dst.desc)) {
    const TensorDesc cd = row_major(src.desc.dtype, src.desc.shape);
    copy = std::make_unique<DeviceTemp>(allocator(opt.device), opt.stream, bytes_of(cd));
    cuda::assign({cd, copy->get()}, src, opt);
    from = ConstOperand{cd, copy->get()};
  }
  const CastPlan plan = plan_cast(dst, from, opt.cast, multiprocessor_count(opt.device));
  if (plan.grid.blocks == 0) return;
  if (plan.copy_bytes > 0)
    launch_copy(plan.pass, plan.copy_bytes, plan.grid, opt.stream);
  else
    launch_cast(plan.pass, plan.grid, opt.stream);
  check_launch("an assign kernel");
}

void assign(const Operand& dst, Device dst_device, const ConstOperand& src, Device src_device,
            const Options& opt) {
  const bool dst_cuda = dst_device.kind == DeviceKind::kCuda;
  const bool src_cuda = src_device.kind == DeviceKind::kCuda;
  Options o = opt;
  o.device = dst_cuda ? dst_device.index : src_cuda ? src_device.index : opt.device;
  require_device(o.device);
  if (dst_cuda && src_cuda && dst_device.index != src_device.index)
    fail(ErrorCode::kNotSupported, "assign: copies between two CUDA devices (" +
                                       to_string(src_device) + " to " + to_string(dst_device) +
                                       ") are not supported");
  check_assign(dst, src);
  if (element_count(dst.desc) == 0) return;
  check_operand(dst.desc, dst.data, "assign destination");
  check_operand(src.desc, src.base(), "assign source");
  if (dst_cuda && src_cuda) return cuda::assign(dst, src, o);
  if (!dst_cuda && !src_cuda) return geon::assign(dst, src, EngineOptions{nullptr, o.cast});
  check_not_self_overlapping(dst.desc);
  DeviceScope scope(o.device);
  if (dst_cuda)
    host_to_device(dst, src, o);
  else
    device_to_host(dst, src, o);
}

}  // namespace geon::cuda
