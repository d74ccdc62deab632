// How deeply a model nests subgraphs (If / Loop / Scan bodies and other graph attributes), and
// geon's documented bound on it. Both measures walk with an explicit stack, never recursion,
// so that a hostile model nested 100,000 levels deep cannot overflow the caller's stack.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "importer/proto.h"

namespace geon::importer {

// geon imports and runs models whose subgraphs nest up to this many levels below the main
// graph (an If inside an If's branch is 2). Deeper models are refused with a message that says
// so. Each level costs the protobuf parser three message levels (NodeProto, AttributeProto,
// GraphProto), so the parse below is allowed kParseRecursionLimit levels: protobuf's default
// of 100 would stop at about 32 levels of subgraphs with only "does not parse".
inline constexpr int kMaxSubgraphNesting = 64;
// 3 per subgraph level, 1 for the main graph, and room for the deepest message a graph holds
// (ValueInfoProto > TypeProto > ... > Dimension, nested sequence / optional types).
inline constexpr int kParseRecursionLimit = 3 * kMaxSubgraphNesting + 64;

struct WireNesting {
  int messages = 0;   // deepest nesting of protobuf messages (the ModelProto itself is 0)
  int subgraphs = 0;  // deepest nesting of GraphProtos below the main graph
};

// The nesting of serialized ModelProto bytes, read field by field with the ONNX descriptors
// (fields that are messages are descended into, everything else skipped). Stops at the first
// malformed field and returns what it saw up to there.
WireNesting wire_nesting(std::span<const std::byte> bytes);

// Levels of subgraphs below `g` in a parsed graph (0: no graph attribute anywhere).
int subgraph_nesting(const onnx::GraphProto& g);

// "subgraphs nested N levels deep (...), deeper than geon's limit of 64 ...".
std::string nesting_refusal(int found);

}  // namespace geon::importer
