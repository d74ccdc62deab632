#include "tools/geon-run/run_args.h"

#include "tools/common/args.h"
#include "tools/common/host_tensor.h"

namespace geon::tools {

const char* const kRunUsage =
    "usage: geon-run MODEL [options]\n"
    "Runs an ONNX model through libgeon_provider.so and prints each output; in perf mode\n"
    "also latency percentiles and throughput.\n"
    "  --input NAME=FILE      feed an input from FILE.npy or FILE.pb (TensorProto); repeatable.\n"
    "                         Inputs not given are random (seeded).\n"
    "  --dim SYMBOL=N         length of a symbolic dimension for random inputs (default 1)\n"
    "  --devices LIST         kernel sets in priority order, e.g. cpu.dnnl,cpu.generic\n"
    "  --threads N            engine threads (0 = one per hardware thread)\n"
    "  --strict               fail when a node cannot run on the first device\n"
    "  --seed N               seed of the random inputs (default 0)\n"
    "  --perf                 time the model: --warmup runs, then --repeat or --duration\n"
    "  --warmup N             untimed runs before timing (default 5)\n"
    "  --repeat N             timed runs (default 100)\n"
    "  --duration SECONDS     time runs for this long instead of --repeat\n"
    "  --report FILE.json     write the placement report\n"
    "  --profile FILE.json    record and write a Chrome-trace profile of every run\n"
    "  --save-outputs DIR     write each output to DIR/NAME.npy\n"
    "  --provider PATH        libgeon_provider.so to load (default: $GEON_PROVIDER, else\n"
    "                         ../provider/libgeon_provider.so next to this program)\n";

RunArgs parse_run_args(int argc, char** argv, bool& help) {
  RunArgs a;
  help = false;
  ArgCursor args(argc, argv);
  while (args.more()) {
    const std::string arg = args.next();
    if (arg == "--help" || arg == "-h") {
      help = true;
      return a;
    } else if (arg == "--input") {
      a.inputs.push_back(split_assignment(args.value(arg), arg));
    } else if (arg == "--dim") {
      const auto [sym, len] = split_assignment(args.value(arg), arg);
      a.dims[sym] = parse_int(len, arg + " " + sym, 0, int64_t{1} << 32);
    } else if (arg == "--devices") {
      a.devices = args.value(arg);
    } else if (arg == "--threads") {
      a.threads = parse_int(args.value(arg), arg, 0, 4096);
    } else if (arg == "--strict") {
      a.strict = true;
    } else if (arg == "--seed") {
      a.seed = static_cast<uint64_t>(parse_int(args.value(arg), arg, 0, INT64_MAX));
    } else if (arg == "--perf") {
      a.perf = true;
    } else if (arg == "--warmup") {
      a.warmup = parse_int(args.value(arg), arg, 0, 1'000'000);
    } else if (arg == "--repeat") {
      a.repeat = parse_int(args.value(arg), arg, 1, 100'000'000);
    } else if (arg == "--duration") {
      a.duration_s = parse_double(args.value(arg), arg, 1e-3, 86400);
    } else if (arg == "--report") {
      a.report_path = args.value(arg);
    } else if (arg == "--profile") {
      a.profile_path = args.value(arg);
    } else if (arg == "--save-outputs") {
      a.save_outputs_dir = args.value(arg);
    } else if (arg == "--provider") {
      a.provider = args.value(arg);
    } else if (!arg.empty() && arg[0] == '-') {
      throw ToolError("unknown option " + arg + " (see --help)");
    } else if (a.model.empty()) {
      a.model = arg;
    } else {
      throw ToolError("more than one model given: '" + a.model + "' and '" + arg + "'");
    }
  }
  if (a.model.empty()) throw ToolError("no model given (see --help)");
  return a;
}

}  // namespace geon::tools
