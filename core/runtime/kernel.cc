// Kernel lookup in a kernel set.
#include "core/runtime/kernel.h"

#include "core/base/error.h"

namespace geon {

ListRef KernelContext::input_list(int i) const {
  fail(ErrorCode::kInternal, "input " + std::to_string(i) + " is not a sequence or optional here");
}

void KernelContext::set_output_list(int i, ListRef) {
  fail(ErrorCode::kInternal,
       "output " + std::to_string(i) + " cannot be a sequence or optional here");
}

const KernelEntry* find_kernel(const KernelSet& set, const Node& n) {
  const KernelEntry* best = nullptr;
  for (const KernelEntry& e : set.entries)
    if (e.domain == n.domain && e.op == n.op && e.since <= n.opset &&
        (!best || e.since > best->since))
      best = &e;
  return best;
}

}  // namespace geon
