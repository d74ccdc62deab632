#include "tools/geon-inspect/repeats.h"

#include <algorithm>

namespace geon::tools {
namespace {

// How many copies of s[start, start + period) follow one another from `start`.
size_t copies(const std::vector<uint64_t>& s, size_t start, size_t period) {
  size_t count = 1;
  while (start + (count + 1) * period <= s.size() &&
         std::equal(s.begin() + static_cast<ptrdiff_t>(start),
                    s.begin() + static_cast<ptrdiff_t>(start + period),
                    s.begin() + static_cast<ptrdiff_t>(start + count * period)))
    ++count;
  return count;
}

}  // namespace

std::vector<RepeatRun> find_repeats(const std::vector<uint64_t>& signatures, size_t min_saved,
                                    size_t max_period) {
  std::vector<RepeatRun> runs;
  size_t i = 0;
  while (i < signatures.size()) {
    RepeatRun best;
    const size_t periods = std::min(max_period, (signatures.size() - i) / 2);
    for (size_t p = 1; p <= periods; ++p) {
      const size_t k = copies(signatures, i, p);
      if (k >= 2 && p * k > best.period * best.count) best = {i, p, k};
    }
    if (best.count >= 2 && best.period * (best.count - 1) >= std::max<size_t>(min_saved, 1)) {
      runs.push_back(best);
      i += best.period * best.count;
    } else {
      ++i;
    }
  }
  return runs;
}

}  // namespace geon::tools
