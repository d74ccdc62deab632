// What each node reads, including the outer values its nested If/Loop/Scan bodies capture, and
// value lifetimes over an execution order. The partitioner and the memory planner both need
// these; a node with a body depends on everything the body reads from outside.
#pragma once

#include <span>
#include <vector>

#include "core/graph/graph.h"

namespace geon {

// Value indices (in g) that node n reads: its present inputs, then the values of g that its
// nested graphs capture by name (at any depth), each once, in that order.
std::vector<int> node_reads(const Graph& g, const Node& n);

// Per value, the node producing it (-1: input, constant or outer value). Computed from the
// nodes' outputs rather than trusted from Value::producer.
std::vector<int> value_producers(const Graph& g);

// A value's lifetime in steps of an execution order: produced at `first`, last read at `last`.
// Values no step produces have first == -1. Graph outputs live to `order.size()` (past the
// last step), and a produced value nobody reads dies at its own step.
struct Lifetime {
  int first = -1;
  int last = -1;
};
std::vector<Lifetime> value_lifetimes(const Graph& g, std::span<const int> order);

}  // namespace geon
