// Placement of nodes on kernel sets, subgraph assembly, and transfers at the seams.
#include "core/runtime/partition.h"

#include <algorithm>
#include <optional>

#include "core/runtime/graph_uses.h"
#include "core/runtime/grouping.h"

namespace geon {
namespace {

std::string no_kernel_reason(const Node& n) {
  return "no kernel for " + (n.domain.empty() ? std::string() : n.domain + ".") + n.op +
         " at opset " + std::to_string(n.opset);
}

// Tries the sets in priority order; the first that has a kernel and accepts the node wins.
NodePlacement place_node(const Graph& g, const Node& n, std::span<const KernelSet* const> sets) {
  NodePlacement p;
  for (size_t s = 0; s < sets.size(); ++s) {
    const KernelEntry* e = find_kernel(*sets[s], n);
    std::optional<std::string> refused;
    if (!e)
      refused = no_kernel_reason(n);
    else if (e->supports)
      refused = e->supports(g, n);
    if (!refused) {
      p.set = static_cast<int>(s);
      return p;
    }
    p.refusals.push_back({static_cast<int>(s), *refused});
  }
  return p;
}

void add_once(std::vector<int>& list, int v) {
  if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
}

}  // namespace

bool is_control_flow(const Node& n) {
  return n.domain.empty() &&
         (n.op == "If" || n.op == "Loop" || n.op == "Scan" || n.op == "SequenceMap");
}

Placement partition(const Graph& g, std::span<const KernelSet* const> sets) {
  const size_t nn = g.nodes.size();
  Placement out;
  out.nodes.reserve(nn);
  for (const Node& n : g.nodes) out.nodes.push_back(place_node(g, n, sets));

  const std::vector<int> producer = value_producers(g);
  std::vector<std::vector<int>> reads(nn), preds(nn), consumers(g.values.size());
  for (size_t i = 0; i < nn; ++i) {
    reads[i] = node_reads(g, g.nodes[i]);
    for (int v : reads[i]) {
      consumers[v].push_back(static_cast<int>(i));
      if (producer[v] >= 0) add_once(preds[i], producer[v]);
    }
  }

  std::vector<int> colour(nn);
  for (size_t i = 0; i < nn; ++i) colour[i] = out.nodes[i].set;
  const Grouping grouping = group_by_colour(colour, preds);

  std::vector<bool> is_graph_output(g.values.size(), false);
  for (int o : g.outputs) is_graph_output.at(o) = true;
  for (size_t k = 0; k < grouping.groups.size(); ++k) {
    Subgraph sg;
    sg.set = grouping.colour[k];
    sg.nodes = grouping.groups[k];
    const int self = static_cast<int>(k);
    for (int i : sg.nodes) {
      out.nodes[i].subgraph = self;
      for (int v : reads[i])
        if (producer[v] < 0 || grouping.group_of[producer[v]] != self) add_once(sg.inputs, v);
      for (int v : g.nodes[i].outputs) {
        if (v < 0) continue;
        bool escapes = is_graph_output[v];
        for (int c : consumers[v]) escapes = escapes || grouping.group_of[c] != self;
        if (escapes) add_once(sg.outputs, v);
      }
    }
    out.subgraphs.push_back(std::move(sg));
  }

  // Unclaimed nodes, graph inputs and graph outputs are on the host.
  auto device_of = [&](int node) {
    const int s = out.nodes[node].set;
    return s >= 0 ? sets[s]->device : Device{};
  };
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    const bool provided = val.kind == ValueKind::kInput || val.kind == ValueKind::kOuter;
    if (producer[v] < 0 && !provided) continue;  // constants: one copy per device, no transfer
    const Device from = producer[v] >= 0 ? device_of(producer[v]) : Device{};
    std::vector<Device> sent;
    auto send = [&](Device to) {
      if (to == from || std::find(sent.begin(), sent.end(), to) != sent.end()) return;
      sent.push_back(to);
      out.transfers.push_back({static_cast<int>(v), from, to});
    };
    for (int c : consumers[v]) send(device_of(c));
    if (is_graph_output[v]) send(Device{});
  }
  return out;
}

}  // namespace geon
