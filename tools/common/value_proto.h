// ONNX SequenceProto and OptionalProto files (the backend tests' inputs and outputs of sequence
// and optional type), read with the tools' own wire reader. A value's declared type (from the
// session, in ONNX's notation) says which message a file holds.
#pragma once

#include <string>
#include <vector>

#include "geon/geon.hpp"
#include "tools/common/host_tensor.h"

namespace geon::tools {

// A tensor, a sequence's elements, or an optional without a value.
struct HostValue {
  std::string name;
  GeonValueKind kind = GEON_VALUE_TENSOR;
  std::vector<HostTensor> tensors;
};

// Whether a declared type ("seq(tensor(float))") is passed as a value rather than a tensor.
bool is_value_type(const std::string& type);
// The file at `path`, read as the message `type` calls for (TensorProto for "tensor(...)").
HostValue read_value_file(const std::string& path, const std::string& type);
// A feed that reads `v`'s tensors in place: `v` must outlive the run.
geon::api::ValueFeed to_value_feed(const HostValue& v);
// An owned copy of one output of a run, as a value.
HostValue value_from_result(const geon::api::Result& r, size_t i);

}  // namespace geon::tools
