// A graph built by hand for the tests that run several nodes (constant folding, the executor
// over the CPU kernel sets): constants with data, inputs with static or symbolic dims, and
// nodes with one output whose shape may be left unknown.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/dtype/scalar.h"
#include "core/graph/graph.h"
#include "core/graph/tensor_data.h"

namespace geon::cpu::testing {

// A graph built by hand: constants with data, inputs, and nodes whose outputs have static
// shapes when given.
struct Builder {
  Graph g;
  Builder() { g.axis_factory = std::make_shared<AxisFactory>(); }

  Axes axes(const Dims& shape) {
    std::vector<Axis> a;
    for (int64_t len : shape) a.push_back(make_axis(g.factory(), "", Length::known(len)));
    return Axes(a);
  }
  int constant(const std::string& name, DType t, const Dims& shape,
               const std::vector<double>& values) {
    auto data = make_tensor_data(t, shape);
    for (size_t i = 0; i < values.size(); ++i) {
      Scalar s;
      s.re = values[i];
      store_scalar(t, data->storage->data(), static_cast<int64_t>(i), s);
    }
    Value v;
    v.name = name;
    v.type.dtype = t;
    v.axes = axes(shape);
    v.rank_known = true;
    v.kind = ValueKind::kConstant;
    v.data = data;
    return g.add_value(std::move(v));
  }
  // Dims of -1 get symbolic lengths, named after the input and the dim.
  int input(const std::string& name, DType t, const Dims& shape) {
    Value v;
    v.name = name;
    v.type.dtype = t;
    std::vector<Axis> a;
    for (size_t d = 0; d < shape.size(); ++d)
      a.push_back(make_axis(
          g.factory(), "",
          shape[d] >= 0 ? Length::known(shape[d]) : Length::symbolic(name + std::to_string(d))));
    v.axes = Axes(a);
    v.rank_known = true;
    v.kind = ValueKind::kInput;
    const int i = g.add_value(std::move(v));
    g.inputs.push_back(i);
    return i;
  }
  // One node with one output; `shape` empty and `known` false leaves the output's rank unknown.
  int node(const std::string& op, std::vector<int> inputs, DType t, const Dims& shape,
           bool known = true, const std::string& domain = "") {
    Value v;
    v.name = op + "_out" + std::to_string(g.values.size());
    v.type.dtype = t;
    if (known) v.axes = axes(shape);
    v.rank_known = known;
    v.producer = static_cast<int>(g.nodes.size());
    const int out = g.add_value(std::move(v));
    Node n;
    n.name = op + std::to_string(g.nodes.size());
    n.op = op;
    n.domain = domain;
    n.opset = 17;
    n.inputs = std::move(inputs);
    n.outputs = {out};
    g.nodes.push_back(std::move(n));
    return out;
  }
  // An int attribute on the node added last.
  void attr_i(const std::string& name, int64_t v) {
    Attribute a;
    a.kind = Attribute::Kind::kInt;
    a.i = v;
    g.nodes.back().attrs[name] = a;
  }
};

}  // namespace geon::cpu::testing
