// LRU list of memory plans; a handful of entries, so a linear search is the fast option.
#include "core/runtime/plan_cache.h"

namespace geon {

std::shared_ptr<const ShapePlan> PlanCache::find(const ShapeKey& key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->first == key) {
      entries_.splice(entries_.begin(), entries_, it);
      return entries_.front().second;
    }
  return nullptr;
}

void PlanCache::insert(ShapeKey key, std::shared_ptr<const ShapePlan> plan) {
  if (capacity_ == 0) return;
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->first == key) {
      entries_.erase(it);
      break;
    }
  entries_.emplace_front(std::move(key), std::move(plan));
  while (entries_.size() > capacity_) entries_.pop_back();
}

}  // namespace geon
