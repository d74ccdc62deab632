// The placement report drawn as a Graphviz DOT graph: one box per node coloured by its kernel
// set, fused nodes with their members, constants folded into their consumer's box, edges
// labelled with the value's shape and marked where a transfer between devices happens. Big
// graphs stay readable: runs of repeated blocks are drawn once as "×N", and past a node limit
// the picture says it was cut.
#pragma once

#include <string>
#include <vector>

#include "tools/common/json_value.h"
#include "tools/geon-inspect/repeats.h"

namespace geon::tools {

struct DotOptions {
  std::string title;       // the graph's caption (e.g. the model path)
  size_t max_nodes = 400;  // boxes drawn at most, after collapsing; 0 = no limit
  bool collapse = true;    // draw runs of repeated blocks once
  bool constants = true;   // list constant inputs in their consumer's box
};

// What the picture left out, for the tool to say on stderr.
struct DotSummary {
  size_t nodes = 0;  // nodes in the report
  size_t boxes = 0;  // boxes after collapsing repeated blocks
  size_t drawn = 0;  // boxes drawn (fewer than `boxes` past the limit)
  std::vector<RepeatRun> collapsed;
  bool truncated = false;
};

// The DOT text of `report` (the provider's placement report: nodes with inputs and outputs,
// values); ToolError when the report lacks them (a provider older than the tool).
std::string placement_dot(const JsonValue& report, const DotOptions& options, DotSummary& summary);

}  // namespace geon::tools
