// Offsets from lifetimes: views fold into their root, in-place outputs join their input's
// buffer, then a sweep over the steps hands each buffer the best-fitting free region of its
// device's arena (growing the arena only when nothing fits).
#include "core/runtime/memory_plan.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <queue>
#include <string>

#include "core/base/error.h"

namespace geon {
namespace {

// A region several values share over time (one value, or an in-place chain).
struct Buffer {
  int first = 0, end = 0;  // live steps, both included
  int joined_at = -1;      // the step of the last in-place join: one output per step
  size_t bytes = 0;
  int arena = 0;
  size_t offset = 0;
};

// Free regions of one arena, by offset; `top` is the end of the used part.
class FreeList {
 public:
  size_t allocate(size_t need) {
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it)
      if (it->second >= need && (best == free_.end() || it->second < best->second)) best = it;
    if (best == free_.end()) {
      const size_t at = top_;
      top_ += need;
      peak_ = std::max(peak_, top_);
      return at;
    }
    const size_t at = best->first, left = best->second - need;
    free_.erase(best);
    if (left) free_.emplace(at + need, left);
    return at;
  }
  void release(size_t at, size_t bytes) {
    auto next = free_.lower_bound(at);
    if (next != free_.end() && next->first == at + bytes) {
      bytes += next->second;
      next = free_.erase(next);
    }
    if (next != free_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == at) {
        at = prev->first;
        bytes += prev->second;
        free_.erase(prev);
      }
    }
    if (at + bytes == top_)
      top_ = at;  // the top region is free again: shrink, so the next growth reuses it
    else
      free_.emplace(at, bytes);
  }
  size_t peak() const { return peak_; }

 private:
  std::map<size_t, size_t> free_;
  size_t top_ = 0, peak_ = 0;
};

int arena_for(std::vector<Arena>& arenas, Device d) {
  for (size_t a = 0; a < arenas.size(); ++a)
    if (arenas[a].device == d) return static_cast<int>(a);
  arenas.push_back({d, 0});
  return static_cast<int>(arenas.size()) - 1;
}

// The root of each value's alias chain (itself when it is no view).
std::vector<int> alias_roots(std::span<const PlanValue> values) {
  const int n = static_cast<int>(values.size());
  std::vector<int> root(n);
  for (int i = 0; i < n; ++i) {
    int r = i;
    for (int hops = 0; values[r].alias_of >= 0; ++hops) {
      require(values[r].alias_of < n,
              "plan_memory: value " + std::to_string(r) + " is a view of a value out of range");
      require(hops < n, "plan_memory: alias cycle through value " + std::to_string(i));
      r = values[r].alias_of;
    }
    root[i] = r;
  }
  return root;
}

// The last step each root's memory is needed: its own last use or any of its views'.
std::vector<int> extended_ends(std::span<const PlanValue> values, const std::vector<int>& root) {
  std::vector<int> end(values.size());
  for (size_t i = 0; i < values.size(); ++i) end[i] = values[i].last;
  for (size_t i = 0; i < values.size(); ++i) end[root[i]] = std::max(end[root[i]], values[i].last);
  return end;
}

bool in_arena(const PlanValue& v) { return !v.external && v.bytes.has_value(); }

}  // namespace

size_t MemoryPlan::peak_bytes(Device d) const {
  for (const Arena& a : arenas)
    if (a.device == d) return a.peak_bytes;
  return 0;
}

MemoryPlan plan_memory(std::span<const PlanValue> values) {
  const int n = static_cast<int>(values.size());
  for (int i = 0; i < n; ++i) {
    const PlanValue& v = values[i];
    require(v.external || v.alias_of >= 0 || v.last >= v.first,
            "plan_memory: value " + std::to_string(i) + " dies before it is produced");
    for (int c : v.inplace)
      require(c >= 0 && c < n, "plan_memory: in-place candidate out of range");
  }
  const std::vector<int> root = alias_roots(values);
  const std::vector<int> end = extended_ends(values, root);

  MemoryPlan plan;
  plan.slots.resize(n);
  std::vector<int> order;
  for (int i = 0; i < n; ++i)
    if (root[i] == i && in_arena(values[i])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return values[a].first < values[b].first; });

  // In-place first: an output joins the buffer of an input whose memory (views included)
  // dies at the output's step, when the input was produced earlier and is large enough.
  std::vector<Buffer> bufs;
  std::vector<int> buf_of(n, -1);
  for (int r : order) {
    const PlanValue& v = values[r];
    const size_t need = align_up(*v.bytes);
    const int arena = arena_for(plan.arenas, v.device);
    int chosen = -1;
    for (int c : v.inplace) {
      if (c == r || root[c] != c || buf_of[c] < 0) continue;
      const Buffer& b = bufs[buf_of[c]];
      if (b.arena == arena && b.end == v.first && b.joined_at != v.first &&
          values[c].first < v.first && b.bytes >= need) {
        chosen = buf_of[c];
        plan.in_place.emplace_back(r, c);
        break;
      }
    }
    if (chosen >= 0) {
      bufs[chosen].end = std::max(bufs[chosen].end, end[r]);
      bufs[chosen].joined_at = v.first;
    } else {
      chosen = static_cast<int>(bufs.size());
      bufs.push_back({v.first, end[r], -1, need, arena, 0});
    }
    buf_of[r] = chosen;
  }

  // The sweep: buffers in order of first step (larger first within a step, which packs
  // better); before each, release what died at an earlier step.
  std::vector<int> by_start(bufs.size());
  for (size_t b = 0; b < bufs.size(); ++b) by_start[b] = static_cast<int>(b);
  std::stable_sort(by_start.begin(), by_start.end(), [&](int a, int b) {
    return bufs[a].first != bufs[b].first ? bufs[a].first < bufs[b].first
                                          : bufs[a].bytes > bufs[b].bytes;
  });
  std::vector<FreeList> free_lists(plan.arenas.size());
  auto later_end = [&](int a, int b) { return bufs[a].end > bufs[b].end; };
  std::priority_queue<int, std::vector<int>, decltype(later_end)> live(later_end);
  for (int b : by_start) {
    Buffer& buf = bufs[b];
    while (!live.empty() && bufs[live.top()].end < buf.first) {
      const Buffer& dead = bufs[live.top()];
      free_lists[dead.arena].release(dead.offset, dead.bytes);
      live.pop();
    }
    if (buf.bytes == 0) continue;
    buf.offset = free_lists[buf.arena].allocate(buf.bytes);
    live.push(b);
  }
  for (size_t a = 0; a < plan.arenas.size(); ++a) plan.arenas[a].peak_bytes = free_lists[a].peak();

  for (int i = 0; i < n; ++i) {
    Slot& s = plan.slots[i];
    if (root[i] != i) {
      s.kind = SlotKind::kView;
      s.base = root[i];
      if (buf_of[root[i]] >= 0) {
        s.arena = bufs[buf_of[root[i]]].arena;
        s.offset = bufs[buf_of[root[i]]].offset;
      }
    } else if (buf_of[i] >= 0) {
      s = {SlotKind::kArena, bufs[buf_of[i]].arena, bufs[buf_of[i]].offset,
           align_up(*values[i].bytes), -1};
    } else {
      s.kind = values[i].external ? SlotKind::kExternal : SlotKind::kRunTime;
    }
  }
  return plan;
}

InitializerPlan plan_initializers(std::span<const ConstantRequest> constants) {
  InitializerPlan plan;
  for (const ConstantRequest& c : constants) {
    const int a = arena_for(plan.arenas, c.device);
    const size_t bytes = align_up(c.bytes);
    plan.slots.push_back({SlotKind::kArena, a, plan.arenas[a].peak_bytes, bytes, -1});
    plan.arenas[a].peak_bytes += bytes;
  }
  return plan;
}

}  // namespace geon
