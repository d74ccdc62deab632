// Plan splitting for the thread pool.
#include "core/engine/parallel.h"

#include <algorithm>

namespace geon {

LoopPlan sub_plan(const LoopPlan& p, int d, int64_t lo, int64_t hi) {
  LoopPlan s = p;
  s.length[d] = hi - lo;
  for (int o = 0; o < p.operands; ++o) s.offset[o] += lo * p.stride[o][d];
  return s;
}

int split_dim(const LoopPlan& p, int parts, int owned) {
  int best = -1;
  for (int d = 0; d < p.rank; ++d) {
    if (owned >= 0 && p.stride[owned][d] == 0) continue;
    if (p.length[d] >= parts) return d;
    if (best < 0 || p.length[d] > p.length[best]) best = d;
  }
  return best;
}

int parts_for(const LoopPlan& p, const ThreadPool& pool) {
  const int64_t n = loop_elements(p);
  return static_cast<int>(std::clamp<int64_t>(n / kMinElementsPerPart, 1, pool.size()));
}

void run_parts(ThreadPool& pool, const LoopPlan& p, int d, int parts,
               const std::function<void(const LoopPlan&, int)>& body) {
  if (d < 0 || parts <= 1) {
    body(p, 0);
    return;
  }
  parts = static_cast<int>(std::min<int64_t>(parts, p.length[d]));
  const int64_t len = p.length[d];
  pool.run(parts, [&](int part) {
    const int64_t lo = len * part / parts, hi = len * (part + 1) / parts;
    body(sub_plan(p, d, lo, hi), part);
  });
}

}  // namespace geon
