// The C ABI's handles: numbers, not pointers, looked up in a process-wide table per handle
// type, so that a NULL, released or foreign handle is refused with a status rather than
// dereferenced, and a call in flight keeps its object alive while another thread releases it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "provider/src/status.h"

namespace geon::provider {

// A handle's value is a serial that never repeats in the process, so a released handle never
// comes to mean a newer object (no ABA), with its type in the low bits, so that a handle of
// another type or a number never handed out is told apart from a released one in messages.
enum class HandleKind : uint64_t {
  kOptions = 1,
  kSession = 2,
  kResult = 3,
  kModel = 4,
  kCapability = 5,
};

// The low bits of a handle's value that hold its kind.
inline constexpr int kHandleKindBits = 3;

// A fresh handle value of this kind (never 0, never one handed out before in this process).
uint64_t new_handle_value(HandleKind kind) noexcept;
// Whether `value` has this kind and was handed out already (a table miss then means released).
bool was_issued(uint64_t value, HandleKind kind) noexcept;

// The live objects behind one handle type. Lookups take a shard's lock shared and copy one
// shared_ptr, so that concurrent calls on different handles, or on the same one, rarely wait
// on each other; add and remove take it exclusively.
template <typename Handle, typename Object, HandleKind kKind>
class HandleTable {
 public:
  // `what` names the type in messages ("session"); `release` is its release function.
  HandleTable(const char* what, const char* release) : what_(what), release_(release) {}

  // Registers obj and returns its new handle. Throws std::bad_alloc.
  Handle* add(std::shared_ptr<Object> obj) {
    const uint64_t v = new_handle_value(kKind);
    Shard& s = shard(v);
    std::unique_lock lock(s.mu);
    s.live.emplace(v, std::move(obj));
    return reinterpret_cast<Handle*>(static_cast<uintptr_t>(v));
  }

  // The object, or null for a null, released or foreign handle.
  std::shared_ptr<Object> find(const Handle* h) const noexcept {
    const uint64_t v = value_of(h);
    const Shard& s = shard(v);
    std::shared_lock lock(s.mu);
    const auto it = s.live.find(v);
    return it == s.live.end() ? nullptr : it->second;
  }

  // The object, or an ApiError (GEON_INVALID_ARGUMENT) saying why the argument is refused.
  std::shared_ptr<Object> require(const Handle* h, const char* arg) const {
    if (!h) api_fail(GEON_INVALID_ARGUMENT, std::string("argument '") + arg + "' is null");
    std::shared_ptr<Object> obj = find(h);
    if (obj) return obj;
    if (was_issued(value_of(h), kKind))
      api_fail(GEON_INVALID_ARGUMENT, std::string("argument '") + arg + "': the " + what_ +
                                          " handle was released (by " + release_ + ")");
    api_fail(GEON_INVALID_ARGUMENT,
             std::string("argument '") + arg + "' is not a " + what_ + " handle");
  }

  // Unregisters h and returns its object, so that the caller drops it outside the lock (the
  // object is freed there, or by the last call still holding it). Null for a null, released
  // or foreign handle: releasing twice is harmless.
  std::shared_ptr<Object> remove(const Handle* h) noexcept {
    const uint64_t v = value_of(h);
    Shard& s = shard(v);
    std::unique_lock lock(s.mu);
    const auto it = s.live.find(v);
    if (it == s.live.end()) return nullptr;
    std::shared_ptr<Object> obj = std::move(it->second);
    s.live.erase(it);
    return obj;
  }

 private:
  static constexpr size_t kShards = 16;

  // Own cache lines, so that runs on sessions of different shards share no lock word.
  struct alignas(64) Shard {
    mutable std::shared_mutex mu;
    std::unordered_map<uint64_t, std::shared_ptr<Object>> live;
  };

  static uint64_t value_of(const Handle* h) noexcept {
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h));
  }
  Shard& shard(uint64_t v) noexcept { return shards_[(v >> kHandleKindBits) % kShards]; }
  const Shard& shard(uint64_t v) const noexcept {
    return shards_[(v >> kHandleKindBits) % kShards];
  }

  const char* what_;
  const char* release_;
  std::array<Shard, kShards> shards_;
};

}  // namespace geon::provider
