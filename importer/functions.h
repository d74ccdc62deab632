// Function expansion: a call to a model-local function (FunctionProto), or to a standard op
// that ONNX defines as a function and geon has no direct rule for, is replaced by the
// function's body, with fresh value names and attribute references substituted.
#pragma once

#include <string>
#include <vector>

#include "importer/graph_builder.h"

namespace geon::importer {

std::vector<onnx::NodeProto> expand_functions(
    const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, BuildState& st,
    const std::string& where);

}  // namespace geon::importer
