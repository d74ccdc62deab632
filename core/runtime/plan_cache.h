// The executor's memory plans per shape key (the shapes of a run's inputs): a small
// least-recently-used list, since a model sees few distinct input shapes and each plan is
// cheap to rebuild. Not thread-safe on its own; the executable guards it with its mutex.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <utility>
#include <vector>

#include "core/runtime/memory_plan.h"

namespace geon {

// A memory plan together with the planner's input, so that it can be verified and reported.
struct ShapePlan {
  std::vector<PlanValue> values;  // per plan entry (graph values, then transfer copies)
  MemoryPlan plan;
};

// The shapes of a run's inputs flattened: each rank followed by its lengths.
using ShapeKey = std::vector<int64_t>;

class PlanCache {
 public:
  explicit PlanCache(size_t capacity) : capacity_(capacity) {}
  // The plan for key, now the most recently used; null when absent.
  std::shared_ptr<const ShapePlan> find(const ShapeKey& key);
  // Adds (or replaces) the plan for key, dropping the least recently used beyond capacity.
  void insert(ShapeKey key, std::shared_ptr<const ShapePlan> plan);
  size_t size() const { return entries_.size(); }

 private:
  size_t capacity_;
  std::list<std::pair<ShapeKey, std::shared_ptr<const ShapePlan>>> entries_;  // most recent first
};

}  // namespace geon
