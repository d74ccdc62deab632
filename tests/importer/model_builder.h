// Hand-built ONNX models for the importer's tests, without protobuf in the test files:
// inputs, initializers, nodes with attributes (nested graphs included) and outputs, then
// serialized and imported.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "importer/import.h"

namespace geon::testing_models {

class GraphBuilder;

// A dim of a declared input shape: a length or a symbol (dim_param).
using Dim = std::variant<int64_t, std::string>;

struct Attr {
  std::string name;
  std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>,
               std::vector<std::string>, std::shared_ptr<GraphBuilder>>
      value;
  // A tensor attribute (Constant's value): dtype, dims and values.
  DType tensor_dtype = DType::kUndefined;
  std::vector<int64_t> tensor_dims = {};
  std::vector<double> tensor_values = {};
  static Attr tensor(std::string name, DType t, std::vector<int64_t> dims,
                     std::vector<double> values);
  // A type_proto attribute (Optional's `type`): a tensor, or a sequence of tensors, of dtype t.
  std::optional<ValueType> type_value = std::nullopt;
  static Attr type(std::string name, TypeKind kind, DType t);
};

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string name = "g") : name_(std::move(name)) {}
  GraphBuilder& input(const std::string& name, DType t, std::vector<Dim> dims);
  GraphBuilder& input_unranked(const std::string& name, DType t);
  // A sequence of tensors of dtype t and these dims (the elements' shape), or an optional of a
  // tensor (of_sequence false) or of such a sequence.
  GraphBuilder& input_sequence(const std::string& name, DType t, std::vector<Dim> dims);
  GraphBuilder& input_optional(const std::string& name, DType t, std::vector<Dim> dims,
                               bool of_sequence = false);
  // An ai.onnx.ml map(key, value), or a sequence of such maps.
  GraphBuilder& input_map(const std::string& name, DType key, DType value);
  GraphBuilder& input_map_sequence(const std::string& name, DType key, DType value);
  GraphBuilder& initializer(const std::string& name, DType t, std::vector<int64_t> dims,
                            std::vector<double> values);
  GraphBuilder& node(const std::string& op, std::vector<std::string> inputs,
                     std::vector<std::string> outputs, std::vector<Attr> attrs = {},
                     const std::string& domain = "");
  // Declares a graph output; dtype and dims may be left undefined (the usual for subgraphs).
  GraphBuilder& output(const std::string& name, DType t = DType::kUndefined,
                       std::vector<Dim> dims = {}, bool has_shape = false);

  struct Impl;
  std::shared_ptr<Impl> impl() const { return impl_; }

 private:
  std::string name_;
  std::shared_ptr<Impl> impl_ = make_impl(name_);
  static std::shared_ptr<Impl> make_impl(const std::string& name);
};

// Serializes a model around `g` with the default-domain opset (plus extra domains).
std::string model_bytes(const GraphBuilder& g, int opset,
                        std::vector<std::pair<std::string, int>> extra_opsets = {});
ImportedModel import(const GraphBuilder& g, int opset, ImportOptions opt = {});

// Output `name`'s value in the imported main graph.
const Value& output_value(const ImportedModel& m, const std::string& name);
// From a temporary model a reference would dangle once the statement ends, so this returns
// a copy (`const Value& v = output_value(import(...), "y");` stays safe).
Value output_value(ImportedModel&& m, const std::string& name);
// Static lengths of a value's axes (fails the test if any is not static).
std::vector<int64_t> static_dims(const Value& v);

}  // namespace geon::testing_models
