// The function table and the one exported symbol. Version 1's layout is pinned by the
// static_asserts: members may only be appended.
#include <cstddef>
#include <cstdio>
#include <string>

#include "geon/geon.h"
#include "provider/src/capability.h"
#include "provider/src/devices.h"
#include "provider/src/options.h"
#include "provider/src/report.h"
#include "provider/src/result.h"
#include "provider/src/run.h"
#include "provider/src/session.h"
#include "provider/src/status.h"

namespace geon::provider {
namespace {

static_assert(offsetof(GeonApi, version) == 0);
static_assert(offsetof(GeonApi, library_version) == 8);
static_assert(offsetof(GeonApi, run) == 8 + 15 * sizeof(void*));
static_assert(offsetof(GeonApi, compile) == 8 + 37 * sizeof(void*));
static_assert(offsetof(GeonApi, session_input_has_default) == 8 + 38 * sizeof(void*));
// Append-only: a new function goes last, and these offsets never change.
static_assert(offsetof(GeonApi, session_model_metadata) == 8 + 39 * sizeof(void*));
static_assert(offsetof(GeonApi, session_input_type) == 8 + 40 * sizeof(void*));
static_assert(offsetof(GeonApi, result_value) == 8 + 43 * sizeof(void*));
static_assert(sizeof(GeonApi) == 8 + 44 * sizeof(void*), "version 3 has 44 functions");

const char* library_version() noexcept {
  static const std::string text = std::string("0.1.0 (") + compiled_sets() + ")";
  return text.c_str();
}

constexpr GeonApi kApi = {
    GEON_API_VERSION,
    library_version,
    status_code,
    status_message,
    release_status,
    release_string,
    create_options,
    set_option,
    release_options,
    create_session,
    create_session_from_bytes,
    release_session,
    session_input_count,
    session_output_count,
    session_input_info,
    session_output_info,
    run,
    result_count,
    result_tensor,
    result_name,
    release_result,
    placement_report,
    end_profiling,
    session_graph_dump,
    load_model,
    load_model_from_bytes,
    release_model,
    model_node_count,
    model_node_name,
    model_node_op,
    get_capability,
    release_capability,
    capability_subgraph_count,
    capability_subgraph_set,
    capability_subgraph_node_count,
    capability_subgraph_node,
    capability_node_subgraph,
    capability_node_reason,
    compile,
    session_input_has_default,
    session_model_metadata,
    session_input_type,
    session_output_type,
    run_values,
    result_value,
};

}  // namespace
}  // namespace geon::provider

extern "C" const GeonApi* geon_get_api(uint32_t version, const char** error) {
  if (version == 0 || version > GEON_API_VERSION) {
    if (error) {
      // Per thread, so concurrent refusals do not overwrite each other's text; it stays valid
      // until this thread's next refused call.
      thread_local char message[128];
      std::snprintf(message, sizeof message,
                    "libgeon_provider implements C API version %u; the host asked for version %u",
                    GEON_API_VERSION, version);
      *error = message;
    }
    return nullptr;
  }
  if (error) *error = nullptr;
  return &geon::provider::kApi;
}
