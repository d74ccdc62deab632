// Copies of plain bytes between devices, for the executor's transfers and per-device constant
// arenas. core cannot call a device runtime, so each backend registers the copy for its device
// kind (as it registers its allocators); host to host is memcpy.
#pragma once

#include <cstddef>

#include "core/buffer/buffer.h"

namespace geon {

// Copies `bytes` from src (on src_device) to dst (on dst_device); returns once dst holds the
// data and src may be reused. Must be thread-safe.
using DeviceCopyFn = void (*)(void* dst, Device dst_device, const void* src, Device src_device,
                              size_t bytes);

// Registers the copy used whenever either side is of `kind` (not kHost). Registering again
// replaces it. Thread-safe.
void register_device_copy(DeviceKind kind, DeviceCopyFn fn);

// memcpy between host buffers; otherwise the function registered for the non-host side's kind.
// Throws geon::Error (kDeviceUnavailable) when none is registered.
void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t bytes);

}  // namespace geon
