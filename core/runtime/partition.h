// The partitioner: places each node on the first device kernel set (in priority order) that
// can run it, records why the others refused, groups placed nodes into maximal subgraphs per
// set without creating cycles, and lists the transfers needed where devices meet.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/buffer/buffer.h"
#include "core/graph/graph.h"
#include "core/runtime/kernel.h"

namespace geon {

struct Refusal {
  int set = -1;        // index into the kernel sets
  std::string reason;  // "no kernel for Foo at opset 13", or what supports() said
};

struct NodePlacement {
  int set = -1;       // index into the kernel sets; -1: unclaimed (a host may run it)
  int subgraph = -1;  // index into Placement::subgraphs; -1 when unclaimed
  // One per set tried before `set`, in priority order (every set when unclaimed).
  std::vector<Refusal> refusals;
};

// Placed nodes of one set that run as a unit. Contracting any subgraph to one node leaves the
// graph acyclic, and no two subgraphs of one set could be merged without creating a cycle.
struct Subgraph {
  int set = -1;
  std::vector<int> nodes;    // node indices, in the graph's topological order
  std::vector<int> inputs;   // values read here and produced elsewhere (constants included)
  std::vector<int> outputs;  // values produced here and read elsewhere, or graph outputs
};

// A value produced (or provided) on one device and read on another. Graph inputs and outputs
// live on the host, unclaimed nodes run on the host; constants are never transferred (each
// device has its own initializer arena). One transfer per (value, destination device).
struct Transfer {
  int value = -1;
  Device from{};
  Device to{};
};

struct Placement {
  std::vector<NodePlacement> nodes;  // per node of the graph
  std::vector<Subgraph> subgraphs;   // in an order that can run front to back
  std::vector<Transfer> transfers;   // by value index
};

// If, Loop and Scan (default domain): no kernel set runs them; the executor runs their bodies
// as nested plans. partition() leaves them unclaimed (a host may run them itself), and the
// placement report shows them on the pseudo-set "control" on the host.
bool is_control_flow(const Node& n);

// Places g's nodes on `sets` (highest priority first). A node with nested graphs (If, Loop,
// Scan) is placed as a whole; it depends on every outer value its bodies capture.
Placement partition(const Graph& g, std::span<const KernelSet* const> sets);

// The placement report as JSON: per node its name, op, set, subgraph and refusals; the
// subgraphs with their nodes, inputs and outputs; the transfers; the values kept in another
// physical layout (Value::layout) and the reorders at the edges of their runs.
std::string placement_json(const Graph& g, const Placement& p,
                           std::span<const KernelSet* const> sets);

}  // namespace geon
