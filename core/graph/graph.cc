// Graph bookkeeping and the text dump.
#include "core/graph/graph.h"

#include "core/base/error.h"

namespace geon {

std::string_view attribute_kind_name(Attribute::Kind k) {
  static constexpr std::string_view kNames[] = {
      "float",   "int",     "string", "tensor",        "graph",      "floats",     "ints",
      "strings", "tensors", "graphs", "sparse_tensor", "type_proto", "type_protos"};
  return kNames[static_cast<int>(k)];
}

const Attribute* Node::attr(std::string_view n) const {
  auto it = attrs.find(std::string(n));
  return it == attrs.end() ? nullptr : &it->second;
}

int Graph::find(std::string_view n) const {
  auto it = by_name_.find(std::string(n));
  return it == by_name_.end() ? -1 : it->second;
}

int Graph::add_value(Value v) {
  if (!v.name.empty() && find(v.name) >= 0)
    fail(ErrorCode::kInvalidArgument,
         "value '" + v.name + "' is defined twice in graph '" + name + "'");
  const int id = static_cast<int>(values.size());
  if (!v.name.empty()) by_name_.emplace(v.name, id);
  values.push_back(std::move(v));
  return id;
}

bool outputs_known(const Graph& g, const Node& n) {
  bool any = false;
  for (int o : n.outputs) {
    if (o < 0) continue;
    if (!g.value(o).data) return false;
    any = true;
  }
  return any;
}

const Value* lookup_visible(const Graph& g, std::string_view n) {
  for (const Graph* at = &g; at; at = at->parent) {
    const int i = at->find(n);
    if (i >= 0) return &at->values[i];
  }
  return nullptr;
}

std::string to_string(const ValueType& t) {
  const std::string d(dtype_name(t.dtype));
  switch (t.kind) {
    case TypeKind::kTensor:
      return d;
    case TypeKind::kSequence:
      if (t.element == TypeKind::kMap)
        return "seq(map(" + std::string(dtype_name(t.key)) + "," + d + "))";
      return "seq(" + d + ")";
    case TypeKind::kOptional:
      return "optional(" + (t.element == TypeKind::kSequence ? "seq(" + d + ")" : d) + ")";
    case TypeKind::kMap:
      return "map(" + std::string(dtype_name(t.key)) + "," + d + ")";
    case TypeKind::kSparseTensor:
      return "sparse(" + d + ")";
    case TypeKind::kUnknown:
      return "?";
  }
  return "?";
}

namespace {

std::string value_text(const Value& v) {
  std::string s = v.name + ": " + to_string(v.type);
  s += v.rank_known ? " " + to_string_with_lengths(v.axes) : " (rank unknown)";
  if (v.kind == ValueKind::kConstant) s += " const";
  if (v.kind == ValueKind::kIntermediate && v.data) s += " folded";
  if (v.overridable) s += " overridable";
  return s;
}

void dump_into(const Graph& g, const std::string& indent, const std::string& label,
               std::string& out) {
  out += indent + label + "graph " + g.name + "\n";
  for (int i : g.inputs) out += indent + "  input " + value_text(g.values[i]) + "\n";
  for (const Value& v : g.values)
    if (v.kind == ValueKind::kOuter) out += indent + "  outer " + value_text(v) + "\n";
  for (const Value& v : g.values)
    if (v.kind == ValueKind::kConstant && v.producer < 0 && !v.overridable)
      out += indent + "  const " + value_text(v) + "\n";
  for (const Node& n : g.nodes) {
    out += indent + "  node " + (n.name.empty() ? std::string("<unnamed>") : n.name) + " = " +
           (n.domain.empty() ? "" : n.domain + ".") + n.op + "-" + std::to_string(n.opset) + "(";
    for (size_t i = 0; i < n.inputs.size(); ++i)
      out +=
          (i ? ", " : "") + (n.inputs[i] < 0 ? std::string("<none>") : g.values[n.inputs[i]].name);
    out += ")\n";
    for (int o : n.outputs)
      if (o >= 0) out += indent + "    -> " + value_text(g.values[o]) + "\n";
    for (const auto& [key, a] : n.attrs) {
      if (a.kind == Attribute::Kind::kGraph && a.g)
        dump_into(*a.g, indent + "    ", key + ": ", out);
      for (size_t k = 0; k < a.graphs.size(); ++k)
        dump_into(*a.graphs[k], indent + "    ", key + "[" + std::to_string(k) + "]: ", out);
    }
  }
  for (int o : g.outputs) out += indent + "  output " + value_text(g.values[o]) + "\n";
}

}  // namespace

std::string dump(const Graph& g) {
  std::string out;
  dump_into(g, "", "", out);
  return out;
}

}  // namespace geon
