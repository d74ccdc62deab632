// geon's graph IR: values that carry a type and named Axes, nodes with their op, domain,
// opset and attributes, and nested graphs for If/Loop/Scan bodies. The importer builds it from
// ONNX; every later stage (passes, partitioner, planner) only refines it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/axes/axes.h"
#include "core/graph/tensor_data.h"

namespace geon {

struct Graph;

enum class TypeKind : uint8_t { kTensor, kSequence, kOptional, kMap, kSparseTensor, kUnknown };

// A value's type. Sequences and optionals carry the dtype of the tensors they hold;
// `element` says what an optional wraps (a tensor or a sequence) and what a sequence holds (a
// tensor or a map). A map (ai.onnx.ml) carries its value dtype in `dtype` and its key dtype in
// `key`, as does a sequence of maps.
struct ValueType {
  TypeKind kind = TypeKind::kTensor;
  DType dtype = DType::kUndefined;
  TypeKind element = TypeKind::kTensor;
  DType key = DType::kUndefined;
  friend bool operator==(const ValueType&, const ValueType&) = default;
};

// Seed 002's tensor kinds: placeholders (graph inputs), constants (initializers, Constant
// nodes, folded values), intermediates, and values a nested graph reads from an outer one.
enum class ValueKind : uint8_t { kInput, kConstant, kIntermediate, kOuter };

struct Value {
  std::string name;
  ValueType type;
  Axes axes;                // one per dim, in ONNX order; meaningful when rank_known
  bool rank_known = false;  // false: nothing is known about the shape
  ValueKind kind = ValueKind::kIntermediate;
  bool overridable = false;  // a graph input that also has an initializer (the default)
  std::shared_ptr<const TensorData> data;  // the contents, for constants
  // For small integer tensors computed from shapes (Shape -> Gather -> Concat ...): the
  // entries, each static or a symbol, known even when `data` is not (symbolic dims).
  std::vector<Length> contents;
  bool contents_known = false;
  int producer = -1;  // node index, -1 for inputs and constants
  // The physical order of the axes, outermost first (a permutation of 0..rank-1, e.g.
  // {0, 2, 3, 1} for channels-last NCHW); empty = row-major. Set by core/passes/select_layouts
  // on intermediates only; the executor allocates the value with these strides.
  std::vector<int> layout;

  DType dtype() const { return type.dtype; }
  int rank() const { return static_cast<int>(axes.size()); }
};

struct Attribute {
  enum class Kind : uint8_t {
    kFloat,
    kInt,
    kString,
    kTensor,
    kGraph,
    kFloats,
    kInts,
    kStrings,
    kTensors,
    kGraphs,
    kSparseTensor,
    kTypeProto,
    kTypeProtos,
  };
  Kind kind = Kind::kInt;
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::shared_ptr<const TensorData> t;
  std::shared_ptr<Graph> g;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<std::shared_ptr<const TensorData>> tensors;
  std::vector<std::shared_ptr<Graph>> graphs;
  std::vector<ValueType> types;
};
std::string_view attribute_kind_name(Attribute::Kind k);

struct Node {
  std::string name;
  std::string op;
  std::string domain;        // "" for the default ONNX domain
  int opset = 0;             // the model's opset version for this node's domain
  std::vector<int> inputs;   // value indices in the owning graph; -1 = optional input omitted
  std::vector<int> outputs;  // -1 = optional output not requested
  std::map<std::string, Attribute> attrs;

  const Attribute* attr(std::string_view name) const;
};

struct Graph {
  std::string name;
  std::vector<Value> values;
  std::vector<Node> nodes;  // topological order
  std::vector<int> inputs, outputs;
  const Graph* parent = nullptr;              // enclosing graph, for If/Loop/Scan bodies
  std::shared_ptr<AxisFactory> axis_factory;  // shared by a graph and its nested graphs

  // Index of the value with this name in this graph, or -1.
  int find(std::string_view name) const;
  // Adds a value; throws geon::Error when the name is taken (ONNX names are SSA).
  int add_value(Value v);
  Value& value(int i) { return values.at(i); }
  const Value& value(int i) const { return values.at(i); }
  AxisFactory& factory() { return *axis_factory; }

 private:
  std::unordered_map<std::string, int> by_name_;
};

// Whether the node has an output and the importer computed the contents of every output it
// has (a Constant node, a folded shape computation): nothing is left to run.
bool outputs_known(const Graph& g, const Node& n);

// Whether `name` is visible from g: defined in g or, for nested graphs, in an enclosing one.
const Value* lookup_visible(const Graph& g, std::string_view name);

// A readable listing: inputs, constants, nodes and outputs, each value with its dtype and
// axes (with lengths). Stable across runs, so tests and tools can compare it.
std::string dump(const Graph& g);
std::string to_string(const ValueType& t);

}  // namespace geon
