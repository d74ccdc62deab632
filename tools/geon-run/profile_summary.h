// The per-op summary of a profile, as onnxruntime users get from its profiler's output: from the
// provider's Chrome trace (one complete event per node run, args.op and args.set), the time
// spent per op type and kernel set, largest first.
#pragma once

#include <string>
#include <vector>

namespace geon::tools {

struct OpTime {
  std::string op;   // "Conv", "geon.FusedConv"...
  std::string set;  // "cpu.dnnl"...
  size_t count = 0;
  double total_us = 0;
};

// One row per (op, set), sorted by total time (descending), then by op and set; ToolError when
// `trace_json` is not a Chrome trace.
std::vector<OpTime> op_times(const std::string& trace_json);

// The rows as a table: op, set, count, total ms, mean µs, share % of all node time.
std::string format_op_times(const std::vector<OpTime>& rows);

}  // namespace geon::tools
