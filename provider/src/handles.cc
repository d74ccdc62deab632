// Handle values: a process-wide serial, so that no value is ever handed out twice.
#include "provider/src/handles.h"

#include <atomic>

namespace geon::provider {
namespace {

// 61 bits of serial: at a billion handles a second, it lasts over 70 years.
std::atomic<uint64_t> next_serial{1};

}  // namespace

uint64_t new_handle_value(HandleKind kind) noexcept {
  return (next_serial.fetch_add(1, std::memory_order_relaxed) << kHandleKindBits) |
         static_cast<uint64_t>(kind);
}

bool was_issued(uint64_t value, HandleKind kind) noexcept {
  const uint64_t serial = value >> kHandleKindBits;
  return (value & ((uint64_t{1} << kHandleKindBits) - 1)) == static_cast<uint64_t>(kind) &&
         serial != 0 && serial < next_serial.load(std::memory_order_relaxed);
}

}  // namespace geon::provider
