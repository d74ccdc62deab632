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
  std::vector<std::string> filters;  // --filter, repeatable: substrings or globs of test names
  bool fail_on_failure = false;
  bool fork_each = true;  // run each test in a child process: a crash or hang fails one test
  double timeout_s = 120;
  int jobs = 1;          // tests run at once, each in its own child process
  bool verbose = false;  // on a terminal, also the PASS / SKIP lines (always printed otherwise)
};

// ToolError on a bad command line; nullopt when --help was asked for (and shown).
std::optional<RunnerArgs> parse_runner_args(int argc, char** argv);

}  // namespace geon::tools
