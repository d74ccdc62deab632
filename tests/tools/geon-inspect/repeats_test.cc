// Finding runs of repeated blocks in a node sequence, checked against a brute-force search over
// every (start, period) on small sequences.
#include "tools/geon-inspect/repeats.h"

#include <gtest/gtest.h>

#include <random>

namespace geon::tools {
namespace {

TEST(FindRepeats, AStackOfLayersIsOneRunBetweenItsStemAndHead) {
  // stem, 12 x (a b c), head
  std::vector<uint64_t> s = {9};
  for (int i = 0; i < 12; ++i) s.insert(s.end(), {1, 2, 3});
  s.push_back(8);
  const auto runs = find_repeats(s, 3);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].start, 1u);
  EXPECT_EQ(runs[0].period, 3u);
  EXPECT_EQ(runs[0].count, 12u);
}

TEST(FindRepeats, TheShortestPeriodWinsATieAndSmallSavingsAreLeftAlone) {
  const auto runs = find_repeats({5, 5, 5, 5, 5, 5}, 3);  // (5)x6 and (5 5)x3 cover the same
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].period, 1u);
  EXPECT_EQ(runs[0].count, 6u);
  EXPECT_TRUE(find_repeats({1, 2, 1, 2}, 3).empty());  // saves 2 nodes only
  EXPECT_TRUE(find_repeats({1, 2, 3, 4, 5, 6}, 1).empty());
}

// Every run found is a true repetition, runs do not overlap, and no run could have been longer
// at its start (brute force over every period).
TEST(FindRepeats, RunsAreTrueMaximalRepetitionsOnRandomSequences) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<uint64_t> s;
    while (s.size() < 40) {
      const int len = 1 + static_cast<int>(rng() % 4), times = 1 + static_cast<int>(rng() % 4);
      std::vector<uint64_t> block;
      for (int i = 0; i < len; ++i) block.push_back(rng() % 3);
      for (int t = 0; t < times; ++t) s.insert(s.end(), block.begin(), block.end());
    }
    size_t end = 0;
    for (const RepeatRun& r : find_repeats(s, 2)) {
      EXPECT_GE(r.start, end);
      end = r.start + r.period * r.count;
      ASSERT_LE(end, s.size());
      for (size_t j = r.start; j < end; ++j) EXPECT_EQ(s[j], s[r.start + (j - r.start) % r.period]);
      for (size_t p = 1; r.start + 2 * p <= s.size(); ++p) {
        size_t k = 1;
        while (
            r.start + (k + 1) * p <= s.size() &&
            std::equal(s.begin() + r.start, s.begin() + r.start + p, s.begin() + r.start + k * p))
          ++k;
        if (k >= 2) {
          EXPECT_LE(p * k, r.period * r.count) << "a longer run at " << r.start;
        }
      }
    }
  }
}

}  // namespace
}  // namespace geon::tools
