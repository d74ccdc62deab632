// GraphProto -> Graph: values for initializers, inputs and node outputs (with types from
// TypeProto), nodes in dependency order with their import rules applied, nested graphs for
// control flow, and function calls expanded inline.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "importer/ops/subgraph.h"
#include "importer/proto.h"

namespace geon::importer {

struct BuildState {
  const ImportOptions* opt = nullptr;
  std::map<std::string, int> opsets;  // domain -> version ("" = default)
  std::map<std::pair<std::string, std::string>, const onnx::FunctionProto*> functions;
  int64_t folded_bytes = 0;
  int depth = 0;  // nesting of subgraphs and function expansions
  // Set while a node's graph attributes are built: what the node feeds each body input.
  std::vector<std::optional<BodyInputHint>> input_hints;
  // The raw_data of `cut_graph`'s initializers, cut from the model's bytes before parsing
  // (model_payloads.h): one entry per initializer, read through `payloads`. Null when none were.
  const onnx::GraphProto* cut_graph = nullptr;
  const std::vector<std::optional<Payload>>* cut = nullptr;
  const PayloadReader* payloads = nullptr;
};

std::shared_ptr<Graph> build_graph(const onnx::GraphProto& gp, const Graph* parent, BuildState& st,
                                   std::shared_ptr<AxisFactory> factory);

// Runs the import rule of g.nodes[node_index], which holds its output values already; errors
// name `where`.
void apply_rule(Graph& g, int node_index, BuildState& st, const std::string& where);

// ONNX writes the default domain as "" or "ai.onnx".
std::string normal_domain(const std::string& d);

// A TypeProto as geon type and axes; `where` names it in messages.
void read_type(const onnx::TypeProto& tp, Graph& g, const std::string& where, Value& v);

}  // namespace geon::importer
