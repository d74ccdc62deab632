// Import rules: the control flow family. If (branches are nested graphs built before the rule
// runs, with this graph as their parent) and the optional ops here; Loop and Scan in
// control_flow_loops.cc. (Identity's rule lives with the shape family, in shape_view.cc.)
#include "importer/ops/control_flow.h"

#include <string>
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/families.h"
#include "importer/ops/subgraph.h"

namespace geon::importer {

void require_kind_allowed(const RuleContext& c, const ValueType& t, const std::string& what) {
  if (t.kind == TypeKind::kSequence && c.opset() < 13)
    c.fail(what + " is a sequence, which needs opset 13 or later");
  if (t.kind == TypeKind::kOptional && c.opset() < 16)
    c.fail(what + " is an optional, which needs opset 16 or later");
  if (t.kind == TypeKind::kMap || t.kind == TypeKind::kSparseTensor ||
      (t.kind == TypeKind::kSequence && t.element == TypeKind::kMap))
    c.fail(what + " is " + to_string(t) + ", which control flow does not carry");
}

namespace {

// A branch output's axes where both branches agree on them: the same axis where both have it
// (e.g. both return an outer value), else a new axis of the common length (unknown where the
// lengths differ); nullopt when the ranks differ or either is unknown.
std::optional<Axes> merged_axes(RuleContext& c, const Value& a, const Value& b) {
  if (!a.rank_known || !b.rank_known || a.rank() != b.rank()) return std::nullopt;
  std::vector<Axis> out;
  for (int d = 0; d < a.rank(); ++d) {
    if (same_axis(a.axes[d], b.axes[d])) {
      out.push_back(a.axes[d]);
    } else {
      const Length& la = a.axes[d].length;
      out.push_back(c.new_axis(la == b.axes[d].length ? la : Length::unknown()));
    }
  }
  return distinct_axes(c, std::move(out));
}

void if_rule(RuleContext& c) {
  if (c.num_inputs() != 1)
    c.fail("takes exactly 1 input (cond), got " + std::to_string(c.num_inputs()));
  const Value& cond = c.input(0);
  if (cond.type.kind != TypeKind::kTensor && cond.type.kind != TypeKind::kUnknown)
    c.fail("input 0 (cond) must be a bool tensor, got " + to_string(cond.type));
  if (cond.dtype() != DType::kBool && cond.dtype() != DType::kUndefined)
    c.fail("input 0 (cond) must be bool, got " + std::string(dtype_name(cond.dtype())));
  if (cond.rank_known)
    if (auto s = static_lengths(cond.axes); s && element_count(*s) != 1)
      c.fail("input 0 (cond) must hold exactly one element, got shape " +
             to_string_with_lengths(cond.axes));
  // A condition known at import time selects its branch: the outputs are that branch's
  // values, contents and constants included. The other branch may have been dropped by the
  // graph builder (null) when it does not import.
  const TensorData* cd = fixed_constant(c, 0);
  std::optional<bool> cond_value;
  if (cd && cd->elements() == 1 && cd->desc.dtype == DType::kBool)
    cond_value = element_as_int(*cd, 0) != 0;
  const Graph* branch[2] = {nullptr, nullptr};  // then, else
  const char* names[2] = {"then_branch", "else_branch"};
  const int n = c.num_outputs();
  const std::string outs = "one per output of the node, which has " + std::to_string(n);
  for (int b = 0; b < 2; ++b) {
    const bool live = !cond_value || *cond_value == (b == 0);
    if (!c.has_attr(names[b]) || live) {
      branch[b] = &require_graph(c, names[b]);
    } else {
      branch[b] = c.attr_graph(names[b]);  // null: dropped, it never runs
    }
    if (branch[b])
      require_graph_arity(c, *branch[b], names[b], 0, "If branches take no inputs", n, outs);
  }
  const Graph* taken = cond_value ? branch[*cond_value ? 0 : 1] : nullptr;

  for (int k = 0; k < n; ++k) {
    const std::string what = "output " + std::to_string(k);
    std::optional<ValueType> type = ValueType{TypeKind::kUnknown, DType::kUndefined};
    for (int b = 0; b < 2; ++b) {
      if (!branch[b]) continue;
      const Value& v = graph_output(*branch[b], k);
      require_kind_allowed(c, v.type, what + " of " + names[b] + " ('" + v.name + "')");
    }
    if (branch[0] && branch[1]) {
      const Value& a = graph_output(*branch[0], k);
      const Value& b = graph_output(*branch[1], k);
      type = merge_types(a.type, b.type);
      if (!type)
        c.fail(what + ": then_branch gives " + to_string(a.type) + " ('" + a.name +
               "') but else_branch gives " + to_string(b.type) + " ('" + b.name + "')");
    }
    if (!c.has_output(k)) continue;
    if (taken) {
      const Value& v = graph_output(*taken, k);
      set_output_value(c, k, *merge_types(*type, v.type),
                       v.rank_known ? std::optional<Axes>(v.axes) : std::nullopt);
      if (v.data) c.set_output_data(k, v.data);
      if (v.contents_known) c.set_output_contents(k, v.contents);
      continue;
    }
    const Value& a = graph_output(*branch[0], k);
    const Value& b = graph_output(*branch[1], k);
    set_output_value(c, k, *type, merged_axes(c, a, b));
    if (a.contents_known && b.contents_known && a.contents == b.contents)
      c.set_output_contents(k, a.contents);
  }
}

// ---- optionals ----

void optional_rule(RuleContext& c) {
  if (c.num_inputs() > 1) c.fail("takes at most 1 input, got " + std::to_string(c.num_inputs()));
  const Attribute* type_attr = c.node().attr("type");
  if (type_attr && (type_attr->kind != Attribute::Kind::kTypeProto || type_attr->types.size() != 1))
    c.fail("attribute 'type' must be a type_proto, got " +
           std::string(attribute_kind_name(type_attr->kind)));
  if (!c.has_input(0)) {
    if (!type_attr) c.fail("an empty optional (no input) needs the 'type' attribute");
    const ValueType& t = type_attr->types[0];
    if (t.kind != TypeKind::kTensor && t.kind != TypeKind::kSequence)
      c.fail("attribute 'type' must be a tensor or sequence type, got " + to_string(t));
    set_output_value(c, 0, ValueType{TypeKind::kOptional, t.dtype, t.kind}, std::nullopt);
    return;
  }
  const Value& in = c.input(0);
  if ((in.type.kind != TypeKind::kTensor && in.type.kind != TypeKind::kSequence &&
       in.type.kind != TypeKind::kUnknown) ||
      in.type.element == TypeKind::kMap)
    c.fail("input 0 must be a tensor or a sequence of tensors, got " + to_string(in.type));
  if (type_attr) {
    const ValueType& t = type_attr->types[0];
    if (!merge_types(t, ValueType{in.type.kind, in.dtype(), TypeKind::kTensor}))
      c.fail("attribute 'type' says " + to_string(t) + " but input 0 is " + to_string(in.type));
  }
  const ValueType t{TypeKind::kOptional, in.dtype(), in.type.kind};
  set_output_value(c, 0, t, in.rank_known ? std::optional<Axes>(in.axes) : std::nullopt);
}

// Opset 15 takes an optional only; 18 also a tensor or sequence.
void require_optional_input(const RuleContext& c, bool required) {
  if (c.num_inputs() > 1) c.fail("takes at most 1 input, got " + std::to_string(c.num_inputs()));
  if (!c.has_input(0)) {
    if (required) c.fail("input 0 is required before opset 18");
    return;
  }
  const ValueType& t = c.input(0).type;
  if (t.kind == TypeKind::kOptional || t.kind == TypeKind::kUnknown) return;
  if (c.opset() < 18) c.fail("input 0 must be an optional before opset 18, got " + to_string(t));
  if ((t.kind != TypeKind::kTensor && t.kind != TypeKind::kSequence) || t.element == TypeKind::kMap)
    c.fail("input 0 must be an optional, a tensor or a sequence of tensors, got " + to_string(t));
}

void optional_has_element(RuleContext& c, bool input_required) {
  require_optional_input(c, input_required);
  c.set_output(0, DType::kBool, std::span<const int64_t>{});
  // Known at import: no input is empty, a plain tensor or sequence is present, and so is the
  // output of an Optional node that was given its input.
  std::optional<bool> known;
  if (!c.has_input(0)) {
    known = false;
  } else {
    const Value& v = c.input(0);
    if (v.type.kind == TypeKind::kTensor || v.type.kind == TypeKind::kSequence) {
      known = true;
    } else if (v.producer >= 0 && v.kind == ValueKind::kIntermediate) {
      const Node& p = c.graph().nodes[v.producer];
      if (p.domain.empty() && p.op == "Optional") known = !p.inputs.empty() && p.inputs[0] >= 0;
    }
  }
  if (known) {
    auto d = make_tensor_data(DType::kBool, {});
    *reinterpret_cast<bool*>(d->storage->data()) = *known;
    c.set_output_data(0, d);
  }
}

// Opset 15 takes only an optional; 18 also a tensor or sequence, or no input (always empty).
void optional_has_element_15(RuleContext& c) { optional_has_element(c, true); }
void optional_has_element_18(RuleContext& c) { optional_has_element(c, false); }

void optional_get_element(RuleContext& c) {
  require_optional_input(c, true);
  const Value& in = c.input(0);
  if (in.type.kind != TypeKind::kOptional) {
    pass_through(c, 0, 0);  // opset 18: a tensor or sequence is its own element
    return;
  }
  // The element keeps the optional's axes: it is the very tensor the optional holds.
  const ValueType t{in.type.element, in.dtype(), TypeKind::kTensor};
  set_output_value(c, 0, t, in.rank_known ? std::optional<Axes>(in.axes) : std::nullopt);
}

}  // namespace

std::span<const RuleEntry> control_flow_rules() {
  static const std::vector<RuleEntry> rules = [] {
    std::vector<RuleEntry> t = {
        {"", "If", 1, if_rule},
        {"", "Optional", 15, optional_rule},
        {"", "OptionalHasElement", 15, optional_has_element_15},
        {"", "OptionalHasElement", 18, optional_has_element_18},
        {"", "OptionalGetElement", 15, optional_get_element},
    };
    for (const RuleEntry& r : control_flow_loop_rules()) t.push_back(r);
    return t;
  }();
  return rules;
}

}  // namespace geon::importer
