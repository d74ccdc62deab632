// The ONNX protobuf classes (Debian's libonnx-dev, ONNX 1.12 schema) and the importer's
// internal conversions from them. Fields newer than that schema (e.g. new TensorProto data
// types) still arrive, as plain integers, and are handled by geon's own tables.
#pragma once

#include <onnx/onnx_pb.h>

#include <memory>
#include <string>

#include "core/graph/graph.h"
#include "importer/import.h"
#include "importer/model_payloads.h"

namespace geon::importer {

// Decodes a TensorProto in any encoding (raw_data, typed fields, external data). `where`
// names it in messages ("initializer 'W'", "attribute 'value' of node 'c1'"). `cut`, when given,
// is the tensor's raw_data, cut from the model's bytes before parsing (model_payloads.h).
std::shared_ptr<TensorData> decode_tensor(const onnx::TensorProto& t, const std::string& base_dir,
                                          const std::string& where,
                                          const CutRawData* cut = nullptr);

// Densifies a SparseTensorProto (values + indices in either layout).
std::shared_ptr<TensorData> decode_sparse_tensor(const onnx::SparseTensorProto& t,
                                                 const std::string& base_dir,
                                                 const std::string& where);

// The dtype of an ONNX elem_type, or an Error naming `where` when the value is not one.
DType dtype_of(int32_t elem_type, const std::string& where);

}  // namespace geon::importer
