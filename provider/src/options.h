// Session options (the keys geon.h lists), parsed and validated when set, so a session never
// sees a malformed value.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "geon/geon.h"
#include "provider/src/handles.h"

namespace geon::provider {

enum class LogLevel { kError = 0, kWarning = 1, kInfo = 2, kVerbose = 3 };

struct ProviderOptions {
  std::vector<std::string> devices = {"cpu.dnnl", "cpu.generic"};  // kernel set names
  int intra_op_threads = 0;
  int optimization_level = 2;  // 0 nothing, 1 constant folding, 2 folding and fusions
  bool strict = false;
  bool profiling = false;
  LogLevel log_level = LogLevel::kError;
  size_t arena_limit_bytes = 0;
  bool poison_freed = false;
};

// Applies one key; throws ApiError (GEON_INVALID_ARGUMENT) naming the key and the values it
// accepts.
void set_option(ProviderOptions& o, const std::string& key, const std::string& value);

using OptionsTable = HandleTable<GeonOptions, ProviderOptions, HandleKind::kOptions>;
// The live GeonOptions handles.
OptionsTable& options_table();

// The options handle's contents, or the defaults for a null handle; a released handle is an
// ApiError (GEON_INVALID_ARGUMENT). Held, so a racing release_options frees nothing in use.
std::shared_ptr<const ProviderOptions> options_or_default(const GeonOptions* o);

GeonStatus* create_options(GeonOptions** out) noexcept;
GeonStatus* set_option(GeonOptions* o, const char* key, const char* value) noexcept;
void release_options(GeonOptions* o) noexcept;

}  // namespace geon::provider
