// Shared by the linalg family's files.
#pragma once

#include <vector>

#include "importer/rule.h"

namespace geon::importer {

// Requires input i's dtype to be a float type (bfloat16 from opset `since_bf16`), or with
// `ints` also int32/int64/uint32/uint64, naming the op and its version otherwise.
void require_linalg_dtype(RuleContext& c, int i, bool ints, int since_bf16);

// numpy broadcast of the operands' axes; a mismatch fails the node with the broadcast's message.
Axes broadcast_or_fail(RuleContext& c, const std::vector<Axes>& operands);

void einsum(RuleContext& c);  // linalg_einsum.cc

}  // namespace geon::importer
