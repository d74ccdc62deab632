// Matching and rewriting helpers shared by the fusion passes.
#include "core/passes/graph_edit.h"

#include <cstring>

namespace geon::passes {
namespace {

// Outer values a nested graph (and the graphs nested in it) reads, by name.
void outer_reads(const Graph& sub, std::vector<std::string>& names) {
  for (const Value& v : sub.values)
    if (v.kind == ValueKind::kOuter) names.push_back(v.name);
  for (const Node& n : sub.nodes)
    for (const auto& [key, a] : n.attrs) {
      if (a.g) outer_reads(*a.g, names);
      for (const auto& gg : a.graphs)
        if (gg) outer_reads(*gg, names);
    }
}

}  // namespace

Uses count_uses(const Graph& g) {
  Uses u;
  u.readers.assign(g.values.size(), 0);
  u.output.assign(g.values.size(), false);
  u.reader.assign(g.values.size(), -1);
  std::vector<int> last_reader(g.values.size(), -1);
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    const auto read = [&](int v) {
      if (v < 0 || last_reader[v] == static_cast<int>(k)) return;
      last_reader[v] = static_cast<int>(k);
      ++u.readers[v];
      u.reader[v] = static_cast<int>(k);
    };
    for (int v : n.inputs) read(v);
    std::vector<std::string> names;
    for (const auto& [key, a] : n.attrs) {
      if (a.g) outer_reads(*a.g, names);
      for (const auto& gg : a.graphs)
        if (gg) outer_reads(*gg, names);
    }
    for (const std::string& name : names) read(g.find(name));
  }
  for (int v : g.outputs)
    if (v >= 0) u.output[v] = true;
  return u;
}

bool fixed_constant(const Graph& g, int v) {
  if (v < 0) return false;
  const Value& x = g.value(v);
  return x.kind == ValueKind::kConstant && !x.overridable && x.data && x.data->storage;
}

const Node* producer_of(const Graph& g, int v) {
  if (v < 0) return nullptr;
  const int p = g.value(v).producer;
  return p >= 0 && p < static_cast<int>(g.nodes.size()) ? &g.nodes[p] : nullptr;
}

bool onnx_domain(const Node& n) { return n.domain.empty() || n.domain == "ai.onnx"; }

bool has_row(std::span<const KernelSet* const> sets, std::string_view domain, std::string_view op,
             int opset) {
  Node probe;
  probe.domain = std::string(domain);
  probe.op = std::string(op);
  probe.opset = opset;
  for (const KernelSet* s : sets)
    if (s && find_kernel(*s, probe)) return true;
  return false;
}

std::vector<float> float_values(const Graph& g, int v) {
  if (!fixed_constant(g, v) || g.value(v).data->desc.dtype != DType::kFloat) return {};
  const TensorData& d = *g.value(v).data;
  std::vector<float> out(static_cast<size_t>(d.elements()));
  if (!out.empty()) std::memcpy(out.data(), d.bytes(), out.size() * sizeof(float));
  return out;
}

bool scalar_value(const Graph& g, int v, double& out) {
  if (!fixed_constant(g, v)) return false;
  const TensorData& d = *g.value(v).data;
  const DType t = d.desc.dtype;
  if (d.elements() != 1 || !(is_floating(t) || is_integer(t))) return false;
  out = element_as_double(d, 0);
  return true;
}

std::string unique_name(const Graph& g, const std::string& base) {
  if (g.find(base) < 0) return base;
  for (int k = 1;; ++k) {
    std::string name = base + "_" + std::to_string(k);
    if (g.find(name) < 0) return name;
  }
}

int add_constant(Graph& g, const std::string& base, std::shared_ptr<const TensorData> data) {
  if (!g.axis_factory) g.axis_factory = std::make_shared<AxisFactory>();
  Value v;
  v.name = unique_name(g, base);
  v.type.dtype = data->desc.dtype;
  std::vector<Axis> axes;
  for (int64_t len : data->desc.shape)
    axes.push_back(make_axis(g.factory(), "", Length::known(len)));
  v.axes = Axes(std::move(axes));
  v.rank_known = true;
  v.kind = ValueKind::kConstant;
  v.data = std::move(data);
  return g.add_value(std::move(v));
}

std::string member_name(const Node& n) { return n.op + ":" + n.name; }

std::string fused_name(std::span<const Node* const> nodes) {
  std::string out;
  for (const Node* n : nodes) {
    if (!out.empty()) out += "+";
    out += n->name.empty() ? n->op : n->name;
  }
  return out;
}

std::vector<std::string> members_of(std::span<const Node* const> nodes) {
  std::vector<std::string> out;
  for (const Node* n : nodes) {
    const Attribute* m = n->attr("members");
    if (m && m->kind == Attribute::Kind::kStrings)
      out.insert(out.end(), m->strings.begin(), m->strings.end());
    else
      out.push_back(member_name(*n));
  }
  return out;
}

Attribute int_attr(int64_t v) {
  Attribute a;
  a.kind = Attribute::Kind::kInt;
  a.i = v;
  return a;
}
Attribute float_attr(float v) {
  Attribute a;
  a.kind = Attribute::Kind::kFloat;
  a.f = v;
  return a;
}
Attribute string_attr(std::string v) {
  Attribute a;
  a.kind = Attribute::Kind::kString;
  a.s = std::move(v);
  return a;
}
Attribute ints_attr(std::vector<int64_t> v) {
  Attribute a;
  a.kind = Attribute::Kind::kInts;
  a.ints = std::move(v);
  return a;
}
Attribute floats_attr(std::vector<float> v) {
  Attribute a;
  a.kind = Attribute::Kind::kFloats;
  a.floats = std::move(v);
  return a;
}
Attribute strings_attr(std::vector<std::string> v) {
  Attribute a;
  a.kind = Attribute::Kind::kStrings;
  a.strings = std::move(v);
  return a;
}

void erase_nodes(Graph& g, const std::vector<bool>& dead) {
  std::vector<int> new_index(g.nodes.size(), -1);
  std::vector<Node> kept;
  kept.reserve(g.nodes.size());
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    if (dead[k]) continue;
    new_index[k] = static_cast<int>(kept.size());
    kept.push_back(std::move(g.nodes[k]));
  }
  g.nodes = std::move(kept);
  for (Value& v : g.values)
    if (v.producer >= 0)
      v.producer = v.producer < static_cast<int>(new_index.size()) ? new_index[v.producer] : -1;
}

}  // namespace geon::passes
