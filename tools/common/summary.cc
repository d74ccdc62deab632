#include "tools/common/summary.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace geon::tools {

std::string summarize(const HostTensor& t, size_t first_values) {
  std::ostringstream s;
  s.precision(6);
  s << t.name << ": " << dtype_name(t.dtype) << " " << shape_string(t.shape);
  if (dtype_bits(t.dtype) == 0) return s.str();
  const int64_t n = element_count(t.shape, t.name);
  if (n == 0) return s.str() + "  (empty)";
  s << "  first:";
  for (int64_t i = 0; i < n && i < static_cast<int64_t>(first_values); ++i)
    s << ' ' << element_value(t, i);
  if (n > static_cast<int64_t>(first_values)) s << " ...";
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  int64_t nans = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = element_value(t, i);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  if (nans < n)
    s << "  min " << lo << " max " << hi << " mean " << sum / static_cast<double>(n - nans);
  if (nans) s << "  nan " << nans;
  return s.str();
}

LatencyStats latency_stats(std::vector<double> ms, double total_s) {
  LatencyStats st;
  st.runs = ms.size();
  st.total_s = total_s;
  if (ms.empty()) return st;
  std::sort(ms.begin(), ms.end());
  auto rank = [&](double p) {
    const auto k = static_cast<size_t>(std::ceil(p * static_cast<double>(ms.size())));
    return ms[std::min(ms.size() - 1, k == 0 ? 0 : k - 1)];
  };
  double sum = 0;
  for (double v : ms) sum += v;
  st.mean_ms = sum / static_cast<double>(ms.size());
  st.min_ms = ms.front();
  st.max_ms = ms.back();
  st.p50_ms = rank(0.50);
  st.p90_ms = rank(0.90);
  st.p99_ms = rank(0.99);
  st.runs_per_s = total_s > 0 ? static_cast<double>(ms.size()) / total_s : 0;
  return st;
}

std::string format_latency(const LatencyStats& s) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(4);
  o << "runs: " << s.runs << " in " << s.total_s << " s\n"
    << "latency mean: " << s.mean_ms << " ms\n"
    << "latency min: " << s.min_ms << " ms\n"
    << "latency max: " << s.max_ms << " ms\n"
    << "latency p50: " << s.p50_ms << " ms\n"
    << "latency p90: " << s.p90_ms << " ms\n"
    << "latency p99: " << s.p99_ms << " ms\n";
  o.precision(2);
  o << "throughput: " << s.runs_per_s << " runs/s\n";
  return o.str();
}

}  // namespace geon::tools
