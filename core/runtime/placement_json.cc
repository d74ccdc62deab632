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

// A value's physical order (Value::layout) for the report: "row-major" or the permutation.
std::string layout_name(const Value& v) {
  if (v.layout.empty()) return "row-major";
  std::string out;
  for (size_t i = 0; i < v.layout.size(); ++i) out += (i ? "," : "") + std::to_string(v.layout[i]);
  return out;
}

// Where a kernel reads a non-constant operand in another physical order than the one it writes
// (the edges of a run of channels-last values): there the kernel reorders, once per run.
std::string layouts_json(const Graph& g) {
  int marked = 0;
  for (const Value& v : g.values) marked += v.layout.empty() ? 0 : 1;
  std::string out = "{\"values_with_layout\": " + std::to_string(marked) + ", \"reorders\": [";
  int count = 0;
  for (const Node& n : g.nodes) {
    if (n.outputs.empty() || n.outputs[0] < 0) continue;
    const Value& y = g.values.at(n.outputs[0]);
    for (int in : n.inputs) {
      if (in < 0) continue;
      const Value& x = g.values.at(in);
      if (x.kind == ValueKind::kConstant || !x.rank_known || !y.rank_known ||
          x.rank() != y.rank() || x.rank() < 3 || x.layout == y.layout)
        continue;
      out += std::string(count++ ? "," : "") + "\n      {\"node\": " + json_string(n.name) +
             ", \"value\": " + json_string(x.name) + ", \"from\": " + json_string(layout_name(x)) +
             ", \"to\": " + json_string(layout_name(y)) + "}";
    }
  }
  return out + (count ? "\n    ]}" : "]}");
}

// A node's value list with "" for an omitted optional input or output (-1).
std::string slot_names(const Graph& g, const std::vector<int>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + json_string(values[i] < 0 ? "" : g.values.at(values[i]).name);
  return out + "]";
}

// A fused node's `members` attribute ("Op:name" per original node), as a JSON list; "" when the
// node was not fused.
std::string members_json(const Node& n) {
  const Attribute* m = n.attr("members");
  if (!m || m->kind != Attribute::Kind::kStrings) return "";
  std::string out = "[";
  for (size_t i = 0; i < m->strings.size(); ++i)
    out += (i ? ", " : "") + json_string(m->strings[i]);
  return out + "]";
}

std::string shape_json(const Value& v) {
  if (!v.rank_known) return "null";
  std::string out = "[";
  for (int d = 0; d < v.rank(); ++d) {
    const Length& n = v.axes[d].length;
    out += d ? ", " : "";
    out += n.is_static() ? std::to_string(n.value) : n.is_symbol() ? json_string(n.symbol) : "null";
  }
  return out + "]";
}

// Every value the graph's nodes, inputs and outputs name: dtype, shape (symbols as strings, null
// where unknown), kind, and the layout when it is not row-major. Values the passes left without
// a reader or a writer are not listed. One line each, so a big graph stays one pass.
std::string values_json(const Graph& g) {
  std::vector<bool> is_output(g.values.size(), false), listed(g.values.size(), false);
  for (int o : g.outputs) {
    if (o < 0) continue;
    is_output[o] = true;
    listed[o] = true;
  }
  for (int i : g.inputs)
    if (i >= 0) listed[i] = true;
  for (const Node& n : g.nodes) {
    for (int v : n.inputs)
      if (v >= 0) listed[v] = true;
    for (int v : n.outputs)
      if (v >= 0) listed[v] = true;
  }
  std::string out = "{";
  bool first = true;
  for (size_t i = 0; i < g.values.size(); ++i) {
    if (!listed[i]) continue;
    const Value& v = g.values[i];
    const char* kind = is_output[i]                     ? "output"
                       : v.kind == ValueKind::kInput    ? "input"
                       : v.kind == ValueKind::kConstant ? "constant"
                       : v.kind == ValueKind::kOuter    ? "outer"
                                                        : "intermediate";
    out += std::string(first ? "" : ",") + "\n    " + json_string(v.name) +
           ": {\"dtype\": " + json_string(dtype_name(v.dtype())) + ", \"shape\": " + shape_json(v) +
           ", \"kind\": " + json_string(kind);
    if (!v.layout.empty()) out += ", \"layout\": " + json_string(layout_name(v));
    out += "}";
    first = false;
  }
  return out + (first ? "}" : "\n  }");
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
           ", \"subgraph\": " + std::to_string(np.subgraph) +
           ", \"inputs\": " + slot_names(g, n.inputs) +
           ", \"outputs\": " + slot_names(g, n.outputs);
    if (const std::string m = members_json(n); !m.empty()) out += ", \"members\": " + m;
    out += ", \"refusals\": [";
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
  return out + "\n  ],\n  \"layouts\": " + layouts_json(g) + ",\n  \"values\": " + values_json(g) +
         "\n}\n";
}

}  // namespace geon
