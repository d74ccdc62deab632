// Shared by the reduction family's files.
#pragma once

#include <span>

#include "importer/rule.h"

namespace geon::importer {

// CumSum, CumProd, TopK, Softmax, LogSoftmax, Hardmax, LpNormalization (reduction_scan.cc).
std::span<const RuleEntry> scan_rules();

}  // namespace geon::importer
