// A tiny builder for hand-made Graphs in the runtime tests: named float values and nodes in
// topological order, without the importer.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>

#include "core/graph/graph.h"

namespace geon::testing {

class GraphBuilder {
 public:
  GraphBuilder() { g_.axis_factory = std::make_shared<AxisFactory>(); }

  int input(const std::string& name, DType dt = DType::kFloat) {
    const int v = add(name, dt, ValueKind::kInput);
    g_.inputs.push_back(v);
    return v;
  }
  int constant(const std::string& name, DType dt = DType::kFloat) {
    return add(name, dt, ValueKind::kConstant);
  }
  // A node named `name` with one output also named after it (unless given); returns the
  // output value.
  int node(const std::string& name, const std::string& op, std::initializer_list<int> inputs,
           DType out = DType::kFloat, std::string out_name = "") {
    const int v = add(out_name.empty() ? name : out_name, out, ValueKind::kIntermediate);
    Node n;
    n.name = name;
    n.op = op;
    n.opset = 13;
    n.inputs = inputs;
    n.outputs = {v};
    g_.values[v].producer = static_cast<int>(g_.nodes.size());
    g_.nodes.push_back(std::move(n));
    return v;
  }
  void output(int v) { g_.outputs.push_back(v); }
  Graph& graph() { return g_; }
  Node& last() { return g_.nodes.back(); }

 private:
  int add(const std::string& name, DType dt, ValueKind kind) {
    Value v;
    v.name = name;
    v.type.dtype = dt;
    v.kind = kind;
    v.rank_known = true;
    return g_.add_value(std::move(v));
  }
  Graph g_;
};

}  // namespace geon::testing
