#include "tools/geon-run/run_args.h"

#include "tools/common/command_line.h"
#include "tools/common/host_tensor.h"

namespace geon::tools {

namespace {
constexpr const char* kRunOwnUsage =
    "usage: geon-run MODEL [options]\n"
    "Runs an ONNX model through libgeon_provider.so and prints each output; in perf mode\n"
    "also latency percentiles and throughput.\n"
    "  --input NAME=FILE      feed an input from FILE.npy or FILE.pb (TensorProto); repeatable.\n"
    "                         Inputs not given are random (seeded).\n"
    "  --dim SYMBOL=N         length of a symbolic dimension for random inputs (default 1)\n"
    "  --threads N            engine threads (0 = one per hardware thread)\n"
    "  --strict               fail when a node cannot run on the first device\n"
    "  --seed N               seed of the random inputs (default 0)\n"
    "  --perf                 time the model: --warmup runs, then --repeat or --duration\n"
    "  --warmup N             untimed runs before timing (default 5)\n"
    "  --repeat N             timed runs (default 100)\n"
    "  --duration SECONDS     time runs for this long instead of --repeat\n"
    "  --report FILE.json     write the placement report\n"
    "  --profile FILE.json    record and write a Chrome-trace profile of every run, and print\n"
    "                         a per-op summary of it at the end: op type, kernel set, count,\n"
    "                         total ms, mean us, share % (all runs: the first, and with --perf\n"
    "                         the warmup and timed runs; profiling adds a little to each run)\n"
    "  --save-outputs DIR     write each output to DIR/NAME.npy\n";
const std::string kRunUsage = std::string(kRunOwnUsage) + kProviderArgsUsage;

}  // namespace

std::optional<RunArgs> parse_run_args(int argc, char** argv) {
  RunArgs a;
  const auto take = [&a](const std::string& arg, ArgCursor& args) {
    if (arg == "--input") {
      a.inputs.push_back(split_assignment(args.value(arg), arg));
    } else if (arg == "--dim") {
      const auto [sym, len] = split_assignment(args.value(arg), arg);
      a.dims[sym] = parse_int(len, arg + " " + sym, 0, int64_t{1} << 32);
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
    } else {
      set_model(a.model, arg);
    }
  };
  if (!walk_command_line(argc, argv, kRunUsage, a, take)) return std::nullopt;
  require_model(a.model);
  return a;
}

}  // namespace geon::tools
