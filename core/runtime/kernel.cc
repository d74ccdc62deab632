// Kernel lookup in a kernel set.
#include "core/runtime/kernel.h"

namespace geon {

const KernelEntry* find_kernel(const KernelSet& set, const Node& n) {
  const KernelEntry* best = nullptr;
  for (const KernelEntry& e : set.entries)
    if (e.domain == n.domain && e.op == n.op && e.since <= n.opset &&
        (!best || e.since > best->since))
      best = &e;
  return best;
}

}  // namespace geon
