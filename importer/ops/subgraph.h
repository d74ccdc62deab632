// Helpers for the ops whose values are not plain tensors or that carry nested graphs: If, Loop,
// Scan, SequenceMap, the sequence and optional ops.
//
// One convention for shapes beyond tensors: a sequence's or an optional's `axes` (with
// rank_known) describe the shape of the tensor(s) it holds; for a sequence, a dim where the
// elements may differ has an unknown length. rank_known false says nothing is known.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "importer/rule.h"

namespace geon::importer {

// ---- values of any kind ----

// The lengths of a value (a tensor's, or a sequence's / optional's element shape), nullopt when
// its rank is unknown.
std::optional<std::vector<Length>> known_lengths(const Value& v);
// Per dim: equal lengths stay, differing ones become unknown; nullopt when a rank is unknown or
// the ranks differ.
std::optional<std::vector<Length>> merge_lengths(const std::optional<std::vector<Length>>& a,
                                                 const std::optional<std::vector<Length>>& b);
// Two types that must agree (branch outputs, loop-carried values): kUnknown kinds and undefined
// dtypes give way to the other side; nullopt when they conflict.
std::optional<ValueType> merge_types(const ValueType& a, const ValueType& b);
// Output i gets `type` and, when given, these axes (the element shape for sequences and
// optionals); unknown rank otherwise.
void set_output_value(RuleContext& c, int i, const ValueType& type,
                      const std::optional<Axes>& axes);
// Output i is input `in` unchanged: type, axes, contents and constant data.
void pass_through(RuleContext& c, int in, int out);
// Input i's constant data when it cannot change at run time (not an overridable graph input).
const TensorData* fixed_constant(const RuleContext& c, int i);

// ---- nested graphs ----

// The graph attribute `attr`, or a failure naming it when it is missing.
const Graph& require_graph(const RuleContext& c, std::string_view attr);
// Fails unless `g` declares exactly `inputs` formal inputs and `outputs` outputs; `why_in` and
// `why_out` say what the node expects, for the message.
void require_graph_arity(const RuleContext& c, const Graph& g, std::string_view attr, int inputs,
                         const std::string& why_in, int outputs, const std::string& why_out);
inline const Value& graph_input(const Graph& g, int i) { return g.value(g.inputs.at(i)); }
inline const Value& graph_output(const Graph& g, int i) { return g.value(g.outputs.at(i)); }

// ---- body input types for the graph builder ----

// What a body's formal input is known to be from the node that runs it (Loop: iteration number,
// condition and the carried values' types; Scan: the states, and the scan inputs without their
// scan axis; SequenceMap: the sequences' elements). `axes` (when non-empty) are the very axes to
// use, otherwise fresh ones of `lengths` when rank_known.
struct BodyInputHint {
  ValueType type;
  bool rank_known = false;
  std::vector<Length> lengths;
  std::vector<Axis> axes;
};
// The hints for the graph attributes of node n (inputs and non-graph attributes already read);
// empty when the op has none. Never throws: a malformed node gets no hints, its rule reports it.
std::vector<std::optional<BodyInputHint>> body_input_hints(const Node& n, const Graph& g);
// For an If whose condition is a constant (not an overridable input): the branch attribute it
// never runs ("then_branch" or "else_branch"), else empty. The graph builder tolerates errors
// in that branch and leaves its graph null.
std::string dead_if_branch(const Node& n, const Graph& g);
// Fills in what a body input's declared type leaves out (no type, no elem_type, no shape), or
// sharpens unknown lengths; declared information is never contradicted.
void apply_body_input_hint(const BodyInputHint& h, AxisFactory& f, Value& v);

}  // namespace geon::importer
