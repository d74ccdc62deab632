#include "tools/geon-test-runner/runner_args.h"

#include "tools/common/args.h"
#include "tools/common/host_tensor.h"

namespace geon::tools {

const char* const kRunnerUsage =
    "usage: geon-test-runner DIR... [options]\n"
    "Runs ONNX backend test directories (model.onnx + test_data_set_*/input_*.pb, output_*.pb)\n"
    "through libgeon_provider.so. A DIR is one test or a directory holding many (one level).\n"
    "  --filter SUBSTR        only tests whose name contains SUBSTR\n"
    "  --devices LIST         kernel sets in priority order, e.g. cpu.dnnl,cpu.generic\n"
    "  --json FILE            write [{\"name\",\"status\",\"message\",\"seconds\"}]\n"
    "  --fail-on-failure      exit 1 when a test fails (default: failures are only reported)\n"
    "  --timeout SECONDS      per test (default 120); a test past it fails\n"
    "  --no-fork              run tests in this process (a crash then ends the run)\n"
    "  --provider PATH        libgeon_provider.so to load (default: $GEON_PROVIDER, else\n"
    "                         ../provider/libgeon_provider.so next to this program)\n"
    "Status per test: pass, fail (first mismatch), unsupported (GEON_UNSUPPORTED or test data the\n"
    "runner cannot read, e.g. strings: counted as skipped).\n";

RunnerArgs parse_runner_args(int argc, char** argv, bool& help) {
  RunnerArgs a;
  help = false;
  ArgCursor args(argc, argv);
  while (args.more()) {
    const std::string arg = args.next();
    if (arg == "--help" || arg == "-h") {
      help = true;
      return a;
    } else if (arg == "--json") {
      a.json_path = args.value(arg);
    } else if (arg == "--devices") {
      a.devices = args.value(arg);
    } else if (arg == "--filter") {
      a.filter = args.value(arg);
    } else if (arg == "--provider") {
      a.provider = args.value(arg);
    } else if (arg == "--fail-on-failure") {
      a.fail_on_failure = true;
    } else if (arg == "--no-fork") {
      a.fork_each = false;
    } else if (arg == "--timeout") {
      a.timeout_s = parse_double(args.value(arg), arg, 0.1, 86400);
    } else if (!arg.empty() && arg[0] == '-') {
      throw ToolError("unknown option " + arg + " (see --help)");
    } else {
      a.dirs.push_back(arg);
    }
  }
  if (a.dirs.empty()) throw ToolError("no test directory given (see --help)");
  return a;
}

}  // namespace geon::tools
