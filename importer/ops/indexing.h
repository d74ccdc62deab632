// Shared by the indexing family's files: index checks and the scatter rules' span.
#pragma once

#include <span>
#include <string>

#include "importer/rule.h"

namespace geon::importer {

// Requires input i to hold int32 or int64 indices, naming it as `what` otherwise.
void require_index_dtype(RuleContext& c, int i, const std::string& what);

// A known index into a dim of length n: fails unless -n <= i < n when n is static (naming
// `what` and the data axis), and returns it made non-negative; with n not static, returns i.
int64_t checked_index(RuleContext& c, int64_t i, const Length& n, const std::string& what,
                      int axis);

// Scatter, ScatterElements, ScatterND, TensorScatter (indexing_scatter.cc).
std::span<const RuleEntry> scatter_rules();

}  // namespace geon::importer
