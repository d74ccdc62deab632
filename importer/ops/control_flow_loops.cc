// Import rules: Loop and Scan. Their bodies are nested graphs built before the rule runs (with
// input types from body_input_hints where the body leaves them out); the rules check the
// bodies' formal inputs and outputs against the node and derive the outputs: carried values
// and states from the initial values and the body, scan outputs with a new leading (Loop) or
// chosen (Scan) axis for the iterations.
#include <string>
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/control_flow.h"
#include "importer/ops/subgraph.h"

namespace geon::importer {
namespace {

std::string count_of(int n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// Requires a scalar-like (one element) input of dtype t when present.
void require_one_element(const RuleContext& c, int i, DType t, const std::string& role) {
  if (!c.has_input(i)) return;
  const Value& v = c.input(i);
  if (v.type.kind != TypeKind::kTensor && v.type.kind != TypeKind::kUnknown)
    c.fail("input " + std::to_string(i) + " (" + role + ") must be a tensor, got " +
           to_string(v.type));
  if (v.dtype() != t && v.dtype() != DType::kUndefined)
    c.fail("input " + std::to_string(i) + " (" + role + ") must be " + std::string(dtype_name(t)) +
           ", got " + std::string(dtype_name(v.dtype())));
  if (v.rank_known)
    if (auto s = static_lengths(v.axes); s && element_count(*s) != 1)
      c.fail("input " + std::to_string(i) + " (" + role + ") must hold one element, got shape " +
             to_string_with_lengths(v.axes));
}

// Fails when a body's formal input is declared with a type the node cannot feed it.
void require_body_input_type(const RuleContext& c, const Value& formal, const ValueType& fed,
                             const std::string& what) {
  if (!merge_types(formal.type, fed))
    c.fail("body input '" + formal.name + "' (" + what + ") is declared " + to_string(formal.type) +
           " but the node feeds it " + to_string(fed));
}

// ---- Loop ----

// Whether the body's condition output is true on every iteration: a true constant, or the
// condition input passed through (Identity) when the loop's own condition is always true.
bool always_true(const Graph& body, int value, bool initial_true) {
  for (int steps = 0; steps < 16 && value >= 0; ++steps) {
    const Value& v = body.value(value);
    if (v.data) return v.data->elements() == 1 && element_as_int(*v.data, 0) != 0;
    if (body.inputs.size() > 1 && value == body.inputs[1]) return initial_true;
    if (v.producer < 0) return false;
    const Node& p = body.nodes[v.producer];
    if (!p.domain.empty() || p.op != "Identity" || p.inputs.empty()) return false;
    value = p.inputs[0];
  }
  return false;
}

// The number of iterations when it is known: M (a constant or a symbolic length) and no way
// to stop early.
Length trip_count(const RuleContext& c, const Graph& body) {
  if (!c.has_input(0)) return Length::unknown();
  bool cond_true = !c.has_input(1);
  if (const TensorData* d = fixed_constant(c, 1); d && d->elements() == 1)
    cond_true = element_as_int(*d, 0) != 0;
  if (!cond_true) return Length::unknown();  // cond may be false at the start
  if (!always_true(body, body.outputs.empty() ? -1 : body.outputs[0], true))
    return Length::unknown();
  if (const TensorData* d = fixed_constant(c, 0); d && d->elements() == 1)
    return Length::known(std::max<int64_t>(element_as_int(*d, 0), 0));
  if (!c.input(0).data) {
    if (auto m = c.contents(0); m && m->size() == 1 && ((*m)[0].is_symbol())) return (*m)[0];
  }
  return Length::unknown();
}

// A carried value's type: the initial value's and the body's agree, or one is an optional of
// the other (an empty optional filled in by the first iteration, as ONNX's Loop-16 allows); the
// body's type is the output's then.
std::optional<ValueType> carried_type(const ValueType& initial, const ValueType& result) {
  if (auto t = merge_types(initial, result)) return t;
  const auto wraps = [](const ValueType& opt, const ValueType& v) {
    return opt.kind == TypeKind::kOptional &&
           (opt.element == v.kind || opt.element == TypeKind::kUnknown) &&
           (opt.dtype == v.dtype || opt.dtype == DType::kUndefined || v.dtype == DType::kUndefined);
  };
  if (wraps(initial, result) || wraps(result, initial)) {
    ValueType t = result;
    if (t.dtype == DType::kUndefined) t.dtype = initial.dtype;
    return t;
  }
  return std::nullopt;
}

// A carried value's final shape: where the initial value and the body's output agree. A dim the
// body passes through unchanged keeps the initial value's axis.
std::optional<Axes> carried_axes(RuleContext& c, const Value& initial, const Value& formal,
                                 const Value& result) {
  if (!initial.rank_known || !result.rank_known || initial.rank() != result.rank())
    return std::nullopt;
  std::vector<Axis> out;
  for (int d = 0; d < initial.rank(); ++d) {
    const Length& a = initial.axes[d].length;
    const Length& b = result.axes[d].length;
    const bool kept = formal.rank_known && formal.rank() == result.rank() &&
                      same_axis(formal.axes[d], result.axes[d]);
    if (a == b && (kept || same_axis(initial.axes[d], result.axes[d]))) {
      out.push_back(initial.axes[d]);
    } else {
      out.push_back(c.new_axis(a == b ? a : Length::unknown()));
    }
  }
  return distinct_axes(c, std::move(out));
}

void loop_rule(RuleContext& c) {
  if (c.num_inputs() < 2)
    c.fail("takes M and cond (either may be empty) before the carried values, got " +
           count_of(c.num_inputs(), "input"));
  require_one_element(c, 0, DType::kInt64, "M, the trip count");
  require_one_element(c, 1, DType::kBool, "cond");
  const Graph& body = require_graph(c, "body");
  const int n = c.num_inputs() - 2;  // carried values
  if (c.num_outputs() < n)
    c.fail("has " + count_of(c.num_outputs(), "output") + " but " + count_of(n, "carried value") +
           "; each carried value needs an output");
  const int k = c.num_outputs() - n;  // scan outputs
  require_graph_arity(
      c, body, "body", n + 2, "iteration number, condition and " + count_of(n, "carried value"),
      n + k + 1,
      "condition, " + count_of(n, "carried value") + " and " + count_of(k, "scan output"));
  require_body_input_type(c, graph_input(body, 0), {TypeKind::kTensor, DType::kInt64},
                          "iteration number");
  require_body_input_type(c, graph_input(body, 1), {TypeKind::kTensor, DType::kBool}, "condition");
  const Value& cond_out = graph_output(body, 0);
  if (cond_out.dtype() != DType::kBool && cond_out.dtype() != DType::kUndefined)
    c.fail("body output 0 ('" + cond_out.name + "', the condition) must be bool, got " +
           to_string(cond_out.type));

  for (int j = 0; j < n; ++j) {
    const std::string what = "carried value " + std::to_string(j);
    if (!c.has_input(2 + j))
      c.fail("input " + std::to_string(2 + j) + " (" + what + ") is missing");
    const Value& initial = c.input(2 + j);
    const Value& formal = graph_input(body, 2 + j);
    const Value& result = graph_output(body, 1 + j);
    require_kind_allowed(c, initial.type, "input " + std::to_string(2 + j));
    require_kind_allowed(c, result.type, "body output " + std::to_string(1 + j));
    require_body_input_type(c, formal, initial.type, what);
    const auto type = carried_type(initial.type, result.type);
    if (!type)
      c.fail(what + ": the initial value is " + to_string(initial.type) + " but body output " +
             std::to_string(1 + j) + " ('" + result.name + "') is " + to_string(result.type));
    set_output_value(c, j, *type, carried_axes(c, initial, formal, result));
  }

  const Length iterations = trip_count(c, body);
  for (int s = 0; s < k; ++s) {
    const Value& r = graph_output(body, 1 + n + s);
    if (r.type.kind != TypeKind::kTensor && r.type.kind != TypeKind::kUnknown)
      c.fail("body output " + std::to_string(1 + n + s) + " ('" + r.name +
             "') is a scan output and must be a tensor, got " + to_string(r.type));
    if (!r.rank_known) {
      c.set_output_unknown_rank(n + s, r.dtype());
      continue;
    }
    std::vector<Axis> axes{c.new_axis(iterations)};
    for (const Axis& a : r.axes) axes.push_back(c.new_axis(a.length));
    c.set_output(n + s, r.dtype(), Axes(std::move(axes)));
  }
}

// ---- Scan ----

struct ScanPlan {
  int first = 0;  // index of the first state input (1 at opset 8: sequence_lens comes first)
  int states = 0, scans = 0, scan_outputs = 0;
};

ScanPlan scan_plan(RuleContext& c, bool v8) {
  ScanPlan p;
  p.first = v8 ? 1 : 0;
  const int64_t m = c.attr_int("num_scan_inputs");
  const int total = c.num_inputs() - p.first;
  if (m < 1 || m > total)
    c.fail("attribute 'num_scan_inputs' is " + std::to_string(m) + " but must be between 1 and " +
           "the " + count_of(total, "state and scan input"));
  p.scans = static_cast<int>(m);
  p.states = total - p.scans;
  if (c.num_outputs() < p.states)
    c.fail("has " + count_of(c.num_outputs(), "output") + " but " +
           count_of(p.states, "state variable") + "; each state needs an output");
  p.scan_outputs = c.num_outputs() - p.states;
  for (int i = p.first; i < c.num_inputs(); ++i)
    if (!c.has_input(i)) c.fail("input " + std::to_string(i) + " is missing");
  return p;
}

std::vector<int64_t> direction_list(RuleContext& c, const char* name, int count) {
  std::vector<int64_t> d = c.attr_ints(name, std::vector<int64_t>(count, 0));
  if (static_cast<int>(d.size()) != count)
    c.fail("attribute '" + std::string(name) + "' has " + std::to_string(d.size()) +
           " entries but must have " + std::to_string(count));
  for (int64_t x : d)
    if (x != 0 && x != 1)
      c.fail("attribute '" + std::string(name) + "' entries must be 0 or 1, got " +
             std::to_string(x));
  return d;
}

// The states: the outputs keep the initial values' axes (a state's shape cannot change), and
// the body's declared inputs and outputs must agree with them.
void scan_states(RuleContext& c, const Graph& body, const ScanPlan& p, int batch_dims) {
  for (int j = 0; j < p.states; ++j) {
    const Value& initial = c.input(p.first + j);
    const Value& formal = graph_input(body, j);
    const Value& result = graph_output(body, j);
    const std::string what = "state " + std::to_string(j);
    if (initial.type.kind != TypeKind::kTensor && initial.type.kind != TypeKind::kUnknown)
      c.fail("input " + std::to_string(p.first + j) + " (" + what + ") must be a tensor, got " +
             to_string(initial.type));
    require_body_input_type(c, formal, initial.type, what);
    const auto type = merge_types(initial.type, result.type);
    if (!type)
      c.fail(what + ": the initial value is " + to_string(initial.type) + " but body output " +
             std::to_string(j) + " ('" + result.name + "') is " + to_string(result.type));
    if (initial.rank_known && result.rank_known) {
      bool same = initial.rank() == result.rank() + batch_dims;
      for (int d = 0; same && d < result.rank(); ++d)
        same = compare_lengths(initial.axes[d + batch_dims].length, result.axes[d].length) !=
               LengthRelation::kDifferent;
      if (!same)
        c.fail(what + ": the initial value has shape " + to_string_with_lengths(initial.axes) +
               " but body output " + std::to_string(j) + " ('" + result.name + "') has " +
               to_string_with_lengths(result.axes) + "; a state keeps its shape");
    }
    if (initial.rank_known) {
      c.set_output(j, type->dtype, initial.axes);
    } else if (result.rank_known && batch_dims == 0) {
      c.set_output(j, type->dtype, lengths(result.axes));
    } else {
      c.set_output_unknown_rank(j, type->dtype);
    }
  }
}

// The iteration count, from the scan inputs' scan axes, which must agree; also the axis the
// scan outputs' new dims are made like.
struct ScanLength {
  Length length;
  std::optional<Axis> like;
};

void note_scan_length(RuleContext& c, ScanLength& s, const Axis& axis, int input) {
  if (!s.like) {
    s = {axis.length, axis};
    return;
  }
  if (compare_lengths(s.length, axis.length) == LengthRelation::kDifferent)
    c.fail("scan input " + std::to_string(input) + " has " + to_string(axis.length) +
           " iterations along its scan axis but an earlier scan input has " + to_string(s.length));
  if (s.length.is_unknown()) s.length = axis.length;
}

void scan_outputs(RuleContext& c, const Graph& body, const ScanPlan& p, const ScanLength& iters,
                  const std::vector<int64_t>& output_axes, const std::optional<Axis>& batch) {
  for (int k = 0; k < p.scan_outputs; ++k) {
    const int o = p.states + k;
    const Value& r = graph_output(body, o);
    if (r.type.kind != TypeKind::kTensor && r.type.kind != TypeKind::kUnknown)
      c.fail("body output " + std::to_string(o) + " ('" + r.name + "') must be a tensor, got " +
             to_string(r.type));
    if (!r.rank_known) {
      c.set_output_unknown_rank(o, r.dtype());
      continue;
    }
    std::vector<Axis> axes;
    for (const Axis& a : r.axes) axes.push_back(c.new_axis(a.length));
    const Axis scan_axis = iters.like
                               ? make_axis_like(c.graph().factory(), *iters.like, iters.length)
                               : c.new_axis(iters.length);
    int at = 0;
    if (!output_axes.empty())
      at = c.normalize_axis(output_axes[k], r.rank() + 1,
                            "scan_output_axes[" + std::to_string(k) + "]");
    axes.insert(axes.begin() + at, scan_axis);
    if (batch) axes.insert(axes.begin(), *batch);
    c.set_output(o, r.dtype(), distinct_axes(c, std::move(axes)));
  }
}

void check_scan_body(RuleContext& c, const Graph& body, const ScanPlan& p) {
  require_graph_arity(
      c, body, "body", p.states + p.scans,
      count_of(p.states, "state") + " and " + count_of(p.scans, "scan input"),
      p.states + p.scan_outputs,
      count_of(p.states, "state") + " and " + count_of(p.scan_outputs, "scan output"));
}

// Opset 9 on: no batch dim; each scan input is sliced along its scan_input_axes entry.
void scan_9(RuleContext& c) {
  const ScanPlan p = scan_plan(c, false);
  const Graph& body = require_graph(c, "body");
  check_scan_body(c, body, p);
  direction_list(c, "scan_input_directions", p.scans);
  direction_list(c, "scan_output_directions", p.scan_outputs);
  const std::vector<int64_t> in_axes =
      c.attr_ints("scan_input_axes", std::vector<int64_t>(p.scans, 0));
  if (static_cast<int>(in_axes.size()) != p.scans)
    c.fail("attribute 'scan_input_axes' has " + std::to_string(in_axes.size()) +
           " entries but there are " + count_of(p.scans, "scan input"));
  const std::vector<int64_t> out_axes =
      c.attr_ints("scan_output_axes", std::vector<int64_t>(p.scan_outputs, 0));
  if (static_cast<int>(out_axes.size()) != p.scan_outputs)
    c.fail("attribute 'scan_output_axes' has " + std::to_string(out_axes.size()) +
           " entries but there are " + count_of(p.scan_outputs, "scan output"));

  scan_states(c, body, p, 0);
  ScanLength iters;
  for (int s = 0; s < p.scans; ++s) {
    const int i = p.states + s;
    const Value& x = c.input(i);
    const Value& formal = graph_input(body, i);
    if (x.type.kind != TypeKind::kTensor && x.type.kind != TypeKind::kUnknown)
      c.fail("input " + std::to_string(i) + " (scan input " + std::to_string(s) +
             ") must be a tensor, got " + to_string(x.type));
    require_body_input_type(c, formal, x.type, "scan input " + std::to_string(s));
    if (!x.rank_known) continue;
    const int axis =
        c.normalize_axis(in_axes[s], x.rank(), "scan_input_axes[" + std::to_string(s) + "]");
    if (formal.rank_known && formal.rank() != x.rank() - 1)
      c.fail("body input '" + formal.name + "' has rank " + std::to_string(formal.rank()) +
             " but scan input " + std::to_string(s) + " of rank " + std::to_string(x.rank()) +
             " gives slices of rank " + std::to_string(x.rank() - 1));
    note_scan_length(c, iters, x.axes[axis], i);
  }
  scan_outputs(c, body, p, iters, out_axes, std::nullopt);
}

// Opset 8: input 0 is the optional sequence_lens; every input has a leading batch dim, scan
// inputs are sliced along dim 1, and scan outputs are [batch, iterations, ...].
void scan_8(RuleContext& c) {
  const ScanPlan p = scan_plan(c, true);
  const Graph& body = require_graph(c, "body");
  check_scan_body(c, body, p);
  direction_list(c, "directions", p.scans);
  if (c.has_input(0)) {
    const Value& lens = c.input(0);
    if (lens.dtype() != DType::kInt64 && lens.dtype() != DType::kUndefined)
      c.fail("input 0 (sequence_lens) must be int64, got " + to_string(lens.type));
  }
  scan_states(c, body, p, 1);
  ScanLength iters;
  std::optional<Axis> batch;
  for (int i = p.first; i < c.num_inputs(); ++i) {
    const Value& x = c.input(i);
    if (!x.rank_known) continue;
    const bool is_scan = i - p.first >= p.states;
    if (x.rank() < (is_scan ? 2 : 1))
      c.fail("input " + std::to_string(i) + " must have a batch dim" +
             (is_scan ? " and a sequence dim" : "") + ", got shape " +
             to_string_with_lengths(x.axes));
    if (!batch) {
      batch = x.axes[0];
    } else if (compare_lengths(batch->length, x.axes[0].length) == LengthRelation::kDifferent) {
      c.fail("input " + std::to_string(i) + " has batch size " + to_string(x.axes[0].length) +
             " but an earlier input has " + to_string(batch->length));
    }
    if (is_scan) note_scan_length(c, iters, x.axes[1], i);
  }
  scan_outputs(c, body, p, iters, {}, batch);
}

}  // namespace

std::vector<RuleEntry> control_flow_loop_rules() {
  return {
      {"", "Loop", 1, loop_rule},
      {"", "Scan", 8, scan_8},
      {"", "Scan", 9, scan_9},
  };
}

}  // namespace geon::importer
