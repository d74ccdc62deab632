// Node reads with nested-graph captures, and lifetimes over an execution order.
#include "core/runtime/graph_uses.h"

#include <set>
#include <string>

namespace geon {
namespace {

// Names a nested graph reads from outside itself: its kOuter values, and whatever its own
// nested graphs capture that it does not define.
void outer_names(const Graph& body, std::set<std::string>& names) {
  for (const Value& v : body.values)
    if (v.kind == ValueKind::kOuter) names.insert(v.name);
  for (const Node& n : body.nodes)
    for (const auto& [key, a] : n.attrs) {
      std::vector<const Graph*> nested;
      if (a.g) nested.push_back(a.g.get());
      for (const auto& sub : a.graphs)
        if (sub) nested.push_back(sub.get());
      for (const Graph* inner : nested) {
        std::set<std::string> inner_names;
        outer_names(*inner, inner_names);
        for (const std::string& name : inner_names) {
          const int here = body.find(name);
          if (here < 0 || body.values[here].kind == ValueKind::kOuter) names.insert(name);
        }
      }
    }
}

}  // namespace

std::vector<int> node_reads(const Graph& g, const Node& n) {
  std::vector<int> reads;
  auto add = [&](int v) {
    if (v < 0) return;
    for (int r : reads)
      if (r == v) return;
    reads.push_back(v);
  };
  for (int v : n.inputs) add(v);
  std::set<std::string> names;
  for (const auto& [key, a] : n.attrs) {
    if (a.g) outer_names(*a.g, names);
    for (const auto& sub : a.graphs)
      if (sub) outer_names(*sub, names);
  }
  for (const std::string& name : names) add(g.find(name));
  return reads;
}

std::vector<int> value_producers(const Graph& g) {
  std::vector<int> producer(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int o : g.nodes[i].outputs)
      if (o >= 0) producer[o] = static_cast<int>(i);
  return producer;
}

std::vector<Lifetime> value_lifetimes(const Graph& g, std::span<const int> order) {
  std::vector<Lifetime> life(g.values.size());
  for (size_t step = 0; step < order.size(); ++step) {
    const Node& n = g.nodes.at(order[step]);
    const int s = static_cast<int>(step);
    for (int v : node_reads(g, n)) life[v].last = s;
    for (int o : n.outputs)
      if (o >= 0) life[o] = {s, s};
  }
  for (int o : g.outputs) life.at(o).last = static_cast<int>(order.size());
  return life;
}

}  // namespace geon
