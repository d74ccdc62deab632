// The control flow family's parts: control_flow.cc (If, optionals) includes the rules
// of control_flow_loops.cc (Loop, Scan) in its span.
#pragma once

#include <string>
#include <vector>

#include "importer/rule.h"

namespace geon::importer {

std::vector<RuleEntry> control_flow_loop_rules();

// Values flowing through If and Loop: sequences from opset 13, optionals from 16, never maps or
// sparse tensors, nor sequences of maps. `what` names the value in the message.
void require_kind_allowed(const RuleContext& c, const ValueType& t, const std::string& what);

}  // namespace geon::importer
