// Import rules: one function per (domain, op, since-version) that checks a node's inputs,
// types and attributes and sets its outputs' dtypes and axes (and, when it can, their
// contents: constant folding). Rules see the node through RuleContext only.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"
#include "importer/import.h"

namespace geon::importer {

class RuleContext {
 public:
  RuleContext(Graph& g, int node_index, const ImportOptions& opt, int64_t& folded_bytes);

  const Node& node() const { return g_.nodes[node_]; }
  int opset() const { return node().opset; }
  Graph& graph() { return g_; }
  const ImportOptions& options() const { return opt_; }

  // ---- inputs ----
  int num_inputs() const { return static_cast<int>(node().inputs.size()); }
  bool has_input(int i) const { return i < num_inputs() && node().inputs[i] >= 0; }
  // The input value; an Error naming the input when it is absent.
  const Value& input(int i) const;
  DType input_dtype(int i) const { return input(i).dtype(); }
  // Static lengths of input i, or nullopt when the rank or any length is not static.
  std::optional<Dims> static_shape(int i) const;
  // Constant contents of input i, or null. Null too for an overridable initializer (a graph
  // input with a default): folding must not bake in a value a run may replace.
  const TensorData* constant(int i) const;
  // The entries of a small integer input (a shape, axes, pads...), each static or symbolic:
  // from its constant data or from shape propagation; nullopt when unknown. Static entries
  // may be negative (a -1 in a Reshape shape): they are numbers, not lengths. An overridable
  // initializer's default is used here (shape inference only; a run that overrides it with
  // other contents must be re-planned by the executor).
  std::optional<std::vector<Length>> contents(int i) const;
  // The entries as numbers, when all are static.
  std::optional<std::vector<int64_t>> int_contents(int i) const;

  // ---- attributes ----
  bool has_attr(std::string_view name) const { return node().attr(name) != nullptr; }
  int64_t attr_int(std::string_view name, std::optional<int64_t> fallback = std::nullopt) const;
  float attr_float(std::string_view name, std::optional<float> fallback = std::nullopt) const;
  std::string attr_string(std::string_view name,
                          std::optional<std::string> fallback = std::nullopt) const;
  std::vector<int64_t> attr_ints(std::string_view name,
                                 std::optional<std::vector<int64_t>> fallback = std::nullopt) const;
  std::vector<float> attr_floats(std::string_view name,
                                 std::optional<std::vector<float>> fallback = std::nullopt) const;
  std::vector<std::string> attr_strings(
      std::string_view name, std::optional<std::vector<std::string>> fallback = std::nullopt) const;
  const TensorData* attr_tensor(std::string_view name) const;  // null when absent
  const Graph* attr_graph(std::string_view name) const;        // null when absent

  // ---- outputs ----
  int num_outputs() const { return static_cast<int>(node().outputs.size()); }
  bool has_output(int i) const { return i < num_outputs() && node().outputs[i] >= 0; }
  Value& output(int i);
  // Sets output i's dtype and axes (ignored when the output is not requested).
  void set_output(int i, DType dtype, Axes axes);
  void set_output(int i, DType dtype, std::span<const Length> lengths);
  void set_output(int i, DType dtype, std::span<const int64_t> lengths);
  void set_output_unknown_rank(int i, DType dtype);
  void set_output_type(int i, ValueType type);  // sequences, optionals
  // Folding: the output's contents. Refused silently (the value stays computed at run time)
  // above the importer's folding limits.
  void set_output_data(int i, std::shared_ptr<const TensorData> data);
  void set_output_contents(int i, std::vector<Length> contents);
  bool all_inputs_constant() const;

  // ---- axes ----
  Axis new_axis(const Length& len, const std::string& name = {});
  Axes new_axes(std::span<const Length> lengths);
  Axes new_axes(std::span<const int64_t> lengths);
  // numpy broadcast of inputs (all present ones when `which` is empty), as output axes.
  Axes broadcast_inputs(std::span<const int> which = {});
  // normalizes axis against rank (negative allowed), or an Error naming the attribute.
  int normalize_axis(int64_t axis, int rank, std::string_view what = "axis") const;

  // ---- errors ----
  [[noreturn]] void fail(const std::string& why) const;
  [[noreturn]] void unsupported(const std::string& why) const;
  void require(bool ok, const std::string& why) const {
    if (!ok) fail(why);
  }
  // "node 'name' (Op-13)" for messages
  std::string where() const;

 private:
  Graph& g_;
  int node_;
  const ImportOptions& opt_;
  int64_t& folded_bytes_;
};

using RuleFn = void (*)(RuleContext&);

struct RuleEntry {
  std::string_view domain;  // "" = the default ONNX domain
  std::string_view op;
  int since;  // the rule applies to opsets >= since, until a later entry for the same op
  RuleFn fn;
};

// The rule for a node, chosen by its domain's opset; null when the op has none at this
// version. `known_op` tells whether any version of the op has a rule.
const RuleEntry* find_rule(std::string_view domain, std::string_view op, int opset, bool* known_op);
// Every rule, for tests and for listing supported ops.
std::span<const RuleEntry> all_rules();

}  // namespace geon::importer
