#include "tools/geon-test-runner/runner_args.h"

#include "tools/common/command_line.h"
#include "tools/common/host_tensor.h"

namespace geon::tools {

namespace {
constexpr const char* kRunnerOwnUsage =
    "usage: geon-test-runner DIR... [options]\n"
    "Runs ONNX backend test directories (model.onnx + test_data_set_*/input_*.pb, output_*.pb)\n"
    "through libgeon_provider.so. A DIR is one test or a directory holding many (one level).\n"
    "  --filter SUBSTR        only tests whose name contains SUBSTR\n"
    "  --json FILE            write [{\"name\",\"status\",\"message\",\"seconds\"}]\n"
    "  --fail-on-failure      exit 1 when a test fails (default: failures are only reported)\n"
    "  --timeout SECONDS      per test (default 120); a test past it fails\n"
    "  --no-fork              run tests in this process (a crash then ends the run)\n";
constexpr const char* kRunnerStatusUsage =
    "Status per test: pass, fail (first mismatch), unsupported (GEON_UNSUPPORTED or test data the\n"
    "runner cannot read, e.g. strings: counted as skipped).\n";
const std::string kRunnerUsage =
    std::string(kRunnerOwnUsage) + kProviderArgsUsage + kRunnerStatusUsage;

}  // namespace

std::optional<RunnerArgs> parse_runner_args(int argc, char** argv) {
  RunnerArgs a;
  const auto take = [&a](const std::string& arg, ArgCursor& args) {
    if (arg == "--json") {
      a.json_path = args.value(arg);
    } else if (arg == "--filter") {
      a.filter = args.value(arg);
    } else if (arg == "--fail-on-failure") {
      a.fail_on_failure = true;
    } else if (arg == "--no-fork") {
      a.fork_each = false;
    } else if (arg == "--timeout") {
      a.timeout_s = parse_double(args.value(arg), arg, 0.1, 86400);
    } else {
      a.dirs.push_back(positional(arg));
    }
  };
  if (!walk_command_line(argc, argv, kRunnerUsage, a, take)) return std::nullopt;
  if (a.dirs.empty()) throw ToolError("no test directory given (see --help)");
  return a;
}

}  // namespace geon::tools
