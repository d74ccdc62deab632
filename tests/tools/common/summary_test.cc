// geon-run's printed statistics: nearest-rank latency percentiles and per-output summaries.
#include "tools/common/summary.h"

#include <gtest/gtest.h>

#include <cstring>

namespace geon::tools {
namespace {

TEST(LatencyStats, NearestRankPercentilesOfShuffledRuns) {
  std::vector<double> ms;
  for (int i = 100; i >= 1; --i) ms.push_back(i);  // 1..100 ms, in reverse order
  const LatencyStats s = latency_stats(ms, 2.0);
  EXPECT_EQ(s.runs, 100u);
  EXPECT_EQ(s.p50_ms, 50);
  EXPECT_EQ(s.p90_ms, 90);
  EXPECT_EQ(s.p99_ms, 99);
  EXPECT_EQ(s.min_ms, 1);
  EXPECT_EQ(s.max_ms, 100);
  EXPECT_DOUBLE_EQ(s.mean_ms, 50.5);
  EXPECT_DOUBLE_EQ(s.runs_per_s, 50);
  const std::string text = format_latency(s);
  EXPECT_NE(text.find("latency p99: 99.0000 ms"), std::string::npos) << text;
}

TEST(LatencyStats, EmptyRunListIsAllZero) {
  const LatencyStats s = latency_stats({}, 0);
  EXPECT_EQ(s.runs, 0u);
  EXPECT_EQ(s.p99_ms, 0);
}

TEST(Summarize, ShowsShapeFirstValuesAndStatistics) {
  HostTensor t;
  t.name = "logits";
  t.dtype = kFloat;
  t.shape = {2, 2};
  const float v[] = {1, -3, 2, 4};
  t.data.resize(sizeof v);
  std::memcpy(t.data.data(), v, sizeof v);
  const std::string s = summarize(t, 2);
  EXPECT_NE(s.find("logits: float [2, 2]"), std::string::npos) << s;
  EXPECT_NE(s.find("first: 1 -3 ..."), std::string::npos) << s;
  EXPECT_NE(s.find("min -3 max 4 mean 1"), std::string::npos) << s;
}

}  // namespace
}  // namespace geon::tools
