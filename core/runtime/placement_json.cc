// The placement report as JSON, for the provider's report and the tools. Written by hand: core
// uses the standard library only, and the shape is small and fixed.
#include "core/base/json.h"
#include "core/runtime/partition.h"

namespace geon {
namespace {

std::string value_names(const Graph& g, const std::vector<int>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + json_string(g.values.at(values[i]).name);
  return out + "]";
}

}  // namespace

std::string placement_json(const Graph& g, const Placement& p,
                           std::span<const KernelSet* const> sets) {
  auto set_name = [&](int s) { return s >= 0 ? json_string(sets[s]->name) : std::string("null"); };
  // Control flow is unclaimed by every set but run by the executor itself, on the host.
  auto node_set = [&](const Node& n, int s) {
    return s < 0 && is_control_flow(n) ? json_string("control") : set_name(s);
  };
  auto node_device = [&](const Node& n, int s) {
    if (s >= 0) return json_string(to_string(sets[s]->device));
    return is_control_flow(n) ? json_string(to_string(Device{})) : std::string("null");
  };
  std::string out = "{\n  \"nodes\": [";
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const Node& n = g.nodes.at(i);
    const NodePlacement& np = p.nodes[i];
    out += std::string(i ? "," : "") + "\n    {\"index\": " + std::to_string(i) +
           ", \"name\": " + json_string(n.name) +
           ", \"op\": " + json_string((n.domain.empty() ? "" : n.domain + ".") + n.op) +
           ", \"opset\": " + std::to_string(n.opset) + ", \"set\": " + node_set(n, np.set) +
           ", \"device\": " + node_device(n, np.set) +
           ", \"subgraph\": " + std::to_string(np.subgraph) + ", \"refusals\": [";
    for (size_t r = 0; r < np.refusals.size(); ++r)
      out += std::string(r ? ", " : "") + "{\"set\": " + set_name(np.refusals[r].set) +
             ", \"reason\": " + json_string(np.refusals[r].reason) + "}";
    out += "]}";
  }
  out += "\n  ],\n  \"subgraphs\": [";
  for (size_t k = 0; k < p.subgraphs.size(); ++k) {
    const Subgraph& sg = p.subgraphs[k];
    out += std::string(k ? "," : "") + "\n    {\"index\": " + std::to_string(k) +
           ", \"set\": " + set_name(sg.set) +
           ", \"device\": " + json_string(to_string(sets[sg.set]->device)) + ", \"nodes\": [";
    for (size_t i = 0; i < sg.nodes.size(); ++i)
      out += (i ? ", " : "") + json_string(g.nodes.at(sg.nodes[i]).name);
    out += "], \"inputs\": " + value_names(g, sg.inputs) +
           ", \"outputs\": " + value_names(g, sg.outputs) + "}";
  }
  out += "\n  ],\n  \"transfers\": [";
  for (size_t t = 0; t < p.transfers.size(); ++t) {
    const Transfer& tr = p.transfers[t];
    out += std::string(t ? "," : "") +
           "\n    {\"value\": " + json_string(g.values.at(tr.value).name) +
           ", \"from\": " + json_string(to_string(tr.from)) +
           ", \"to\": " + json_string(to_string(tr.to)) + "}";
  }
  return out + "\n  ]\n}\n";
}

}  // namespace geon
