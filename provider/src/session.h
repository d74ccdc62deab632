// A session: an imported graph compiled for the chosen kernel sets, with its inputs and
// outputs described for the C ABI. Read-only after creation, so runs may share it; each call
// holds it (shared_ptr from the handle table), so a racing release_session frees it only when
// the last call in flight returns.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/runtime/executor.h"
#include "geon/geon.h"
#include "importer/import.h"
#include "provider/src/devices.h"
#include "provider/src/handles.h"
#include "provider/src/options.h"

namespace geon::provider {

// A GeonValueInfo and the storage its pointers refer to.
struct ValueInfoStore {
  std::string name;
  std::vector<int64_t> dims;
  std::vector<std::string> dim_names;
  std::vector<const char*> dim_name_ptrs;
  std::string type;  // in ONNX's notation: "seq(tensor(float))"
  GeonValueInfo info{};
};

// What a GeonSession handle stands for.
struct Session {
  std::shared_ptr<const Graph> graph;
  std::unique_ptr<Executable> exe;
  ProviderOptions options;
  DeviceList devices;
  // Session input i is graph->inputs[input_order[i]]: inputs without a default come first.
  std::vector<int> input_order;
  std::vector<ValueInfoStore> inputs, outputs;
  // The ModelProto's own description (empty for sessions compiled from a capability).
  ModelMetadata metadata;
};

using SessionTable = HandleTable<GeonSession, Session, HandleKind::kSession>;
// The live GeonSession handles.
SessionTable& session_table();

// Compiles g for `devices` under the options (strict mode checked here, with a message per
// node that the first set refuses). `pool`: the session's own pool when the caller made it
// already (otherwise one of intra_op_threads is made, when that is > 0).
std::unique_ptr<Session> make_session(std::shared_ptr<Graph> g, const ProviderOptions& o,
                                      DeviceList devices,
                                      std::shared_ptr<ThreadPool> pool = nullptr);

GeonStatus* create_session(const char* model_path, const GeonOptions* options,
                           GeonSession** out) noexcept;
GeonStatus* create_session_from_bytes(const void* bytes, size_t size, const char* base_dir,
                                      const GeonOptions* options, GeonSession** out) noexcept;
void release_session(GeonSession* s) noexcept;
size_t session_input_count(const GeonSession* s) noexcept;
size_t session_output_count(const GeonSession* s) noexcept;
GeonStatus* session_input_info(const GeonSession* s, size_t i, GeonValueInfo* out) noexcept;
GeonStatus* session_output_info(const GeonSession* s, size_t i, GeonValueInfo* out) noexcept;
int session_input_has_default(const GeonSession* s, size_t i) noexcept;
GeonStatus* session_input_type(const GeonSession* s, size_t i, char** type) noexcept;
GeonStatus* session_output_type(const GeonSession* s, size_t i, char** type) noexcept;

}  // namespace geon::provider
