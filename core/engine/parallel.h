// Splitting a loop plan across the thread pool: each part gets a sub-plan (one dim cut into a
// range) and runs it serially. Parts never share a destination element when the cut dim has
// a nonzero stride in the operand they write, which is how reductions stay race-free.
#pragma once

#include <functional>

#include "core/engine/loop_plan.h"
#include "core/engine/thread_pool.h"

namespace geon {

// Below this many elements per part, threads cost more than they save.
inline constexpr int64_t kMinElementsPerPart = 1 << 15;

// The plan restricted to [lo, hi) along dim `d`.
LoopPlan sub_plan(const LoopPlan& p, int d, int64_t lo, int64_t hi);

// The dim to cut for `parts` parts: the outermost whose length is at least `parts` and whose
// stride in operand `owned` is nonzero (any operand when owned < 0); else the longest such
// dim; -1 when no dim qualifies.
int split_dim(const LoopPlan& p, int parts, int owned);

// How many parts a plan of this size is worth on this pool.
int parts_for(const LoopPlan& p, const ThreadPool& pool);

// Runs body(sub_plan, part) for `parts` cuts of dim d (d < 0 or parts <= 1: one part, the
// whole plan), in parallel on pool.
void run_parts(ThreadPool& pool, const LoopPlan& p, int d, int parts,
               const std::function<void(const LoopPlan&, int)>& body);

}  // namespace geon
