#include "tools/geon-test-runner/runner_args.h"

#include "tools/common/command_line.h"
#include "tools/common/host_tensor.h"

namespace geon::tools {

namespace {
constexpr const char* kRunnerOwnUsage =
    "usage: geon-test-runner DIR... [options]\n"
    "Runs ONNX backend test directories (model.onnx + test_data_set_*/input_*.pb, output_*.pb)\n"
    "through libgeon_provider.so. A DIR is one test or a directory holding many (one level).\n"
    "  --filter PATTERN       only tests whose name contains PATTERN, or, when PATTERN holds\n"
    "                         * ? or [...], matches it as a glob (whole name); repeatable:\n"
    "                         a test any filter selects runs\n"
    "  --jobs N               run N tests at once, each in its own child process (default 1);\n"
    "                         results are printed in test order, the same as with --jobs 1\n"
    "  --json FILE            write [{\"name\",\"status\",\"message\",\"seconds\"}]\n"
    "  --fail-on-failure      exit 1 when a test fails (default: failures are only reported)\n"
    "  --timeout SECONDS      per test (default 120); a test past it fails\n"
    "  --no-fork              run tests in this process (a crash then ends the run; --jobs 1)\n"
    "  --verbose              on a terminal, print PASS and SKIP lines too\n";
constexpr const char* kRunnerStatusUsage =
    "Status per test: pass, fail (first mismatch), unsupported (GEON_UNSUPPORTED or test data the\n"
    "runner cannot read, e.g. strings: counted as skipped).\n"
    "Output: one PASS / FAIL / SKIP line per test, then \"N passed, N failed, N skipped\" and a\n"
    "table of failures and skips per op (the op named by the message, else the test model's op\n"
    "its name is about). On a terminal, a progress line (counts, done/total, ETA) is redrawn in\n"
    "place and only FAIL lines are printed above it, unless --verbose.\n";
const std::string kRunnerUsage =
    std::string(kRunnerOwnUsage) + kProviderArgsUsage + kRunnerStatusUsage;

}  // namespace

std::optional<RunnerArgs> parse_runner_args(int argc, char** argv) {
  RunnerArgs a;
  const auto take = [&a](const std::string& arg, ArgCursor& args) {
    if (arg == "--json") {
      a.json_path = args.value(arg);
    } else if (arg == "--filter") {
      a.filters.push_back(args.value(arg));
    } else if (arg == "--fail-on-failure") {
      a.fail_on_failure = true;
    } else if (arg == "--jobs" || arg == "-j") {
      a.jobs = static_cast<int>(parse_int(args.value(arg), arg, 1, 256));
    } else if (arg == "--verbose") {
      a.verbose = true;
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
  if (!a.fork_each && a.jobs > 1) throw ToolError("--jobs needs child processes: drop --no-fork");
  return a;
}

}  // namespace geon::tools
