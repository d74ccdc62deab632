// One ONNX node in a hand-built graph, for the core/onnx tests: inputs with a dtype and a
// rank (or unknown rank), constant integer inputs with their contents, attributes; and a check
// that a supports reason says what it should.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"
#include "core/graph/tensor_data.h"
#include "core/onnx/node.h"

namespace geon::onnx::testing {

// A supports reason that says `part` (false for no reason at all).
inline bool contains(const Reason& r, std::string_view part) {
  return r && r->find(part) != std::string::npos;
}

struct OneNode {
  Graph g;
  Node n;

  explicit OneNode(std::string op, int opset = 18) {
    g.axis_factory = std::make_shared<AxisFactory>();
    n.op = std::move(op);
    n.name = "node0";
    n.opset = opset;
  }
  // An input of dtype t and rank `rank` (-1: unknown rank).
  OneNode& in(DType t, int rank = 2) {
    n.inputs.push_back(add(t, rank));
    return *this;
  }
  OneNode& omitted() {
    n.inputs.push_back(-1);
    return *this;
  }
  // A constant 1-D int64 input.
  OneNode& constant(const std::vector<int64_t>& v) {
    const int id = add(DType::kInt64, 1);
    auto data = make_tensor_data(DType::kInt64, {static_cast<int64_t>(v.size())});
    auto* p = reinterpret_cast<int64_t*>(data->storage->data());
    for (size_t i = 0; i < v.size(); ++i) p[i] = v[i];
    g.value(id).data = data;
    g.value(id).kind = ValueKind::kConstant;
    n.inputs.push_back(id);
    return *this;
  }
  OneNode& out(DType t) {
    n.outputs.push_back(add(t, -1));
    return *this;
  }
  OneNode& attr_i(const std::string& name, int64_t v) {
    Attribute a;
    a.kind = Attribute::Kind::kInt;
    a.i = v;
    n.attrs[name] = a;
    return *this;
  }
  OneNode& attr_f(const std::string& name, float v) {
    Attribute a;
    a.kind = Attribute::Kind::kFloat;
    a.f = v;
    n.attrs[name] = a;
    return *this;
  }
  OneNode& attr_s(const std::string& name, std::string v) {
    Attribute a;
    a.kind = Attribute::Kind::kString;
    a.s = std::move(v);
    n.attrs[name] = a;
    return *this;
  }
  OneNode& attr_ints(const std::string& name, std::vector<int64_t> v) {
    Attribute a;
    a.kind = Attribute::Kind::kInts;
    a.ints = std::move(v);
    n.attrs[name] = a;
    return *this;
  }

 private:
  int add(DType t, int rank) {
    Value v;
    v.name = "v" + std::to_string(g.values.size());
    v.type.dtype = t;
    v.rank_known = rank >= 0;
    std::vector<Axis> axes;
    for (int d = 0; d < rank; ++d) axes.push_back(make_axis(g.factory(), "", Length::known(3)));
    v.axes = Axes(axes);
    return g.add_value(std::move(v));
  }
};

}  // namespace geon::onnx::testing
