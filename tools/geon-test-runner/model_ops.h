// The op types of a model's top-level nodes, read straight from model.onnx's protobuf wire
// format (the tools see geon only through its C ABI), so that a failing or skipped test can be
// put down to the op it is about.
#pragma once

#include <string>
#include <vector>

namespace geon::tools {

// "Conv", "ai.onnx.ml.LabelEncoder"..., in node order; empty when the file cannot be read.
std::vector<std::string> model_op_types(const std::string& model_path);

}  // namespace geon::tools
