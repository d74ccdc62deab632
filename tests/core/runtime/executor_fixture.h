// Fakes for the executor tests: a graph builder with shaped values, naive kernels (Add, Mul,
// Relu, MatMul, PackedMatMul (MatMul copying its constant B when made, declared packed), Less,
// Identity, a data-dependent Grow, a failing op, a planned-shape op; Neg,
// Sub, Reverse allowing in-place outputs; PoolSize reporting the engine pool; view kernels
// Transpose and Flat, and TransposeCopy, the same Transpose as no view) in a host set
// "test.host" and a device set "test.dev" on cuda:0 whose memory is really host memory (its
// allocator and copy are registered here), so transfers run without a GPU.
#pragma once

#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/buffer/device_copy.h"
#include "core/runtime/executor.h"

namespace geon::testing {

inline const Device kDev{DeviceKind::kCuda, 0};

// Lengths: dims given as numbers are static, as names symbols.
struct Dim {
  Dim(int64_t n) : length(Length::known(n)) {}         // NOLINT: implicit on purpose
  Dim(const char* s) : length(Length::symbolic(s)) {}  // NOLINT
  Length length;
};

class ExecBuilder {
 public:
  ExecBuilder() {
    g_ = std::make_shared<Graph>();
    g_->axis_factory = std::make_shared<AxisFactory>();
  }
  explicit ExecBuilder(const Graph& parent) : ExecBuilder() {
    g_->parent = &parent;
    g_->axis_factory = parent.axis_factory;
  }

  int input(const std::string& name, DType dt, std::vector<Dim> dims) {
    const int v = add(name, dt, dims, ValueKind::kInput);
    g_->inputs.push_back(v);
    return v;
  }
  // An input with a default (an initializer of the same name).
  int overridable(const std::string& name, std::shared_ptr<const TensorData> data) {
    std::vector<Dim> dims;
    for (int64_t d : data->desc.shape) dims.emplace_back(d);
    const int v = input(name, data->desc.dtype, dims);
    g_->values[v].overridable = true;
    g_->values[v].data = std::move(data);
    return v;
  }
  int constant(const std::string& name, std::shared_ptr<const TensorData> data) {
    std::vector<Dim> dims;
    for (int64_t d : data->desc.shape) dims.emplace_back(d);
    const int v = add(name, data->desc.dtype, dims, ValueKind::kConstant);
    g_->values[v].data = std::move(data);
    return v;
  }
  // A value of an enclosing graph, read here by name.
  int outer(const Value& v) {
    Value o = v;
    o.kind = ValueKind::kOuter;
    o.producer = -1;
    return g_->add_value(std::move(o));
  }
  // A node with one output named `out` (the node's name too unless given).
  int node(const std::string& op, std::vector<int> inputs, const std::string& out, DType dt,
           std::vector<Dim> dims, const std::string& name = "") {
    return node_n(op, std::move(inputs), {{out, dt, std::move(dims)}}, name.empty() ? out : name)
        .front();
  }
  // An output whose rank is not known (e.g. a data-dependent op).
  int node_unknown(const std::string& op, std::vector<int> inputs, const std::string& out,
                   DType dt) {
    const int v = node(op, std::move(inputs), out, dt, {});
    g_->values[v].rank_known = false;
    return v;
  }
  struct Out {
    std::string name;
    DType dtype;
    std::vector<Dim> dims;
  };
  std::vector<int> node_n(const std::string& op, std::vector<int> inputs, std::vector<Out> outs,
                          const std::string& name) {
    Node n;
    n.name = name;
    n.op = op;
    n.opset = 13;
    n.inputs = std::move(inputs);
    for (const Out& o : outs) {
      const int v = add(o.name, o.dtype, o.dims, ValueKind::kIntermediate);
      g_->values[v].producer = static_cast<int>(g_->nodes.size());
      n.outputs.push_back(v);
    }
    g_->nodes.push_back(std::move(n));
    return g_->nodes.back().outputs;
  }
  void graph_attr(const std::string& key, std::shared_ptr<Graph> body) {
    Attribute a;
    a.kind = Attribute::Kind::kGraph;
    a.g = std::move(body);
    last().attrs[key] = a;
  }
  void int_attr(const std::string& key, int64_t i) {
    Attribute a;
    a.kind = Attribute::Kind::kInt;
    a.i = i;
    last().attrs[key] = a;
  }
  void ints_attr(const std::string& key, std::vector<int64_t> ints) {
    Attribute a;
    a.kind = Attribute::Kind::kInts;
    a.ints = std::move(ints);
    last().attrs[key] = a;
  }
  void output(int v) { g_->outputs.push_back(v); }
  Node& last() { return g_->nodes.back(); }
  Graph& graph() { return *g_; }
  std::shared_ptr<Graph> shared() { return g_; }

 private:
  int add(const std::string& name, DType dt, const std::vector<Dim>& dims, ValueKind kind) {
    Value v;
    v.name = name;
    v.type.dtype = dt;
    v.kind = kind;
    v.rank_known = true;
    std::vector<Axis> axes;
    for (size_t i = 0; i < dims.size(); ++i)
      axes.push_back(make_axis(*g_->axis_factory, name + "_" + std::to_string(i), dims[i].length));
    v.axes = Axes(std::move(axes));
    return g_->add_value(std::move(v));
  }
  std::shared_ptr<Graph> g_;
};

// A host tensor the test owns; ref() lends it to a run.
struct HostTensor {
  TensorDesc desc;
  std::vector<std::byte> bytes;
  template <typename T>
  static HostTensor of(DType dt, Dims shape, const std::vector<T>& values) {
    HostTensor t;
    t.desc = row_major(dt, shape);
    t.bytes.resize(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
    return t;
  }
  TensorRef ref() { return {desc, bytes.data(), Device{}}; }
};

inline HostTensor floats(Dims shape, std::vector<float> v) {
  return HostTensor::of(DType::kFloat, std::move(shape), v);
}
inline HostTensor int64s(Dims shape, std::vector<int64_t> v) {
  return HostTensor::of(DType::kInt64, std::move(shape), v);
}
inline HostTensor bools(Dims shape, std::vector<uint8_t> v) {
  return HostTensor::of(DType::kBool, std::move(shape), v);
}
std::shared_ptr<const TensorData> float_data(Dims shape, const std::vector<float>& v);

// y = relu(relu(x) + x) * x, for x [N, 4] with a symbolic batch N.
std::shared_ptr<Graph> batch_chain();
std::shared_ptr<const TensorData> int64_data(Dims shape, const std::vector<int64_t>& v);

template <typename T>
std::vector<T> values_of(const OwnedTensor& t) {
  std::vector<T> out(static_cast<size_t>(element_count(t.desc)));
  if (!out.empty()) std::memcpy(out.data(), t.data(), out.size() * sizeof(T));
  return out;
}

// The fake sets. "test.dev" takes float Add, Mul, Relu, MatMul, Neg and Sub only; "test.host"
// takes every op above. Kernels fail when an input is not on their set's device.
const KernelSet& host_set();
const KernelSet& dev_set();
// The priority list with only the host set.
std::span<const KernelSet* const> host_only();
// Copies and allocations made through the fake device's registrations, since start.
int64_t device_copies();
int64_t device_allocations();
// compute() calls of the view kernels (the runs where the executor copied instead of aliasing).
int64_t view_copies();

}  // namespace geon::testing
