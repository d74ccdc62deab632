// geon-run: runs an ONNX model through the provider library (loaded by path through the C
// ABI), prints its outputs, and in perf mode times it in the spirit of onnxruntime_perf_test.
#include <chrono>
#include <filesystem>
#include <iostream>

#include "geon/geon.hpp"
#include "tools/common/file_bytes.h"
#include "tools/common/npy.h"
#include "tools/common/provider_path.h"
#include "tools/common/summary.h"
#include "tools/common/tensor_file.h"
#include "tools/common/tool_main.h"
#include "tools/geon-run/inputs.h"
#include "tools/geon-run/profile_summary.h"
#include "tools/geon-run/run_args.h"

namespace geon::tools {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Times runs after `warmup` untimed ones; by count or, when duration_s > 0, by wall time.
LatencyStats time_runs(const geon::api::Session& session, const std::vector<geon::api::Feed>& feeds,
                       const RunArgs& args) {
  for (int64_t i = 0; i < args.warmup; ++i) session.run_result(feeds);
  std::vector<double> latencies;
  const auto start = Clock::now();
  const double budget_ms = args.duration_s * 1000.0;
  while (args.duration_s > 0 ? ms_since(start) < budget_ms
                             : static_cast<int64_t>(latencies.size()) < args.repeat) {
    const auto t0 = Clock::now();
    session.run_result(feeds);  // outputs stay in provider memory: no copy is timed
    latencies.push_back(ms_since(t0));
  }
  return latency_stats(std::move(latencies), ms_since(start) / 1000.0);
}

int run_main(int argc, char** argv) {
  const std::optional<RunArgs> parsed = parse_run_args(argc, argv);
  if (!parsed) return 0;  // --help
  const RunArgs& args = *parsed;
  const std::string lib_path = provider_path(args.provider);
  geon::api::Library lib(lib_path);
  std::cout << "provider: " << lib_path << " (" << lib.version() << ")\n";

  geon::api::Options options = provider_options(lib, args);
  if (args.threads >= 0) options.set("intra_op_threads", std::to_string(args.threads));
  if (args.strict) options.set("strict", "1");
  if (!args.profile_path.empty()) options.set("profiling", "1");

  const auto t_create = Clock::now();
  geon::api::Session session(lib, args.model, &options);
  std::cout << "model: " << args.model << " (session created in " << ms_since(t_create) << " ms)\n";

  std::vector<std::string> notes;
  const std::vector<HostTensor> inputs = prepare_inputs(session.inputs(), args, notes);
  for (const auto& n : notes) std::cout << "note: " << n << "\n";
  std::vector<geon::api::Feed> feeds;
  for (const auto& t : inputs) {
    std::cout << "input  " << summarize(t, 4) << "\n";
    feeds.push_back(to_feed(t));
  }

  const auto t_first = Clock::now();
  const geon::api::Result result = session.run_result(feeds);
  const double first_ms = ms_since(t_first);
  for (size_t i = 0; i < result.size(); ++i) {
    const HostTensor out = from_result(result, i);
    std::cout << "output " << summarize(out) << "\n";
    if (!args.save_outputs_dir.empty()) {
      std::filesystem::create_directories(args.save_outputs_dir);
      std::string file = out.name;
      for (char& c : file) {
        if (c == '/' || c == '\\') c = '_';  // output names may hold path separators
      }
      write_npy((std::filesystem::path(args.save_outputs_dir) / (file + ".npy")).string(), out);
    }
  }
  std::cout << "first run: " << first_ms << " ms\n";

  if (args.perf) std::cout << format_latency(time_runs(session, feeds, args));

  // After the runs: with symbolic shapes the memory plan (and its peak) exists only then.
  if (!args.report_path.empty()) {
    write_file_text(args.report_path, session.placement_report());
    std::cout << "placement report: " << args.report_path << "\n";
  }
  if (!args.profile_path.empty()) {
    const std::string trace = session.end_profiling();
    write_file_text(args.profile_path, trace);
    std::cout << "profile: " << args.profile_path << "\n";
    // Every recorded run counts: the first, and in perf mode the warmup and timed runs.
    std::cout << "== time per op (all profiled runs)\n" << format_op_times(op_times(trace));
  }
  return 0;
}

}  // namespace
}  // namespace geon::tools

int main(int argc, char** argv) {
  return geon::tools::tool_main("geon-run", argc, argv, geon::tools::run_main, 1);
}
