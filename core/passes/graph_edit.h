// What every rewrite pass needs to match and replace node groups safely: who reads a value
// (nested graphs included), constants no feed can replace, attribute makers for fused nodes,
// and the one way nodes leave a graph (survivors keep their order, producers are renumbered).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"
#include "core/runtime/kernel.h"

namespace geon::passes {

// For each value of g: how many distinct nodes read it (a nested graph reading it by name
// counts as its node), and whether it is a graph output.
struct Uses {
  std::vector<int> readers;
  std::vector<int> reader;  // the last node (index) reading each value, -1 when none
  std::vector<bool> output;
  // Read by exactly one node and not a graph output: the value may disappear into a fusion.
  bool internal_single(int v) const { return v >= 0 && readers[v] == 1 && !output[v]; }
  // The one node reading v when internal_single(v) (a nested graph's reader is its node), else -1.
  int only_reader(int v) const { return internal_single(v) ? reader[v] : -1; }
};
Uses count_uses(const Graph& g);

// A constant with data that no feed can replace (what a pass may fold into weights).
bool fixed_constant(const Graph& g, int v);
// The node producing v (in g.nodes), or null for inputs and constants.
const Node* producer_of(const Graph& g, int v);
// The default ONNX domain.
bool onnx_domain(const Node& n);
// Whether some set in `sets` has a row for a node of this domain, op and opset.
bool has_row(std::span<const KernelSet* const> sets, std::string_view domain, std::string_view op,
             int opset = 1);

// The contents of a float constant, or empty when v is no fixed float constant.
std::vector<float> float_values(const Graph& g, int v);
// The single value of a fixed constant with one element (any real dtype), or false.
bool scalar_value(const Graph& g, int v, double& out);

// A new constant value (name made unique from `base`) holding `data`, with fresh static axes.
int add_constant(Graph& g, const std::string& base, std::shared_ptr<const TensorData> data);
// A name not yet used by a value of g.
std::string unique_name(const Graph& g, const std::string& base);

// "Op:name" of a node, as fused nodes list their members.
std::string member_name(const Node& n);
// A fused node's name: its members' names joined by '+' ("mm1+add1+relu1"), so the placement
// report and the profile, which show node names, say what was fused.
std::string fused_name(std::span<const Node* const> nodes);
// A fused node's `members`: the members already listed by fused nodes among `nodes`, in order.
std::vector<std::string> members_of(std::span<const Node* const> nodes);

Attribute int_attr(int64_t v);
Attribute float_attr(float v);
Attribute string_attr(std::string v);
Attribute ints_attr(std::vector<int64_t> v);
Attribute floats_attr(std::vector<float> v);
Attribute strings_attr(std::vector<std::string> v);

// Removes the nodes marked dead, keeping the others in order; producers follow their nodes'
// new indices, and values whose producer died become unproduced (-1).
void erase_nodes(Graph& g, const std::vector<bool>& dead);

}  // namespace geon::passes
