// The CUDA side of core's device copy registry (core/buffer/device_copy.h): plain bytes
// between host and CUDA memory, or between two CUDA devices.
#pragma once

#include <cstddef>

#include "core/buffer/buffer.h"

namespace geon::cuda {

// Copies bytes between host and cuda:N, or between CUDA devices; returns once dst holds the
// data. Throws geon::Error(kDeviceUnavailable) without a usable device.
void copy_device_bytes(void* dst, Device dst_device, const void* src, Device src_device,
                       size_t bytes);

// Registers copy_device_bytes for DeviceKind::kCuda. Idempotent and thread-safe.
void install_device_copy();

}  // namespace geon::cuda
