// ai.onnx.preview.training.Gradient, built at import as ordinary ONNX nodes: reverse-mode
// differentiation of the nodes between the named inputs (xs, zs) and `y`, with the forward
// nodes recomputed on the Gradient's own inputs when they are not the named values.
#pragma once

#include <string>

#include "importer/graph_builder.h"

namespace geon::importer {

bool is_gradient_node(const std::string& domain, const std::string& op);

// g.nodes[node_index] is a Gradient node whose rule has run (the last node of g). It is
// replaced by the nodes computing its outputs, the last of which produce its output values.
// Ops without a derivative here, and names this graph does not define, are clean errors.
void expand_gradient(Graph& g, int node_index, BuildState& st, const std::string& where);

}  // namespace geon::importer
