// One line per message, written whole so concurrent sessions do not interleave characters.
#include "provider/src/log.h"

#include <cstdio>

namespace geon::provider {

void log(const ProviderOptions& o, LogLevel level, const std::string& message) {
  if (static_cast<int>(level) > static_cast<int>(o.log_level)) return;
  static constexpr const char* kNames[] = {"error", "warning", "info", "verbose"};
  const std::string line =
      "geon [" + std::string(kNames[static_cast<int>(level)]) + "] " + message + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace geon::provider
