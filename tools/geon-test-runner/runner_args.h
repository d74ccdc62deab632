// geon-test-runner's command line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/common/provider_args.h"

namespace geon::tools {

struct RunnerArgs : ProviderArgs {
  std::vector<std::string> dirs;
  std::string json_path;
  std::string filter;
  bool fail_on_failure = false;
  bool fork_each = true;  // run each test in a child process: a crash or hang fails one test
  double timeout_s = 120;
};

// ToolError on a bad command line; nullopt when --help was asked for (and shown).
std::optional<RunnerArgs> parse_runner_args(int argc, char** argv);

}  // namespace geon::tools
