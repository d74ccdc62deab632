// What geon-run prints per output: name, dtype, shape, the first values and min/max/mean,
// and latency statistics for perf mode in the spirit of onnxruntime_perf_test.
#pragma once

#include <string>
#include <vector>

#include "tools/common/host_tensor.h"

namespace geon::tools {

// "logits: float32 [8, 10]  first: 0.231 -0.0188 ...  min -1.2 max 0.93 mean 0.0412".
std::string summarize(const HostTensor& t, size_t first_values = 8);

struct LatencyStats {
  size_t runs = 0;
  double total_s = 0;
  double mean_ms = 0, min_ms = 0, max_ms = 0;
  double p50_ms = 0, p90_ms = 0, p99_ms = 0;
  double runs_per_s = 0;
};

// From per-run latencies in milliseconds (nearest-rank percentiles) and the wall time of all
// runs together.
LatencyStats latency_stats(std::vector<double> latencies_ms, double total_s);
std::string format_latency(const LatencyStats& s);

}  // namespace geon::tools
