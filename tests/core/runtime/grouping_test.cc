// group_by_colour on random DAGs, checked by brute force: the contraction is acyclic, groups
// come in a runnable order, and no two groups of one colour could still be merged.
#include "core/runtime/grouping.h"

#include <gtest/gtest.h>

#include <random>

namespace geon {
namespace {

// Whether contracting `label` (one label per node; nodes sharing a label become one) leaves
// the DAG acyclic: Kahn's algorithm on the label graph.
bool contraction_acyclic(const std::vector<int>& label,
                         const std::vector<std::vector<int>>& preds) {
  int nl = 0;
  for (int l : label) nl = std::max(nl, l + 1);
  std::vector<std::vector<int>> succ(nl);
  std::vector<int> indeg(nl, 0);
  for (size_t n = 0; n < preds.size(); ++n)
    for (int p : preds[n])
      if (label[p] != label[n]) {
        succ[label[p]].push_back(label[n]);
        ++indeg[label[n]];
      }
  std::vector<int> ready;
  for (int l = 0; l < nl; ++l)
    if (indeg[l] == 0) ready.push_back(l);
  int seen = 0;
  while (!ready.empty()) {
    const int l = ready.back();
    ready.pop_back();
    ++seen;
    for (int s : succ[l])
      if (--indeg[s] == 0) ready.push_back(s);
  }
  return seen == nl;
}

// Labels: groups keep their index, uncoloured nodes get their own labels after them.
std::vector<int> labels_of(const Grouping& g) {
  std::vector<int> label(g.group_of.size());
  int next = static_cast<int>(g.groups.size());
  for (size_t n = 0; n < label.size(); ++n) label[n] = g.group_of[n] >= 0 ? g.group_of[n] : next++;
  return label;
}

TEST(Grouping, ClassicDiamondGivesTwoGroups) {
  // 0(c0) -> 1(c1) -> 2(c0), 0 -> 2
  const std::vector<int> colour{0, 1, 0};
  const std::vector<std::vector<int>> preds{{}, {0}, {1, 0}};
  const Grouping g = group_by_colour(colour, preds);
  EXPECT_EQ(g.groups.size(), 3u);
  EXPECT_EQ(g.groups[0], std::vector<int>{0});
  EXPECT_EQ(g.groups[2], std::vector<int>{2});
}

TEST(Grouping, GreedyMissIsMergedAfterwards) {
  // Two independent colour-0 nodes, then a colour-0 node fed by both: one group in the end.
  const std::vector<int> colour{0, 1, 0, 0};
  const std::vector<std::vector<int>> preds{{}, {}, {1}, {0, 2}};
  const Grouping g = group_by_colour(colour, preds);
  ASSERT_EQ(g.groups.size(), 2u);
  EXPECT_EQ(g.groups[1], (std::vector<int>{0, 2, 3}));
}

TEST(Grouping, RandomDagsAreAcyclicOrderedAndMaximal) {
  for (unsigned seed = 0; seed < 300; ++seed) {
    std::mt19937 rng(seed);
    const int n = 2 + static_cast<int>(rng() % 24);
    const int colours = 1 + static_cast<int>(rng() % 3);
    std::vector<int> colour(n);
    std::vector<std::vector<int>> preds(n);
    for (int i = 0; i < n; ++i) {
      colour[i] = static_cast<int>(rng() % (colours + 1)) - 1;  // -1: uncoloured
      for (int p = 0; p < i; ++p)
        if (rng() % 4 == 0) preds[i].push_back(p);
    }
    const Grouping g = group_by_colour(colour, preds);
    const std::vector<int> label = labels_of(g);
    ASSERT_TRUE(contraction_acyclic(label, preds)) << "seed " << seed;
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(g.group_of[i] >= 0, colour[i] >= 0) << "seed " << seed;
      if (colour[i] >= 0) {
        ASSERT_EQ(g.colour[g.group_of[i]], colour[i]);
      }
      for (int p : preds[i]) {
        if (g.group_of[p] >= 0 && g.group_of[i] >= 0) {
          ASSERT_LE(g.group_of[p], g.group_of[i]) << "groups out of order, seed " << seed;
        }
      }
    }
    for (size_t a = 0; a < g.groups.size(); ++a)
      for (size_t b = a + 1; b < g.groups.size(); ++b) {
        if (g.colour[a] != g.colour[b]) continue;
        std::vector<int> merged = label;
        for (int& l : merged)
          if (l == static_cast<int>(b)) l = static_cast<int>(a);
        EXPECT_FALSE(contraction_acyclic(merged, preds))
            << "groups " << a << " and " << b << " could merge, seed " << seed;
      }
  }
}

}  // namespace
}  // namespace geon
