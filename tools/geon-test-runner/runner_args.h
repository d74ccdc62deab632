// geon-test-runner's command line.
#pragma once

#include <string>
#include <vector>

namespace geon::tools {

struct RunnerArgs {
  std::vector<std::string> dirs;
  std::string json_path;
  std::string devices;
  std::string filter;
  std::string provider;
  bool fail_on_failure = false;
  bool fork_each = true;  // run each test in a child process: a crash or hang fails one test
  double timeout_s = 120;
};

extern const char* const kRunnerUsage;

RunnerArgs parse_runner_args(int argc, char** argv, bool& help);

}  // namespace geon::tools
