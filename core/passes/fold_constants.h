// Constant folding on the imported graph: every node whose inputs are all constants is run
// once on the host, by the first host kernel set that supports it, and its outputs become
// constants. Bounded per output and in total, so a model cannot make compilation allocate
// without limit; anything that cannot be folded simply stays a node.
#pragma once

#include <cstdint>
#include <span>

#include "core/graph/graph.h"
#include "core/runtime/kernel.h"

namespace geon {

// Defaults: 64 MiB per folded output, 256 MiB of folded outputs per graph.
inline constexpr int64_t kFoldMaxBytes = int64_t{1} << 26;
inline constexpr int64_t kFoldTotalBytes = int64_t{1} << 28;

// Replaces every node whose inputs are all constants (and which some host set in `sets`
// supports) by constants computed by running it; returns the number of nodes folded. A node
// with an output above max_bytes stays unfolded; folding stops once total_bytes of outputs are
// made. Never folds a node reading an overridable input (Value::overridable), a node of a
// non-default domain, one holding a nested graph, or a random op (RandomNormal*,
// RandomUniform*, Bernoulli, Multinomial). A node whose kernel fails on its constants stays,
// so the run reports the error. Nested graphs are left as they are. g.nodes stays
// topological, and Value::producer is renumbered.
int fold_constants(Graph& g, std::span<const KernelSet* const> sets,
                   int64_t max_bytes = kFoldMaxBytes, int64_t total_bytes = kFoldTotalBytes);

}  // namespace geon
