// Helpers for values beyond tensors and for nested graphs, and the body input hints the graph
// builder applies before it builds a Loop, Scan or SequenceMap body.
#include "importer/ops/subgraph.h"

#include <string>

namespace geon::importer {

std::optional<std::vector<Length>> known_lengths(const Value& v) {
  if (!v.rank_known) return std::nullopt;
  return lengths(v.axes);
}

std::optional<std::vector<Length>> merge_lengths(const std::optional<std::vector<Length>>& a,
                                                 const std::optional<std::vector<Length>>& b) {
  if (!a || !b || a->size() != b->size()) return std::nullopt;
  std::vector<Length> out;
  for (size_t d = 0; d < a->size(); ++d)
    out.push_back((*a)[d] == (*b)[d] ? (*a)[d] : Length::unknown());
  return out;
}

std::optional<ValueType> merge_types(const ValueType& a, const ValueType& b) {
  if (a.kind == TypeKind::kUnknown) return b;
  if (b.kind == TypeKind::kUnknown) return a;
  if (a.kind != b.kind) return std::nullopt;
  ValueType out = a;
  if (a.kind == TypeKind::kOptional && a.element != b.element) {
    // An optional whose element is not known yet gives way to one whose element is.
    if (a.element == TypeKind::kUnknown) {
      out.element = b.element;
    } else if (b.element != TypeKind::kUnknown) {
      return std::nullopt;
    }
  }
  if (a.dtype == DType::kUndefined) {
    out.dtype = b.dtype;
  } else if (b.dtype != DType::kUndefined && a.dtype != b.dtype) {
    return std::nullopt;
  }
  return out;
}

void set_output_value(RuleContext& c, int i, const ValueType& type,
                      const std::optional<Axes>& axes) {
  if (!c.has_output(i)) return;
  if (type.kind == TypeKind::kTensor) {
    if (axes) {
      c.set_output(i, type.dtype, *axes);
    } else {
      c.set_output_unknown_rank(i, type.dtype);
    }
    return;
  }
  c.set_output_type(i, type);
  if (axes && (type.kind == TypeKind::kSequence || type.kind == TypeKind::kOptional)) {
    Value& v = c.output(i);
    v.axes = *axes;
    v.rank_known = true;
  }
}

void pass_through(RuleContext& c, int in, int out) {
  const Value& v = c.input(in);
  set_output_value(c, out, v.type, v.rank_known ? std::optional<Axes>(v.axes) : std::nullopt);
  if (!c.has_output(out)) return;
  if (v.data) c.set_output_data(out, v.data);
  if (v.contents_known) c.set_output_contents(out, v.contents);
}

const TensorData* fixed_constant(const RuleContext& c, int i) {
  if (!c.has_input(i)) return nullptr;
  const Value& v = c.input(i);
  return v.overridable ? nullptr : v.data.get();
}

const Graph& require_graph(const RuleContext& c, std::string_view attr) {
  const Graph* g = c.attr_graph(attr);
  if (!g) c.fail("attribute '" + std::string(attr) + "' (a graph) is required but missing");
  return *g;
}

void require_graph_arity(const RuleContext& c, const Graph& g, std::string_view attr, int inputs,
                         const std::string& why_in, int outputs, const std::string& why_out) {
  const int n_in = static_cast<int>(g.inputs.size());
  const int n_out = static_cast<int>(g.outputs.size());
  if (n_in != inputs)
    c.fail("graph '" + std::string(attr) + "' declares " + std::to_string(n_in) +
           " inputs but must take " + std::to_string(inputs) + " (" + why_in + ")");
  if (n_out != outputs)
    c.fail("graph '" + std::string(attr) + "' has " + std::to_string(n_out) +
           " outputs but must have " + std::to_string(outputs) + " (" + why_out + ")");
}

// ---- body input hints ----

namespace {

BodyInputHint type_only(const Value& v) { return BodyInputHint{v.type, false, {}, {}}; }

BodyInputHint whole(const Value& v) {
  BodyInputHint h{v.type, v.rank_known, {}, {}};
  if (v.rank_known) {
    h.lengths = lengths(v.axes);
    h.axes = v.axes.list();
  }
  return h;
}

// v without the dims in `drop` (positions, ascending), same axes otherwise.
BodyInputHint without_dims(const Value& v, std::initializer_list<int64_t> drop) {
  BodyInputHint h{v.type, false, {}, {}};
  if (!v.rank_known) return h;
  for (int64_t d : drop)
    if (d < 0 || d >= v.rank()) return h;
  h.rank_known = true;
  for (int d = 0; d < v.rank(); ++d) {
    bool dropped = false;
    for (int64_t x : drop) dropped |= x == d;
    if (dropped) continue;
    h.lengths.push_back(v.axes[d].length);
    h.axes.push_back(v.axes[d]);
  }
  return h;
}

const Value* present(const Node& n, const Graph& g, size_t i) {
  if (i >= n.inputs.size() || n.inputs[i] < 0) return nullptr;
  return &g.value(n.inputs[i]);
}

std::vector<std::optional<BodyInputHint>> loop_hints(const Node& n, const Graph& g) {
  std::vector<std::optional<BodyInputHint>> out;
  out.push_back(BodyInputHint{{TypeKind::kTensor, DType::kInt64, TypeKind::kTensor}, true, {}, {}});
  out.push_back(BodyInputHint{{TypeKind::kTensor, DType::kBool, TypeKind::kTensor}, true, {}, {}});
  // Carried values may change shape from one iteration to the next: only their types are known.
  for (size_t i = 2; i < n.inputs.size(); ++i) {
    const Value* v = present(n, g, i);
    out.push_back(v ? std::optional(type_only(*v)) : std::nullopt);
  }
  return out;
}

std::vector<std::optional<BodyInputHint>> scan_hints(const Node& n, const Graph& g) {
  std::vector<std::optional<BodyInputHint>> out;
  const Attribute* m_attr = n.attr("num_scan_inputs");
  if (!m_attr || m_attr->kind != Attribute::Kind::kInt) return out;
  const int64_t m = m_attr->i;
  const bool v8 = n.opset < 9;
  const int64_t first = v8 ? 1 : 0;
  const int64_t total = static_cast<int64_t>(n.inputs.size()) - first;
  if (m < 1 || m > total) return out;
  const int64_t states = total - m;
  std::vector<int64_t> axes;
  if (const Attribute* a = n.attr("scan_input_axes"); a && a->kind == Attribute::Kind::kInts)
    axes = a->ints;
  for (int64_t i = 0; i < total; ++i) {
    const Value* v = present(n, g, static_cast<size_t>(first + i));
    if (!v) {
      out.emplace_back();
      continue;
    }
    if (i < states) {
      out.push_back(v8 ? without_dims(*v, {0}) : whole(*v));
    } else if (v8) {
      out.push_back(without_dims(*v, {0, 1}));
    } else {
      const int64_t k = i - states;
      int64_t axis = k < static_cast<int64_t>(axes.size()) ? axes[k] : 0;
      if (axis < 0 && v->rank_known) axis += v->rank();
      out.push_back(without_dims(*v, {axis}));
    }
  }
  return out;
}

std::vector<std::optional<BodyInputHint>> sequence_map_hints(const Node& n, const Graph& g) {
  std::vector<std::optional<BodyInputHint>> out;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Value* v = present(n, g, i);
    if (!v) {
      out.emplace_back();
    } else if (v->type.kind == TypeKind::kSequence) {
      // One element of the sequence: its lengths are the sequence's element shape, but the
      // elements are different tensors, so the axes are fresh.
      BodyInputHint h{{TypeKind::kTensor, v->type.dtype, TypeKind::kTensor}, v->rank_known, {}, {}};
      if (v->rank_known) h.lengths = lengths(v->axes);
      out.push_back(h);
    } else {
      out.push_back(whole(*v));
    }
  }
  return out;
}

}  // namespace

std::vector<std::optional<BodyInputHint>> body_input_hints(const Node& n, const Graph& g) {
  if (!n.domain.empty()) return {};
  if (n.op == "Loop") return loop_hints(n, g);
  if (n.op == "Scan") return scan_hints(n, g);
  if (n.op == "SequenceMap") return sequence_map_hints(n, g);
  return {};
}

std::string dead_if_branch(const Node& n, const Graph& g) {
  if (!n.domain.empty() || n.op != "If" || n.inputs.empty() || n.inputs[0] < 0) return {};
  const Value& cond = g.value(n.inputs[0]);
  if (!cond.data || cond.overridable || cond.data->desc.dtype != DType::kBool ||
      cond.data->elements() != 1)
    return {};
  return element_as_int(*cond.data, 0) != 0 ? "else_branch" : "then_branch";
}

void apply_body_input_hint(const BodyInputHint& h, AxisFactory& f, Value& v) {
  if (h.type.kind == TypeKind::kUnknown) return;
  const bool untyped = v.type.dtype == DType::kUndefined &&
                       (v.type.kind == TypeKind::kUnknown || v.type.kind == TypeKind::kTensor);
  if (untyped && !v.rank_known) {
    v.type = h.type;
  } else if (v.type.kind == h.type.kind) {
    if (v.type.dtype == DType::kUndefined) v.type.dtype = h.type.dtype;
    if (v.type.kind == TypeKind::kOptional && v.type.element == TypeKind::kUnknown)
      v.type.element = h.type.element;
  } else {
    return;  // declared as something else: the node's rule reports the mismatch
  }
  if (!h.rank_known) return;
  if (v.rank_known) {
    // Declared lengths win; hints only fill unknown ones (and lend their axes when they agree).
    if (v.axes.size() != h.lengths.size()) return;
    for (size_t d = 0; d < h.lengths.size(); ++d)
      if (!v.axes[d].length.is_unknown() && !(v.axes[d].length == h.lengths[d])) return;
  }
  std::vector<Axis> axes = h.axes;
  if (axes.size() != h.lengths.size()) {
    axes.clear();
    for (const Length& l : h.lengths) axes.push_back(make_axis(f, "", l));
  }
  v.axes = Axes(std::move(axes));
  v.rank_known = true;
}

}  // namespace geon::importer
