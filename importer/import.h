// The importer's public face: ONNX model bytes or a path in, a geon Graph out, or a
// geon::Error that says what is wrong and where (node, op, input or attribute). It is the only
// part of geon that sees ONNX protobuf.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "core/graph/graph.h"

namespace geon {

class ThreadPool;

// The newest default-domain opset the importer knows (that of the pinned onnx package).
inline constexpr int kMaxDefaultOpset = 27;

struct ImportOptions {
  // Directory that external-data locations are relative to. Set from the path for
  // import_model_file; required for import_model_bytes when the model has external data.
  std::string base_dir;
  // Constant folding stops at outputs larger than this, and at this much folded data in all.
  int64_t max_folded_bytes = int64_t{64} << 20;
  int64_t max_total_folded_bytes = int64_t{512} << 20;
  bool fold_constants = true;
  // Use the model's value_info and declared output types where a rule leaves a shape unknown.
  // Tests turn this off to measure the rules' own inference.
  bool trust_value_info = true;
  // The pool that reads the main graph's initializers (from the model's bytes or external files)
  // when they weigh at least read_ahead_bytes (the session's: the provider makes it before
  // importing). Null, or a pool of one thread: the importing thread reads them in order.
  ThreadPool* pool = nullptr;
  int64_t read_ahead_bytes = int64_t{16} << 20;
};

// What the ModelProto says about itself (for InferenceSession.get_modelmeta and the like);
// none of it affects how the model runs.
struct ModelMetadata {
  std::string producer_name, producer_version, domain, doc_string;
  int64_t model_version = 0;
  bool has_model_version = false;  // onnxruntime tells "no version" apart from version 0
  int64_t ir_version = 0;
  std::string graph_name, graph_doc_string;
  std::map<std::string, int64_t> opset_imports;  // as the model declares them (domain as written)
  std::map<std::string, std::string> metadata_props;
};

struct ImportedModel {
  std::shared_ptr<Graph> graph;
  std::map<std::string, int> opsets;  // domain ("" = default) -> version
  ModelMetadata metadata;
  std::string source;  // the path, or "<bytes>", for messages
};

ImportedModel import_model_file(const std::string& path, const ImportOptions& opt = {});
ImportedModel import_model_bytes(std::span<const std::byte> bytes, const ImportOptions& opt = {});

// One serialized TensorProto (as in the backend test data's input_0.pb) to tensor data;
// external data is resolved against base_dir.
std::shared_ptr<TensorData> read_tensor_file(const std::string& path);
std::shared_ptr<TensorData> read_tensor_bytes(std::span<const std::byte> bytes,
                                              const std::string& base_dir = {});

}  // namespace geon
