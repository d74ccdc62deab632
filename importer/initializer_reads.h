// The main graph's initializer payloads, cut (model_payloads.h) or in external files, decoded on
// the session's thread pool before the graph is built. Reading a large model's weights is page
// faults and copies, which threads share well; each tensor is decoded as the in-order loop
// would, and a failure is kept for that loop to raise at the initializer's turn, so messages and
// their order stay.
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "importer/graph_builder.h"

namespace geon::importer {

// How messages name initializer t of the graph that `graph_where` names.
std::string initializer_where(const std::string& graph_where, const onnx::TensorProto& t);

// Initializer t decoded as the importer decodes it: from its cut payload when it has one (read
// through st.payloads), else from the message or its external file; errors name `where`.
std::shared_ptr<TensorData> decode_initializer(const onnx::TensorProto& t, const BuildState& st,
                                               const std::optional<Payload>& cut,
                                               const std::string& where);

// An initializer decoded ahead: its data, or what decoding it threw. Neither when it was not
// decoded ahead (its data in the message, or another one failed first): the caller decodes it
// in turn.
struct DecodedInitializer {
  std::shared_ptr<TensorData> data;
  std::exception_ptr error;
};

// One entry per initializer of gp, which is st.cut_graph with its payloads cut: those with a cut
// payload or external data are decoded. Empty when reading them ahead is not worth threads
// (ImportOptions::pool, read_ahead_bytes: external data weighed by its dtype and dims).
std::vector<DecodedInitializer> decode_initializers_ahead(const onnx::GraphProto& gp,
                                                          const BuildState& st,
                                                          const std::string& graph_where);

}  // namespace geon::importer
