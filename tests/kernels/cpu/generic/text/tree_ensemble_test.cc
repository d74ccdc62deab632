// cpu.generic ai.onnx.ml TreeEnsemble against a recursive walk written from the spec: random
// forests (every comparison mode, set membership, missing values tracking true), each
// aggregate function and post transform; malformed ensembles (an id out of range, a cycle)
// are refused instead of looping or reading out of bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/generic/text/text_harness.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

struct Forest {
  std::vector<int64_t> feature, mode, tid, fid, tleaf, fleaf, missing, roots, target;
  std::vector<double> split, weight;
  std::vector<std::vector<double>> members;
  int64_t targets = 3;
};

// Node i's children are leaves or nodes after i, so every walk ends.
Forest random_forest(std::mt19937& rng, int nodes, int leaves, int trees) {
  Forest f;
  std::uniform_real_distribution<double> u(-2, 2);
  for (int i = 0; i < nodes; ++i) {
    f.feature.push_back(rng() % 4);
    f.mode.push_back(rng() % 7);
    f.split.push_back(std::round(u(rng) * 2) / 2);
    f.missing.push_back(rng() % 2);
    f.members.emplace_back();
    if (f.mode.back() == 6)
      for (int k = 0; k < 3; ++k) f.members.back().push_back(std::round(u(rng) * 2) / 2);
    for (int side = 0; side < 2; ++side) {
      const bool leaf = i == nodes - 1 || rng() % 2;
      (side ? f.fleaf : f.tleaf).push_back(leaf);
      (side ? f.fid : f.tid).push_back(leaf ? rng() % leaves : i + 1 + rng() % (nodes - i - 1));
    }
  }
  for (int l = 0; l < leaves; ++l) {
    f.target.push_back(rng() % f.targets);
    f.weight.push_back(u(rng));
  }
  for (int t = 0; t < trees; ++t) f.roots.push_back(rng() % nodes);
  return f;
}

double walk(const Forest& f, int64_t k, const double* x) {
  while (true) {
    const double v = x[f.feature[k]], s = f.split[k];
    bool go = false;
    if (std::isnan(v) && f.missing[k]) {
      go = true;
    } else {
      switch (f.mode[k]) {
        case 0:
          go = v <= s;
          break;
        case 1:
          go = v < s;
          break;
        case 2:
          go = v >= s;
          break;
        case 3:
          go = v > s;
          break;
        case 4:
          go = v == s;
          break;
        case 5:
          go = v != s;
          break;
        default:
          go = std::count(f.members[k].begin(), f.members[k].end(), v) > 0;
      }
    }
    if (go ? f.tleaf[k] : f.fleaf[k]) return static_cast<double>(go ? f.tid[k] : f.fid[k]);
    k = go ? f.tid[k] : f.fid[k];
  }
}

void setup(NodeGraph& ng, const Forest& f, int aggregate, int post) {
  ng.node->domain = "ai.onnx.ml";
  ng.attr_ints("nodes_featureids", f.feature);
  ng.attr_ints("nodes_truenodeids", f.tid);
  ng.attr_ints("nodes_falsenodeids", f.fid);
  ng.attr_ints("nodes_trueleafs", f.tleaf);
  ng.attr_ints("nodes_falseleafs", f.fleaf);
  ng.attr_ints("nodes_missing_value_tracks_true", f.missing);
  ng.attr_ints("leaf_targetids", f.target);
  ng.attr_ints("tree_roots", f.roots);
  ng.attr_i("n_targets", f.targets);
  ng.attr_i("aggregate_function", aggregate);
  ng.attr_i("post_transform", post);
  attr_tensor(ng, "nodes_modes", DType::kUInt8, std::vector<double>(f.mode.begin(), f.mode.end()));
  attr_tensor(ng, "nodes_splits", DType::kDouble, f.split);
  attr_tensor(ng, "leaf_weights", DType::kDouble, f.weight);
  std::vector<double> members;
  for (size_t k = 0; k < f.mode.size(); ++k) {
    if (f.mode[k] != 6) continue;
    members.insert(members.end(), f.members[k].begin(), f.members[k].end());
    members.push_back(NAN);
  }
  if (!members.empty()) attr_tensor(ng, "membership_values", DType::kDouble, members);
}

TEST(TextTreeEnsemble, MatchesARecursiveWalkForEveryAggregateAndTransform) {
  std::mt19937 rng(21);
  for (int aggregate = 0; aggregate < 4; ++aggregate) {
    for (int post : {0, 1, 2, 3, 4}) {
      if (post == 4 && aggregate != 0) continue;  // probit needs values in (0, 1)
      Forest f = random_forest(rng, 9, 5, 3);
      if (post == 4)
        for (double& w : f.weight) w = 0.05 + 0.9 * (w + 2) / 4;
      Host x = Host::random(DType::kDouble, {6, 4}, rng, -2, 2);
      for (int64_t i = 0; i < 24; ++i) x.set(i, std::round(x.at(i) * 2) / 2);  // hit EQ splits
      x.set(5, NAN);
      NodeGraph ng("TreeEnsemble", 5);
      ng.in(x).out(DType::kDouble, {6, f.targets});
      setup(ng, f, aggregate, post);
      const Host y = ng.run(gen())[0];
      for (int64_t r = 0; r < 6; ++r) {
        std::vector<double> row(f.targets, aggregate == 2   ? std::numeric_limits<double>::max()
                                           : aggregate == 3 ? -std::numeric_limits<double>::max()
                                                            : 0.0);
        double xr[4];
        for (int c = 0; c < 4; ++c) xr[c] = x.at(r * 4 + c);
        for (int64_t root : f.roots) {
          const auto leaf = static_cast<size_t>(walk(f, root, xr));
          double& s = row[f.target[leaf]];
          const double w = f.weight[leaf];
          s = aggregate == 2   ? std::min(s, w)
              : aggregate == 3 ? std::max(s, w)
                               : s + (aggregate == 0 ? w / f.roots.size() : w);
        }
        if (post == 1 || post == 3) {
          double mx = -INFINITY, sum = 0;
          for (double v : row)
            if (post == 1 || v != 0) mx = std::max(mx, v);
          for (double& v : row)
            if (post == 1 || v != 0) sum += (v = std::exp(v - mx));
          for (double& v : row)
            if (post == 1 || v != 0) v /= sum;
        } else if (post == 2) {
          for (double& v : row) v = 1 / (1 + std::exp(-v));
        }
        for (int64_t t = 0; t < f.targets; ++t) {
          const double g = y.at(r * f.targets + t);
          if (post == 4) {
            // probit: the inverse of the normal CDF, checked through the CDF.
            if (row[t] == 0) continue;
            EXPECT_NEAR(0.5 * std::erfc(-g / std::sqrt(2.0)), row[t], 1e-6);
          } else {
            EXPECT_NEAR(g, row[t], 1e-9 * std::max(1.0, std::abs(row[t])))
                << "aggregate " << aggregate << " post " << post << " row " << r;
          }
        }
      }
    }
  }
}

TEST(TextTreeEnsemble, RefusesIdsOutOfRange) {
  std::mt19937 rng(1);
  Forest f = random_forest(rng, 3, 2, 1);
  f.tleaf[0] = 1;
  f.tid[0] = 7;
  NodeGraph ng("TreeEnsemble", 5);
  ng.in(Host::dense(DType::kFloat, {1, 4})).out(DType::kFloat, {1, f.targets});
  setup(ng, f, 1, 0);
  const auto why = ng.supports(gen());
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("out of range"), std::string::npos) << *why;
}

TEST(TextTreeEnsemble, ACycleFailsInsteadOfLooping) {
  Forest f;
  f.feature = {0, 0};
  f.mode = {0, 0};
  f.split = {1, 1};
  f.missing = {0, 0};
  f.members = {{}, {}};
  f.tid = {1, 0};  // node 0 -> node 1 -> node 0 ...
  f.fid = {0, 0};
  f.tleaf = {0, 0};
  f.fleaf = {1, 1};
  f.target = {0};
  f.weight = {1};
  f.roots = {0};
  NodeGraph ng("TreeEnsemble", 5);
  ng.in(Host::of(DType::kFloat, {1, 1}, {0})).out(DType::kFloat, {1, f.targets});
  setup(ng, f, 1, 0);
  expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"cycle"});
}

TEST(TextTreeEnsemble, RefusesAFeatureXDoesNotHave) {
  Forest f;
  f.feature = {5};
  f.mode = {0};
  f.split = {1};
  f.missing = {0};
  f.members = {{}};
  f.tid = {0};
  f.fid = {0};
  f.tleaf = {1};
  f.fleaf = {1};
  f.target = {0};
  f.weight = {1};
  f.roots = {0};
  f.tid = {0};
  f.fid = {0};
  NodeGraph ng("TreeEnsemble", 5);
  // Both branches the same leaf: a single-leaf tree, which reads no feature.
  ng.in(Host::of(DType::kFloat, {1, 2}, {0, 0})).out(DType::kFloat, {1, f.targets});
  setup(ng, f, 1, 0);
  EXPECT_EQ(ng.run(gen())[0].at(0), 1);
  f.fid = {0};
  f.tleaf = {0};
  f.tid = {0};
  NodeGraph bad("TreeEnsemble", 5);
  bad.in(Host::of(DType::kFloat, {1, 2}, {0, 0})).out(DType::kFloat, {1, f.targets});
  setup(bad, f, 1, 0);
  expect_error(bad, gen(), ErrorCode::kOutOfRange, {"feature 5", "X has 2"});
}

}  // namespace
}  // namespace geon::cpu::testing
