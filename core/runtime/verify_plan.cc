// The memory plan's debug check: the invariants the executor relies on, checked pairwise so
// that it shares no logic with the planner it checks.
#include <algorithm>
#include <string>

#include "core/base/error.h"
#include "core/runtime/memory_plan.h"

namespace geon {
namespace {

[[noreturn]] void broken(const std::string& what) {
  fail(ErrorCode::kInternal, "memory plan: " + what);
}

std::string name(int i) { return "value " + std::to_string(i); }

}  // namespace

void verify_plan(std::span<const PlanValue> values, const MemoryPlan& plan) {
  const int n = static_cast<int>(values.size());
  if (static_cast<int>(plan.slots.size()) != n) broken("one slot per value expected");
  std::vector<int> root(n), end(n);
  for (int i = 0; i < n; ++i) {
    int r = i;
    for (int hops = 0; values[r].alias_of >= 0 && hops <= n; ++hops) r = values[r].alias_of;
    root[i] = r;
    end[i] = values[i].last;
  }
  for (int i = 0; i < n; ++i) end[root[i]] = std::max(end[root[i]], values[i].last);

  for (int i = 0; i < n; ++i) {
    const PlanValue& v = values[i];
    const Slot& s = plan.slots[i];
    if (root[i] != i) {
      const Slot& b = plan.slots[root[i]];
      if (s.kind != SlotKind::kView || s.base != root[i]) broken(name(i) + " must view its root");
      if (b.kind == SlotKind::kArena && (s.arena != b.arena || s.offset != b.offset))
        broken(name(i) + " does not point at its base's memory");
    } else if (v.external) {
      if (s.kind != SlotKind::kExternal) broken(name(i) + " is external but was planned");
    } else if (!v.bytes) {
      if (s.kind != SlotKind::kRunTime) broken(name(i) + " has no size but was planned");
    } else {
      if (s.kind != SlotKind::kArena) broken(name(i) + " was not planned");
      if (s.arena < 0 || s.arena >= static_cast<int>(plan.arenas.size()))
        broken(name(i) + " has no arena");
      const Arena& a = plan.arenas[s.arena];
      if (!(a.device == v.device)) broken(name(i) + " is in another device's arena");
      if (s.offset % kArenaAlignment != 0) broken(name(i) + " is misaligned");
      if (s.bytes < *v.bytes) broken(name(i) + " got fewer bytes than it needs");
      if (s.offset + s.bytes > a.peak_bytes) broken(name(i) + " lies outside its arena");
    }
  }

  auto paired = [&](int out, int in) {
    return std::find(plan.in_place.begin(), plan.in_place.end(), std::pair{out, in}) !=
               plan.in_place.end() &&
           end[in] == values[out].first;
  };
  for (int i = 0; i < n; ++i) {
    const Slot& a = plan.slots[i];
    if (a.kind != SlotKind::kArena || a.bytes == 0) continue;
    for (int j = i + 1; j < n; ++j) {
      const Slot& b = plan.slots[j];
      if (b.kind != SlotKind::kArena || b.bytes == 0 || a.arena != b.arena) continue;
      const bool share_bytes = a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
      const bool share_time = values[i].first <= end[j] && values[j].first <= end[i];
      if (share_bytes && share_time && !paired(i, j) && !paired(j, i))
        broken(name(i) + " and " + name(j) + " are live at once in overlapping memory");
    }
  }
}

}  // namespace geon
