// Finding runs of repeated blocks in a node sequence (BERT's 12 layers, ResNet's bottlenecks),
// so that a picture of a big graph draws each run once, as "×N".
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace geon::tools {

// `count` consecutive copies of the `period` signatures starting at `start`.
struct RepeatRun {
  size_t start = 0;
  size_t period = 0;
  size_t count = 0;
};

// Runs in `signatures` (one per node, in topological order; equal values = interchangeable
// nodes), scanned left to right: at each position the run covering the most nodes (the shortest
// period on a tie), when collapsing it saves at least `min_saved` nodes. Runs do not overlap.
std::vector<RepeatRun> find_repeats(const std::vector<uint64_t>& signatures, size_t min_saved,
                                    size_t max_period = 256);

}  // namespace geon::tools
