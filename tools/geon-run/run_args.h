// geon-run's command line: what to run, with which inputs and options, and how to time it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace geon::tools {

struct RunArgs {
  std::string model;
  std::vector<std::pair<std::string, std::string>> inputs;  // name -> .npy / .pb file
  std::map<std::string, int64_t> dims;                      // symbol -> length
  std::string devices;                                      // "" = the provider's default
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
  std::string provider;
};

extern const char* const kRunUsage;

// ToolError on a bad command line; help = true when --help was asked for.
RunArgs parse_run_args(int argc, char** argv, bool& help);

}  // namespace geon::tools
