// cpu.generic normalisations (BatchNormalization inference and training, Instance-, Group-,
// Layer-, RMS-, MeanVariance- and LpNormalization) against naive loops over multi-indices:
// seeded random shapes with odd lengths, every axis, strided inputs, both GroupNormalization
// scale forms and the statistics outputs.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// Row-major index i of shape s with the flagged dims collapsed to 0: the key of i's statistic.
int64_t kept_index(const Dims& s, const std::vector<bool>& red, int64_t i) {
  int64_t key = 0, scale = 1;
  for (int k = static_cast<int>(s.size()) - 1; k >= 0; --k) {
    const int64_t c = i % s[k];
    i /= s[k];
    if (!red[k]) key += c * scale, scale *= s[k];
  }
  return key;
}

int64_t coord(const Dims& s, int64_t i, int dim) {
  for (int k = static_cast<int>(s.size()) - 1; k > dim; --k) i /= s[k];
  return i % s[dim];
}

// Mean and population variance of x over the flagged dims, keyed by kept_index.
struct Stats {
  std::vector<double> mean, var, sq;  // sq: mean of squares
};
Stats naive_stats(const Host& x, const std::vector<bool>& red) {
  const Dims& s = x.desc.shape;
  int64_t keys = 1, per = 1;
  for (size_t k = 0; k < s.size(); ++k) (red[k] ? per : keys) *= s[k];
  Stats st{std::vector<double>(keys), std::vector<double>(keys), std::vector<double>(keys)};
  for (int64_t i = 0; i < element_count(s); ++i) {
    st.mean[kept_index(s, red, i)] += x.at(i) / per;
    st.sq[kept_index(s, red, i)] += x.at(i) * x.at(i) / per;
  }
  for (int64_t i = 0; i < element_count(s); ++i) {
    const double d = x.at(i) - st.mean[kept_index(s, red, i)];
    st.var[kept_index(s, red, i)] += d * d / per;
  }
  return st;
}

Host maybe_strided(const Host& h, int trial) {
  if (trial % 2 == 0) return h;
  std::vector<int64_t> perm;
  for (int k = h.desc.rank() - 1; k >= 0; --k) perm.push_back(k);
  return h.strided(perm);
}

TEST(CpuGenericNorm, BatchNormInferenceMatchesFormulaForEveryRank) {
  std::mt19937 rng(1);
  for (int trial = 0; trial < 8; ++trial) {
    const int rank = 2 + trial % 3;
    const Dims s = random_shape(rng, rank, 5);
    const int64_t c = s[1];
    const Host x = maybe_strided(Host::random(DType::kFloat, s, rng), trial);
    const Host sc = Host::random(DType::kFloat, {c}, rng),
               b = Host::random(DType::kFloat, {c}, rng), m = Host::random(DType::kFloat, {c}, rng),
               v = Host::random(DType::kFloat, {c}, rng, 0.1, 2);
    const float eps = 1e-3f;
    NodeGraph ng("BatchNormalization", trial < 4 ? 9 : 15);
    ng.in(x).in(sc).in(b).in(m).in(v).out(DType::kFloat, s).attr_f("epsilon", eps);
    SCOPED_TRACE(to_string(x.desc));
    expect_values(ng.run(gen())[0], s, [&](int64_t i) {
      const int64_t ch = coord(s, i, 1);
      return sc.at(ch) * (x.at(i) - m.at(ch)) / std::sqrt(v.at(ch) + eps) + b.at(ch);
    });
  }
}

TEST(CpuGenericNorm, BatchNormTrainingUsesBatchStatsAndBlendsRunningStats) {
  std::mt19937 rng(2);
  const Dims s{3, 4, 5, 3};
  const Host x = Host::random(DType::kFloat, s, rng).strided({1, 3, 0, 2});
  const Host sc = Host::random(DType::kFloat, {4}, rng), b = Host::random(DType::kFloat, {4}, rng),
             m = Host::random(DType::kFloat, {4}, rng),
             v = Host::random(DType::kFloat, {4}, rng, 0.1, 2);
  NodeGraph ng("BatchNormalization", 15);
  ng.in(x).in(sc).in(b).in(m).in(v).out(DType::kFloat, s).out(DType::kFloat, {4});
  ng.out(DType::kFloat, {4}).attr_i("training_mode", 1).attr_f("momentum", 0.8f);
  const std::vector<Host> got = ng.run(gen());
  const Stats st = naive_stats(x, {true, false, true, true});
  expect_values(got[0], s, [&](int64_t i) {
    const int64_t ch = coord(s, i, 1);
    return sc.at(ch) * (x.at(i) - st.mean[ch]) / std::sqrt(st.var[ch] + 1e-5) + b.at(ch);
  });
  expect_values(got[1], {4}, [&](int64_t i) { return m.at(i) * 0.8 + st.mean[i] * 0.2; });
  expect_values(got[2], {4}, [&](int64_t i) { return v.at(i) * 0.8 + st.var[i] * 0.2; });
}

// Before opset 7, is_test = 0 (the default) means batch statistics; spatial = 0 is refused.
TEST(CpuGenericNorm, BatchNormOpset6IsTestChoosesStatistics) {
  std::mt19937 rng(10);
  const Dims s{4, 3, 5};
  const Host x = Host::random(DType::kFloat, s, rng);
  const Host sc = Host::random(DType::kFloat, {3}, rng), b = Host::random(DType::kFloat, {3}, rng),
             m = Host::random(DType::kFloat, {3}, rng),
             v = Host::random(DType::kFloat, {3}, rng, 0.1, 2);
  const Stats st = naive_stats(x, {true, false, true});
  for (int is_test : {0, 1}) {
    NodeGraph ng("BatchNormalization", 6);
    ng.in(x).in(sc).in(b).in(m).in(v).out(DType::kFloat, s);
    if (is_test) ng.attr_i("is_test", 1);
    expect_values(ng.run(gen())[0], s, [&](int64_t i) {
      const int64_t ch = coord(s, i, 1);
      const double mean = is_test ? m.at(ch) : st.mean[ch], var = is_test ? v.at(ch) : st.var[ch];
      return sc.at(ch) * (x.at(i) - mean) / std::sqrt(var + 1e-5) + b.at(ch);
    });
  }
  NodeGraph per_activation("BatchNormalization", 7);
  per_activation.in(x).in(sc).in(b).in(m).in(v).out(DType::kFloat, s).attr_i("spatial", 0);
  const auto why = per_activation.supports(gen());
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("spatial"), std::string::npos) << *why;
}

TEST(CpuGenericNorm, BatchNormDoubleAndFloat16) {
  std::mt19937 rng(3);
  for (DType t : {DType::kDouble, DType::kFloat16}) {
    const Dims s{2, 3, 7};
    const Host x = Host::random(t, s, rng), sc = Host::random(t, {3}, rng),
               b = Host::random(t, {3}, rng), m = Host::random(t, {3}, rng),
               v = Host::random(t, {3}, rng, 0.5, 2);
    NodeGraph ng("BatchNormalization", 15);
    ng.in(x).in(sc).in(b).in(m).in(v).out(t, s);
    expect_values(
        ng.run(gen())[0], s,
        [&](int64_t i) {
          const int64_t ch = coord(s, i, 1);
          return sc.at(ch) * (x.at(i) - m.at(ch)) / std::sqrt(v.at(ch) + 1e-5) + b.at(ch);
        },
        t == DType::kFloat16 ? 5e-3 : 1e-9);
  }
}

TEST(CpuGenericNorm, InstanceNormPerSampleAndChannel) {
  std::mt19937 rng(4);
  for (int trial = 0; trial < 6; ++trial) {
    const Dims s = random_shape(rng, 3 + trial % 2, 6);
    const int64_t c = s[1];
    const Host x = maybe_strided(Host::random(DType::kFloat, s, rng), trial);
    const Host sc = Host::random(DType::kFloat, {c}, rng),
               b = Host::random(DType::kFloat, {c}, rng);
    NodeGraph ng("InstanceNormalization", 6);
    ng.in(x).in(sc).in(b).out(DType::kFloat, s).attr_f("epsilon", 1e-2f);
    std::vector<bool> red(s.size(), true);
    red[0] = red[1] = false;
    const Stats st = naive_stats(x, red);
    SCOPED_TRACE(to_string(x.desc));
    expect_values(ng.run(gen())[0], s, [&](int64_t i) {
      const int64_t k = kept_index(s, red, i), ch = coord(s, i, 1);
      return sc.at(ch) * (x.at(i) - st.mean[k]) / std::sqrt(st.var[k] + 1e-2) + b.at(ch);
    });
  }
}

// Opset 18 takes one scale and bias per group, opset 21 one per channel.
TEST(CpuGenericNorm, GroupNormScalePerGroupBefore21PerChannelFrom21) {
  std::mt19937 rng(5);
  for (int opset : {18, 21}) {
    for (int trial = 0; trial < 4; ++trial) {
      const int64_t groups = 1 + trial % 3, per = 1 + trial % 2;
      const Dims s{2, groups * per, 3, 1 + trial};
      const int64_t c = s[1], len = opset == 21 ? c : groups;
      const Host x = maybe_strided(Host::random(DType::kFloat, s, rng), trial);
      const Host sc = Host::random(DType::kFloat, {len}, rng),
                 b = Host::random(DType::kFloat, {len}, rng);
      NodeGraph ng("GroupNormalization", opset);
      ng.in(x).in(sc).in(b).out(DType::kFloat, s).attr_i("num_groups", groups);
      // The reference: statistics over [channels of one group, spatial] per sample.
      std::vector<double> mean(2 * groups), var(2 * groups);
      const int64_t count = per * s[2] * s[3];
      auto key = [&](int64_t i) { return coord(s, i, 0) * groups + coord(s, i, 1) / per; };
      for (int64_t i = 0; i < element_count(s); ++i) mean[key(i)] += x.at(i) / count;
      for (int64_t i = 0; i < element_count(s); ++i)
        var[key(i)] += (x.at(i) - mean[key(i)]) * (x.at(i) - mean[key(i)]) / count;
      SCOPED_TRACE(std::to_string(opset) + " " + to_string(x.desc));
      expect_values(ng.run(gen())[0], s, [&](int64_t i) {
        const int64_t k = key(i), p = opset == 21 ? coord(s, i, 1) : k % groups;
        return sc.at(p) * (x.at(i) - mean[k]) / std::sqrt(var[k] + 1e-5) + b.at(p);
      });
    }
  }
}

// LayerNormalization over every axis of a rank-3 input, with the Mean and InvStdDev outputs and
// scale/bias that broadcast to x[axis:]; RMSNormalization likewise without centering.
TEST(CpuGenericNorm, LayerAndRmsNormEveryAxisWithStats) {
  std::mt19937 rng(6);
  for (const char* op : {"LayerNormalization", "RMSNormalization"}) {
    const bool layer = std::string(op) == "LayerNormalization";
    for (int axis = -3; axis < 3; ++axis) {
      const Dims s = random_shape(rng, 3, 6);
      const int a = axis < 0 ? axis + 3 : axis;
      const Host x = maybe_strided(Host::random(DType::kFloat, s, rng), axis);
      const Dims tail(s.begin() + a, s.end());
      Dims scale_shape = tail;
      scale_shape.front() = 1;  // broadcast along the first normalised dim
      const Host sc = Host::random(DType::kFloat, scale_shape, rng),
                 b = Host::random(DType::kFloat, tail, rng);
      std::vector<bool> red(3);
      for (int k = a; k < 3; ++k) red[k] = true;
      Dims stat_shape = s;
      for (int k = a; k < 3; ++k) stat_shape[k] = 1;
      NodeGraph ng(op, layer ? 17 : 23);
      ng.in(x).in(sc);
      if (layer) ng.in(b);
      ng.out(DType::kFloat, s).attr_i("axis", axis).attr_f("epsilon", 1e-3f);
      if (layer) ng.out(DType::kFloat, stat_shape).out(DType::kFloat, stat_shape);
      const std::vector<Host> got = ng.run(gen());
      const Stats st = naive_stats(x, red);
      const int64_t t = element_count(tail);
      SCOPED_TRACE(std::string(op) + " axis " + std::to_string(axis) + " " + to_string(x.desc));
      expect_values(got[0], s, [&](int64_t i) {
        const int64_t k = kept_index(s, red, i);
        const double sv = bcast_at(sc, tail, i % t);
        if (!layer) return x.at(i) / std::sqrt(st.sq[k] + 1e-3) * sv;
        return (x.at(i) - st.mean[k]) / std::sqrt(st.var[k] + 1e-3) * sv + b.at(i % t);
      });
      if (!layer) continue;
      expect_values(got[1], stat_shape, [&](int64_t i) { return st.mean[i]; });
      expect_values(got[2], stat_shape, [&](int64_t i) { return 1 / std::sqrt(st.var[i] + 1e-3); });
    }
  }
}

TEST(CpuGenericNorm, MeanVarianceNormOverAnyAxes) {
  std::mt19937 rng(7);
  const std::vector<std::vector<int64_t>> cases = {{0, 2, 3}, {1}, {-1, 0}, {3, 1, 2}};
  for (size_t trial = 0; trial < cases.size(); ++trial) {
    const Dims s = random_shape(rng, 4, 5);
    const Host x = maybe_strided(Host::random(DType::kFloat, s, rng), static_cast<int>(trial));
    std::vector<bool> red(4);
    for (int64_t a : cases[trial]) red[a < 0 ? a + 4 : a] = true;
    NodeGraph ng("MeanVarianceNormalization", 13);
    ng.in(x).out(DType::kFloat, s);
    if (trial > 0) ng.attr_ints("axes", cases[trial]);  // the first case is the default
    const Stats st = naive_stats(x, red);
    SCOPED_TRACE(to_string(x.desc));
    expect_values(
        ng.run(gen())[0], s,
        [&](int64_t i) {
          const int64_t k = kept_index(s, red, i);
          return (x.at(i) - st.mean[k]) / (std::sqrt(st.var[k]) + 1e-9);
        },
        1e-4);
  }
}

TEST(CpuGenericNorm, LpNormEveryAxisAndZeroNormGivesZero) {
  std::mt19937 rng(8);
  for (int p : {1, 2}) {
    for (int axis = -3; axis < 3; ++axis) {
      const Dims s = random_shape(rng, 3, 6);
      Host dense = Host::random(DType::kFloat, s, rng);
      for (int64_t i = 0; i < element_count(s); ++i)
        if (coord(s, i, 0) == 0) dense.set(i, 0);  // some all-zero vectors along any axis
      const Host x = maybe_strided(dense, axis);
      std::vector<bool> red(3);
      red[axis < 0 ? axis + 3 : axis] = true;
      std::vector<double> norm(element_count(s));
      for (int64_t i = 0; i < element_count(s); ++i)
        norm[kept_index(s, red, i)] += p == 1 ? std::abs(x.at(i)) : x.at(i) * x.at(i);
      NodeGraph ng("LpNormalization", 1);
      ng.in(x).out(DType::kFloat, s).attr_i("axis", axis).attr_i("p", p);
      SCOPED_TRACE("p " + std::to_string(p) + " axis " + std::to_string(axis));
      expect_values(ng.run(gen())[0], s, [&](int64_t i) {
        const double n = norm[kept_index(s, red, i)];
        const double d = p == 1 ? n : std::sqrt(n);
        return d == 0 ? 0.0 : x.at(i) / d;
      });
    }
  }
}

// Rows and instances numerous enough to be split across the thread pool.
TEST(CpuGenericNorm, LargeInputsRunThreaded) {
  std::mt19937 rng(9);
  const Dims s{3, 37, 29, 31};
  const Host x = Host::random(DType::kFloat, s, rng).strided({0, 2, 3, 1});
  const Host sc = Host::random(DType::kFloat, {37}, rng),
             b = Host::random(DType::kFloat, {37}, rng);
  NodeGraph in("InstanceNormalization", 6);
  in.in(x).in(sc).in(b).out(DType::kFloat, s);
  const std::vector<bool> red{false, false, true, true};
  const Stats st = naive_stats(x, red);
  expect_values(
      in.run(gen())[0], s,
      [&](int64_t i) {
        const int64_t k = kept_index(s, red, i), ch = coord(s, i, 1);
        return sc.at(ch) * (x.at(i) - st.mean[k]) / std::sqrt(st.var[k] + 1e-5) + b.at(ch);
      },
      1e-4);
  const Host w = Host::random(DType::kFloat, {31}, rng);
  NodeGraph ln("LayerNormalization", 17);
  ln.in(x).in(w).out(DType::kFloat, s);
  const std::vector<bool> last{false, false, false, true};
  const Stats ls = naive_stats(x, last);
  expect_values(
      ln.run(gen())[0], s,
      [&](int64_t i) {
        const int64_t k = kept_index(s, last, i);
        return (x.at(i) - ls.mean[k]) / std::sqrt(ls.var[k] + 1e-5) * w.at(coord(s, i, 3));
      },
      1e-4);
}

TEST(CpuGenericNorm, RefusesIntegerInputsWithReason) {
  NodeGraph ng("LpNormalization", 1);
  ng.in(Host::dense(DType::kInt32, {2, 3})).out(DType::kInt32, {2, 3});
  const auto why = ng.supports(gen());
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("int32"), std::string::npos) << *why;
}

}  // namespace
}  // namespace geon::cpu::testing
