// Which values select_layouts marks: a value is eligible when it is a float (or, between
// quantized convolutions, 8-bit) intermediate of rank 4 or 5 whose producer and every reader are
// nodes that read their data through strides (convolutions, pooling, BatchNormalization,
// elementwise, Quantize/DequantizeLinear); eligible values connected to each other through such
// nodes form a run, and runs that touch a convolution are marked.
#include "core/passes/select_layouts.h"

#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "core/passes/graph_edit.h"

namespace geon {
namespace {

enum class Role { kOther, kConv, kAgnostic };

bool is_elementwise(const std::string& op) {
  static const std::set<std::string> kOps = {
      "Relu", "LeakyRelu", "Clip", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Elu",
      "Gelu", "Add",       "Sub",  "Mul",     "Div",  "Max",         "Min",       "Sum"};
  return kOps.count(op) > 0;
}

// Quantize/DequantizeLinear read through strides, but their fast per-tensor loop needs X and Y
// laid out alike (the general path goes through doubles, ~100x slower): both sides of one are
// channels-last or neither is. The last QConv of a network then writes its 8-bit output
// channels-last for the DequantizeLinear and pooling after it, rather than through a copy.
bool converts_type(const Node& n) {
  return passes::onnx_domain(n) && (n.op == "QuantizeLinear" || n.op == "DequantizeLinear");
}

Role role(const Node& n) {
  if (n.domain == "geon") {
    if (n.op == "FusedConv" || n.op == "QConv" || n.op == "FusedPointwiseDepthwise")
      return Role::kConv;
    if (n.op == "Elementwise") return Role::kAgnostic;
    return Role::kOther;
  }
  if (!passes::onnx_domain(n)) return Role::kOther;
  if (n.op == "Conv" || n.op == "ConvTranspose") return Role::kConv;
  if (n.op == "MaxPool" || n.op == "AveragePool" || n.op == "GlobalMaxPool" ||
      n.op == "GlobalAveragePool" || n.op == "BatchNormalization" || is_elementwise(n.op) ||
      converts_type(n))
    return Role::kAgnostic;
  return Role::kOther;
}

// The inputs and outputs of n that carry the spatial data (a convolution's X, Z and Y; an
// elementwise node's full-rank operands; pooling's and BatchNormalization's X and Y).
std::vector<int> data_ports(const Graph& g, const Node& n) {
  std::vector<int> ports;
  auto add = [&](const std::vector<int>& vs, size_t i) {
    if (i < vs.size() && vs[i] >= 0) ports.push_back(vs[i]);
  };
  const bool conv = role(n) == Role::kConv;
  const bool bn_or_pool = n.op.find("Pool") != std::string::npos || n.op == "BatchNormalization";
  if (converts_type(n)) {
    add(n.inputs, 0);
    add(n.outputs, 0);
    return ports;
  }
  if (conv || bn_or_pool) {
    add(n.inputs, 0);
    if (n.op == "FusedConv") add(n.inputs, 3);
    if (n.op == "FusedPointwiseDepthwise") add(n.inputs, 7);  // Z
    if (n.op == "QConv") add(n.inputs, 11);                   // Z
    add(n.outputs, 0);
    return ports;
  }
  for (const std::vector<int>* vs : {&n.inputs, &n.outputs})
    for (int v : *vs)
      if (v >= 0 && g.value(v).rank_known && g.value(v).rank() >= 4) ports.push_back(v);
  return ports;
}

int find(std::vector<int>& parent, int v) {
  while (parent[v] != v) v = parent[v] = parent[parent[v]];
  return v;
}

}  // namespace

bool channels_last_preferred(std::span<const KernelSet* const> sets) {
  for (const KernelSet* set : sets)
    if (passes::has_row(std::span<const KernelSet* const>(&set, 1), "", "Conv", 11))
      return set->name == "cpu.dnnl";
  return false;
}

int select_layouts(Graph& g) {
  const size_t nv = g.values.size();
  const passes::Uses uses = passes::count_uses(g);
  // Direct readers per value, and whether each is a node that reads through strides.
  std::vector<int> readers(nv, 0);
  std::vector<bool> other_reader(nv, false);
  for (const Node& n : g.nodes) {
    std::set<int> seen;
    for (int v : n.inputs)
      if (v >= 0 && seen.insert(v).second) {
        ++readers[v];
        if (role(n) == Role::kOther) other_reader[v] = true;
      }
  }
  std::vector<bool> eligible(nv, false);
  for (size_t v = 0; v < nv; ++v) {
    const Value& val = g.values[v];
    if (val.kind != ValueKind::kIntermediate || val.producer < 0 || uses.output[v]) continue;
    if (!val.rank_known || (val.rank() != 4 && val.rank() != 5)) continue;
    const DType t = val.dtype();
    if ((t != DType::kFloat && t != DType::kUInt8 && t != DType::kInt8) || !val.layout.empty())
      continue;
    // A nested graph reading v by name counts its node among `uses.readers` only.
    if (other_reader[v] || uses.readers[v] != readers[v]) continue;
    if (role(g.nodes[val.producer]) == Role::kOther) continue;
    eligible[v] = true;
  }
  // A type conversion's X and Y are both eligible or neither (see converts_type); dropping one
  // may drop the other side of a neighbouring conversion, so until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (const Node& n : g.nodes) {
      if (!converts_type(n)) continue;
      const std::vector<int> ports = data_ports(g, n);
      if (ports.size() != 2 || eligible[ports[0]] == eligible[ports[1]]) continue;
      eligible[ports[0]] = eligible[ports[1]] = false;
      changed = true;
    }
  }
  // Runs: eligible values joined through the nodes whose data ports they are.
  std::vector<int> parent(nv);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<bool> touches_conv(nv, false);
  for (const Node& n : g.nodes) {
    if (role(n) == Role::kOther) continue;
    int first = -1;
    for (int v : data_ports(g, n)) {
      if (!eligible[v]) continue;
      if (first < 0)
        first = v;
      else
        parent[find(parent, v)] = find(parent, first);
      if (role(n) == Role::kConv) touches_conv[v] = true;
    }
  }
  std::vector<bool> run_has_conv(nv, false);
  for (size_t v = 0; v < nv; ++v)
    if (eligible[v] && touches_conv[v]) run_has_conv[find(parent, static_cast<int>(v))] = true;
  int marked = 0;
  for (size_t v = 0; v < nv; ++v) {
    if (!eligible[v] || !run_has_conv[find(parent, static_cast<int>(v))]) continue;
    Value& val = g.values[v];
    val.layout.push_back(0);
    for (int i = 2; i < val.rank(); ++i) val.layout.push_back(i);
    val.layout.push_back(1);
    ++marked;
  }
  return marked;
}

}  // namespace geon
