// The device copy registry: one slot per device kind, read under a lock (copies are rare
// enough, next to their size, that the lock costs nothing measurable).
#include "core/buffer/device_copy.h"

#include <cstring>
#include <mutex>

#include "core/base/error.h"

namespace geon {
namespace {

struct Registry {
  std::mutex mu;
  DeviceCopyFn fns[2] = {nullptr, nullptr};
};

Registry& registry() {
  static Registry r;
  return r;
}

DeviceCopyFn find(DeviceKind kind) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.fns[static_cast<int>(kind)];
}

}  // namespace

void register_device_copy(DeviceKind kind, DeviceCopyFn fn) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.fns[static_cast<int>(kind)] = fn;
}

void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t bytes) {
  if (bytes == 0) return;
  if (dst_device.kind == DeviceKind::kHost && src_device.kind == DeviceKind::kHost) {
    std::memcpy(dst, src, bytes);
    return;
  }
  DeviceKind kind = dst_device.kind != DeviceKind::kHost ? dst_device.kind : src_device.kind;
  DeviceCopyFn fn = find(kind);
  if (!fn) {
    fail(ErrorCode::kDeviceUnavailable,
         "no copy is registered for " + to_string(dst_device) + " <- " + to_string(src_device));
  }
  fn(dst, dst_device, src, src_device, bytes);
}

}  // namespace geon
