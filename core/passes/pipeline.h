// The one place where the order of geon's graph passes is written down. Passes run on the
// imported graph at session creation, before partitioning; each pass is its own file in this
// folder. Level 1 folds constants; level 2 (the default of a session) adds the fusion passes.
#pragma once

#include <span>

#include "core/graph/graph.h"
#include "core/runtime/kernel.h"

namespace geon {

struct PassOptions {
  int optimization_level = 2;
};

// Runs the passes of the level, in order, with the kernel sets the session will place on (the
// folding pass computes constants with their host kernels; fusions only fire where a set has a
// row for the fused node).
void run_passes(Graph& g, std::span<const KernelSet* const> sets, const PassOptions& opt);

}  // namespace geon
