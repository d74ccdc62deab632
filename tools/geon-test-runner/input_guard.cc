#include "tools/geon-test-runner/input_guard.h"

#include <algorithm>
#include <cstring>

namespace geon::tools {

InputSnapshot snapshot_inputs(const std::vector<HostTensor>& inputs) { return {inputs}; }

std::string modified_input(const InputSnapshot& before, const std::vector<HostTensor>& after) {
  for (size_t i = 0; i < after.size() && i < before.tensors.size(); ++i) {
    const auto& was = before.tensors[i].data;
    const auto& now = after[i].data;
    // memcmp first: the common case (nothing changed) costs one pass over the bytes.
    if (was.size() == now.size() &&
        (was.empty() || std::memcmp(was.data(), now.data(), was.size()) == 0))
      continue;
    const size_t n = std::min(was.size(), now.size());
    size_t first = n, changed = 0;
    for (size_t b = 0; b < n; ++b) {
      if (was[b] == now[b]) continue;
      if (first == n) first = b;
      ++changed;
    }
    std::string msg = "input '" + after[i].name + "' was modified by the run";
    if (was.size() != now.size()) {
      return msg + " (its size changed from " + std::to_string(was.size()) + " to " +
             std::to_string(now.size()) + " bytes)";
    }
    return msg + " (" + std::to_string(changed) + " of " + std::to_string(n) +
           " bytes changed, the first at byte " + std::to_string(first) + ")";
  }
  return "";
}

}  // namespace geon::tools
