// Attribute conversion, used by the graph builder.
#pragma once

#include <string>

#include "importer/graph_builder.h"

namespace geon::importer {

Attribute read_attribute(const onnx::AttributeProto& a, Graph& g, BuildState& st,
                         const std::string& where);

}  // namespace geon::importer
