// Structure-aware mutations of a parsed onnx::ModelProto for geon_fuzz_model_structure (Debian
// has no libprotobuf-mutator). Each keeps the model parseable and changes what the importer,
// the shape inference and the kernels see: attribute values, types, tensors and subgraphs; dims
// (0, negative, huge) and dtypes; initializer sizes against their data; node wiring (swapped,
// dropped, duplicated input and output names); op types and domains; opset versions; and
// external-data fields (locations escaping base_dir, offsets and lengths past the end).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace geon::fuzz {

class ModelMutator {
 public:
  // `outside` is a file outside base_dir, used as an absolute external-data location.
  ModelMutator(uint64_t seed, std::string outside) : rng_(seed), outside_(std::move(outside)) {}

  // Applies 1 to 4 mutations.
  void mutate(onnx::ModelProto& m);

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool one_in(int n) { return pick(0, n - 1) == 0; }
  int64_t extreme_int();
  float extreme_float();
  std::string any_name();

  void collect(onnx::ModelProto& m);
  void collect_graph(onnx::GraphProto& g);
  void once(onnx::ModelProto& m);

  void mutate_attribute(onnx::AttributeProto& a);
  void add_attribute(onnx::NodeProto& n);
  void mutate_tensor(onnx::TensorProto& t);
  void mutate_tensor_values(onnx::TensorProto& t);
  void mutate_tensor_size(onnx::TensorProto& t);
  void mutate_external(onnx::TensorProto& t);
  void mutate_dims(google::protobuf::RepeatedField<int64_t>& dims);
  void mutate_value_info(onnx::ValueInfoProto& vi);
  void mutate_node(onnx::NodeProto& n);
  void mutate_wiring(onnx::GraphProto& g);
  void mutate_graph_io(onnx::GraphProto& g);
  void mutate_opsets(onnx::ModelProto& m);

  std::mt19937_64 rng_;
  std::string outside_;
  std::vector<onnx::NodeProto*> nodes_;
  std::vector<onnx::GraphProto*> graphs_;
  std::vector<onnx::TensorProto*> tensors_;
  std::vector<onnx::AttributeProto*> attributes_;
  std::vector<std::string> names_;
  std::vector<std::string> ops_;
};

}  // namespace geon::fuzz
