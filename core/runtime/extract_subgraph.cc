// One partition subgraph as a graph of its own, for compiling a claimed subgraph alone: its
// boundary values become inputs (or stay constants), node indices are remapped, and nested
// bodies are shared, so they still capture by name (from the new graph's inputs).
#include "core/base/error.h"
#include "core/runtime/executor.h"

namespace geon {

std::shared_ptr<Graph> extract_subgraph(const Graph& g, const Subgraph& s) {
  auto out = std::make_shared<Graph>();
  out->name = g.name.empty() ? "subgraph" : g.name + "_subgraph";
  out->parent = g.parent;
  out->axis_factory = g.axis_factory;
  std::vector<int> map(g.values.size(), -1);

  for (int v : s.inputs) {
    require(v >= 0 && v < static_cast<int>(g.values.size()),
            "extract_subgraph: input value " + std::to_string(v) + " is out of range");
    if (map[v] >= 0) continue;
    Value val = g.values[v];
    val.producer = -1;
    if (val.kind == ValueKind::kConstant && val.data) {
      map[v] = out->add_value(std::move(val));
      continue;
    }
    const bool keeps_default = val.kind == ValueKind::kInput && val.overridable && val.data;
    val.kind = ValueKind::kInput;
    val.overridable = keeps_default;
    if (!keeps_default) val.data = nullptr;
    map[v] = out->add_value(std::move(val));
    out->inputs.push_back(map[v]);
  }

  for (int i : s.nodes) {
    require(i >= 0 && i < static_cast<int>(g.nodes.size()),
            "extract_subgraph: node " + std::to_string(i) + " is out of range");
    Node n = g.nodes[i];
    for (int& v : n.inputs) {
      if (v < 0) continue;
      if (map[v] < 0) {
        // Constants a node reads need not be listed among the subgraph's inputs.
        require(g.values[v].kind == ValueKind::kConstant && g.values[v].data != nullptr,
                "extract_subgraph: node '" + g.nodes[i].name + "' reads '" + g.values[v].name +
                    "', which is neither produced in the subgraph nor one of its inputs");
        Value c = g.values[v];
        c.producer = -1;
        map[v] = out->add_value(std::move(c));
      }
      v = map[v];
    }
    const int index = static_cast<int>(out->nodes.size());
    for (int& v : n.outputs) {
      if (v < 0) continue;
      Value val = g.values[v];
      val.producer = index;
      val.kind = ValueKind::kIntermediate;
      map[v] = out->add_value(std::move(val));
      v = map[v];
    }
    out->nodes.push_back(std::move(n));
  }

  for (int v : s.outputs) {
    require(v >= 0 && v < static_cast<int>(g.values.size()) && map[v] >= 0,
            "extract_subgraph: output value " + std::to_string(v) + " is not in the subgraph");
    out->outputs.push_back(map[v]);
  }
  return out;
}

}  // namespace geon
