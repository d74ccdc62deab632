// geon-run's command line: what to run, with which inputs and options, and how to time it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/common/provider_args.h"

namespace geon::tools {

struct RunArgs : ProviderArgs {
  std::string model;
  std::vector<std::pair<std::string, std::string>> inputs;  // name -> .npy / .pb file
  std::map<std::string, int64_t> dims;                      // symbol -> length
  int64_t threads = -1;                                     // -1 = the provider's default
  bool perf = false;
  int64_t warmup = 5;
  int64_t repeat = 100;
  double duration_s = 0;  // > 0: time by duration instead of repeat
  std::string report_path;
  std::string profile_path;
  std::string save_outputs_dir;
  bool strict = false;
  uint64_t seed = 0;
};

// ToolError on a bad command line; nullopt when --help was asked for (and shown).
std::optional<RunArgs> parse_run_args(int argc, char** argv);

}  // namespace geon::tools
