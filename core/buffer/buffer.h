// Storage and the references to it. Storage is bytes on one device, 64-byte aligned, obtained
// from that device's Allocator (the plug point a CUDA backend implements). A BufferRef is a
// slot the runtime rebinds at each run (seed 001): plans hold refs, not pointers, so user
// memory can be used in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace geon {

enum class DeviceKind : uint8_t { kHost = 0, kCuda = 1 };

struct Device {
  DeviceKind kind = DeviceKind::kHost;
  int index = 0;
  friend bool operator==(const Device&, const Device&) = default;
};
std::string to_string(Device d);

inline constexpr size_t kStorageAlignment = 64;

// One per device. Implementations must be thread-safe.
class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual Device device() const = 0;
  // Returns memory aligned to kStorageAlignment, or throws geon::Error (kResourceExhausted).
  virtual void* allocate(size_t bytes) = 0;
  virtual void deallocate(void* p, size_t bytes) = 0;
};

// The process-wide host allocator (aligned operator new underneath; storages of 2 MiB and up
// are mapped on their own with transparent huge pages: core/buffer/host_mapping.h).
Allocator& host_allocator();
// The host allocator for graph constants (TensorData: initializers, folded values): the same,
// but its large storages are mapped with small pages. A constant is written once, at session
// creation, and mostly read by the packers that copy it into their own layouts; a fresh huge
// page is cheap to fault in on bare metal but on a virtual machine whose host takes freed memory
// back (free page reporting) it cost several times its 512 small ones, and the weights'
// copy of a first session in a process met only such memory (BERT-base created in 0.7-1.2 s
// with huge pages, 0.2-0.27 s with small ones). What that costs a run: see buffer.cc.
Allocator& host_constants_allocator();

// Allocators by device, so code above the backends can find a device's allocator without
// linking the backend: the host one is always there; a backend registers its own (the CUDA one
// registers each device's caching pool when it is first created). Registering again for the
// same device replaces the entry. Thread-safe; the allocator must outlive its registration.
void register_allocator(Allocator& alloc);
// The allocator registered for d, or null.
Allocator* find_allocator(Device d);

// Owned bytes on one device; freed through the allocator that made them.
class Storage {
 public:
  Storage(Allocator& alloc, size_t bytes);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  size_t size() const { return size_; }
  Device device() const { return alloc_->device(); }

 private:
  Allocator* alloc_;
  std::byte* data_;
  size_t size_;
};

// A rebindable slot: either owned storage or memory the caller lends for one run. Binding
// checks nothing about dtype or shape; the executor checks those against the plan.
class BufferRef {
 public:
  BufferRef() = default;
  explicit BufferRef(std::shared_ptr<Storage> s) { bind(std::move(s)); }

  void bind(std::shared_ptr<Storage> s);
  void bind_external(void* data, size_t bytes, Device device);
  void unbind();

  bool bound() const { return bound_; }
  std::byte* data() const { return data_; }
  size_t size() const { return size_; }
  Device device() const { return device_; }
  // The owned storage, or null when external memory is bound.
  const std::shared_ptr<Storage>& storage() const { return owned_; }

 private:
  std::shared_ptr<Storage> owned_;
  std::byte* data_ = nullptr;
  size_t size_ = 0;
  Device device_{};
  bool bound_ = false;
};

}  // namespace geon
