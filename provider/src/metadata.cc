// session_model_metadata: the ModelProto's self-description (producer, versions, doc strings,
// opset imports, metadata_props) as JSON, which the Python package turns into onnxruntime's
// ModelMetadata. Kept at import time; none of it affects how the model runs.
#include <string>

#include "core/base/json.h"
#include "provider/src/report.h"
#include "provider/src/session.h"
#include "provider/src/status.h"

namespace geon::provider {
namespace {

std::string metadata_json(const ModelMetadata& m) {
  std::string out = "{\"producer_name\": " + json_string(m.producer_name) +
                    ", \"producer_version\": " + json_string(m.producer_version) +
                    ", \"domain\": " + json_string(m.domain) + ", \"model_version\": " +
                    (m.has_model_version ? std::to_string(m.model_version) : "null") +
                    ", \"description\": " + json_string(m.doc_string) +
                    ", \"graph_name\": " + json_string(m.graph_name) +
                    ", \"graph_description\": " + json_string(m.graph_doc_string) +
                    ", \"ir_version\": " + std::to_string(m.ir_version) + ", \"opset_imports\": {";
  bool first = true;
  for (const auto& [domain, version] : m.opset_imports) {
    out += (first ? "" : ", ") + json_string(domain) + ": " + std::to_string(version);
    first = false;
  }
  out += "}, \"custom_metadata\": {";
  first = true;
  for (const auto& [key, value] : m.metadata_props) {
    out += (first ? "" : ", ") + json_string(key) + ": " + json_string(value);
    first = false;
  }
  return out + "}}";
}

}  // namespace

GeonStatus* session_model_metadata(const GeonSession* s, char** json) noexcept {
  return guard("session_model_metadata", [&] {
    require_arg(json, "json");
    *json = nullptr;
    const std::shared_ptr<const Session> session = session_table().require(s, "session");
    *json = copy_string(metadata_json(session->metadata));
  });
}

}  // namespace geon::provider
