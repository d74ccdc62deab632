// ONNX TensorProto files (the backend tests' input_N.pb / output_N.pb), read with a small
// protobuf wire-format reader of our own: the tools see only the C ABI, never libonnx. Every
// length and count is checked against the bytes present; a malformed file is a ToolError.
#pragma once

#include <span>
#include <string>

#include "tools/common/host_tensor.h"

namespace geon::tools {

// Well-formed data the tools cannot represent (strings, external data, segments, unknown
// dtypes): the test runner reports such a test as skipped, not failed.
class UnsupportedData : public ToolError {
 public:
  using ToolError::ToolError;
};

// Parses serialized TensorProto bytes; `what` names the source in messages.
HostTensor parse_tensor_proto(std::span<const std::byte> bytes, const std::string& what);
HostTensor read_tensor_proto(const std::string& path);

}  // namespace geon::tools
