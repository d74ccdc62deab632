// Diagnostics to stderr at the session's log level ("log_level" option).
#pragma once

#include <string>

#include "provider/src/options.h"

namespace geon::provider {

// Writes "geon [level] message" when `level` is at or below the configured one.
void log(const ProviderOptions& o, LogLevel level, const std::string& message);

}  // namespace geon::provider
