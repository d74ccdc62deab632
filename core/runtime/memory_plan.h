// The memory planner (seed 001: storage shared by tensors whose lifetimes do not overlap):
// given each value's size, device and lifetime over the execution order, one arena per device
// with 64-byte aligned offsets reused as values die; views take no memory; kernels that allow
// it write in place into an input dying at that step. Also the initializer arena.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "core/buffer/buffer.h"

namespace geon {

inline constexpr size_t kArenaAlignment = 64;

// One value as the planner sees it. Steps are positions in the execution order; a value is
// live over [first, last], both included, so an output never shares memory with an input of
// the step producing it unless that is recorded as in-place.
struct PlanValue {
  std::optional<size_t> bytes;  // nullopt: known only at run time, planned then
  Device device{};
  int first = 0;             // the step producing it
  int last = 0;              // the last step reading it (graph outputs: past the last step)
  bool external = false;     // graph inputs and constants: user memory or the initializer arena
  int alias_of = -1;         // a view of that value: no memory of its own, extends its lifetime
  std::vector<int> inplace;  // inputs of its step the kernel may overwrite with it, preferred first
};

enum class SlotKind : uint8_t {
  kArena,     // at `offset` in arenas[arena]
  kView,      // a view of `base` (its alias chain's root): the base's arena/offset, or arena -1
              // when the base is not in an arena
  kRunTime,   // size unknown: allocated at run time
  kExternal,  // not planned here
};

struct Slot {
  SlotKind kind = SlotKind::kExternal;
  int arena = -1;
  size_t offset = 0;
  size_t bytes = 0;  // reserved bytes (aligned); 0 for views
  int base = -1;     // for views: the value whose memory it is
};

struct Arena {
  Device device{};
  size_t peak_bytes = 0;  // the arena's size
};

struct MemoryPlan {
  std::vector<Slot> slots;    // per value
  std::vector<Arena> arenas;  // one per device, in order of first use
  // (output, input): the output was placed in the memory of the input, which dies there.
  std::vector<std::pair<int, int>> in_place;

  // The arena size for d, 0 when nothing is planned there.
  size_t peak_bytes(Device d) const;
};

constexpr size_t align_up(size_t n, size_t a = kArenaAlignment) { return (n + a - 1) / a * a; }

// Plans `values`. Throws geon::Error (kInvalidArgument) for a malformed input: alias cycles,
// indices out of range, last < first.
MemoryPlan plan_memory(std::span<const PlanValue> values);

// Debug check: every arena slot is aligned and inside its arena, views point at their root,
// and no two values whose (view-extended) lifetimes overlap share bytes, except a recorded
// in-place pair at its one shared step. Throws geon::Error (kInternal) naming the values.
void verify_plan(std::span<const PlanValue> values, const MemoryPlan& plan);

// The initializer arena: every constant at an aligned offset in its device's arena.
struct ConstantRequest {
  size_t bytes = 0;
  Device device{};
};
struct InitializerPlan {
  std::vector<Slot> slots;  // per request, all kArena
  std::vector<Arena> arenas;
};
InitializerPlan plan_initializers(std::span<const ConstantRequest> constants);

}  // namespace geon
