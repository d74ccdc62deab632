// cpu.generic NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss against a naive loop over
// (n, c, d): every reduction, with and without weights and ignore_index, ranks 2 to 5, int32 and
// int64 targets, double, float16 and bfloat16 data, strided inputs, the log_prob output, 'mean'
// over only ignored targets (NaN), and the errors for an out-of-range target, mismatched shapes
// and what supports() refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

struct Case {
  Host x, target, weight;
  bool weighted = false;
  std::optional<int64_t> ignore;
  std::string reduction = "mean";
};

struct Expected {
  std::vector<double> loss;  // one value, or one per target for 'none'
  std::vector<double> log_prob;
};

// The spec's definition, element by element, in double.
Expected reference(const Case& c, bool softmax) {
  const Dims xs = c.x.shape();
  const int64_t N = xs[0], C = xs[1], D = element_count(xs) / std::max<int64_t>(N * C, 1);
  std::vector<double> lp(static_cast<size_t>(N * C * D));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t d = 0; d < D; ++d) {
      double lse = 0;
      if (softmax) {
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t k = 0; k < C; ++k) m = std::max(m, c.x.at((n * C + k) * D + d));
        double s = 0;
        for (int64_t k = 0; k < C; ++k) s += std::exp(c.x.at((n * C + k) * D + d) - m);
        lse = m + std::log(s);
      }
      for (int64_t k = 0; k < C; ++k) lp[(n * C + k) * D + d] = c.x.at((n * C + k) * D + d) - lse;
    }
  Expected e;
  e.log_prob = lp;
  double total = 0, wsum = 0;
  for (int64_t i = 0; i < N * D; ++i) {
    const auto t = static_cast<int64_t>(c.target.at(i));
    double l = 0, w = 0;
    if (!(c.ignore && t == *c.ignore)) {
      w = c.weighted ? c.weight.at(t) : 1.0;
      l = -w * lp[((i / D) * C + t) * D + i % D];
    }
    e.loss.push_back(l);
    total += l;
    wsum += w;
  }
  if (c.reduction == "sum") e.loss = {total};
  if (c.reduction == "mean") e.loss = {total / wsum};
  return e;
}

// Random scores of rank r, targets in range (a few set to the ignore index when there is one).
Case random_case(std::mt19937& rng, DType t, DType target_t, int r, bool weighted,
                 std::optional<int64_t> ignore, const std::string& reduction) {
  Case c;
  const Dims xs = random_shape(rng, r, 4);
  c.x = Host::random(t, xs, rng, -3, 3);
  Dims ts = {xs[0]};
  ts.insert(ts.end(), xs.begin() + 2, xs.end());
  c.target = Host::dense(target_t, ts);
  for (int64_t i = 0; i < element_count(ts); ++i) {
    int64_t v = static_cast<int64_t>(rng() % static_cast<uint64_t>(xs[1]));
    if (ignore && rng() % 4 == 0) v = *ignore;
    c.target.set(i, static_cast<double>(v));
  }
  c.weighted = weighted;
  if (weighted) c.weight = Host::random(t, {xs[1]}, rng, 0.1, 2);
  c.ignore = ignore;
  c.reduction = reduction;
  return c;
}

std::vector<Host> run_case(const Case& c, bool softmax, bool log_prob, int opset) {
  NodeGraph ng(softmax ? "SoftmaxCrossEntropyLoss" : "NegativeLogLikelihoodLoss", opset);
  ng.in(c.x).in(c.target);
  if (c.weighted) ng.in(c.weight);
  ng.out(c.x.desc.dtype);
  if (log_prob) ng.out(c.x.desc.dtype);
  ng.attr_s("reduction", c.reduction);
  if (c.ignore) ng.attr_i("ignore_index", *c.ignore);
  return ng.run(gen());
}

void expect_case(const Case& c, bool softmax, bool log_prob, int opset, double tol = 1e-5) {
  const std::vector<Host> got = run_case(c, softmax, log_prob, opset);
  const Expected want = reference(c, softmax);
  const Dims loss_shape = c.reduction == "none" ? c.target.shape() : Dims{};
  expect_values(
      got[0], loss_shape, [&](int64_t i) { return want.loss[i]; }, tol);
  if (log_prob)
    expect_values(
        got[1], c.x.shape(), [&](int64_t i) { return want.log_prob[i]; }, tol);
}

TEST(CpuGenericLoss, EveryReductionWeightAndIgnoreIndexOverRanks) {
  std::mt19937 rng(21);
  for (bool softmax : {false, true})
    for (const char* red : {"none", "sum", "mean"})
      for (bool weighted : {false, true})
        for (int ii = 0; ii < 3; ++ii) {
          // No ignore_index, a negative one, and one above the class count.
          const std::optional<int64_t> ignore =
              ii == 0 ? std::nullopt : std::optional<int64_t>(ii == 1 ? -3 : 17);
          for (int r = 2; r <= 5; ++r) {
            const DType tt = r % 2 ? DType::kInt32 : DType::kInt64;
            const Case c = random_case(rng, DType::kFloat, tt, r, weighted, ignore, red);
            expect_case(c, softmax, softmax && r % 2 == 0, softmax ? 13 : 22);
          }
        }
}

TEST(CpuGenericLoss, IgnoreIndexInsideTheClassRangeIsSkipped) {
  // ignore_index 1 is a real class here: its targets weigh nothing, the mean skips them.
  std::mt19937 rng(22);
  for (bool softmax : {false, true})
    for (bool weighted : {false, true}) {
      const Case c = random_case(rng, DType::kFloat, DType::kInt64, 3, weighted, 1, "mean");
      expect_case(c, softmax, false, 13);
    }
}

TEST(CpuGenericLoss, DoubleAndHalfData) {
  std::mt19937 rng(23);
  for (DType t : {DType::kDouble, DType::kFloat16, DType::kBFloat16})
    for (bool softmax : {false, true})
      for (const char* red : {"none", "mean"}) {
        const Case c = random_case(rng, t, DType::kInt64, 3, true, -1, red);
        const double tol = t == DType::kDouble ? 1e-12 : t == DType::kFloat16 ? 2e-3 : 1e-2;
        expect_case(c, softmax, softmax, softmax ? 13 : 22, tol);
      }
}

TEST(CpuGenericLoss, StridedScoresTargetsAndWeights) {
  std::mt19937 rng(24);
  for (bool softmax : {false, true})
    for (int trial = 0; trial < 4; ++trial) {
      Case c = random_case(rng, DType::kFloat, DType::kInt64, 4, true, 0, "none");
      c.x = c.x.strided({3, 1, 0, 2});
      c.target = c.target.strided({2, 0, 1});
      if (trial % 2) c.reduction = "sum";
      expect_case(c, softmax, softmax, 13);
    }
}

TEST(CpuGenericLoss, MeanOverOnlyIgnoredTargetsIsNaN) {
  Case c;
  c.x = Host::of(DType::kFloat, {2, 3}, {0.1, 0.2, 0.3, 0.4, 0.5, 0.6});
  c.target = Host::of(DType::kInt64, {2}, {4, 4});
  c.ignore = 4;
  for (bool softmax : {false, true}) {
    const std::vector<Host> got = run_case(c, softmax, false, 13);
    EXPECT_TRUE(std::isnan(got[0].at(0))) << got[0].at(0);
  }
}

TEST(CpuGenericLoss, EmptyBatchGivesAnEmptyLoss) {
  Case c;
  c.x = Host::dense(DType::kFloat, {0, 3, 2});
  c.target = Host::dense(DType::kInt64, {0, 2});
  c.reduction = "none";
  for (bool softmax : {false, true}) {
    const std::vector<Host> got = run_case(c, softmax, softmax, 13);
    EXPECT_EQ(got[0].shape(), (Dims{0, 2}));
  }
}

TEST(CpuGenericLoss, OutOfRangeTargetIsAnErrorNamingIt) {
  for (bool softmax : {false, true}) {
    const char* op = softmax ? "SoftmaxCrossEntropyLoss" : "NegativeLogLikelihoodLoss";
    for (int64_t bad : {3, -1}) {
      NodeGraph ng(op, 13);
      ng.in(Host::dense(DType::kFloat, {2, 3, 2}))
          .in(Host::of(DType::kInt64, {2, 2}, {0, 1, 2, static_cast<double>(bad)}))
          .out(DType::kFloat)
          .attr_i("ignore_index", 7);
      const std::string cls = "class " + std::to_string(bad);
      expect_error(ng, gen(), ErrorCode::kInvalidArgument,
                   {op, cls.c_str(), "(1, 1)", "[0, 3)", "ignore_index is 7"});
    }
  }
}

TEST(CpuGenericLoss, MismatchedShapesAreErrors) {
  NodeGraph target("NegativeLogLikelihoodLoss", 13);
  target.in(Host::dense(DType::kFloat, {2, 3, 4}))
      .in(Host::dense(DType::kInt64, {2, 5}))
      .out(DType::kFloat);
  expect_error(target, gen(), ErrorCode::kInvalidArgument,
               {"input 1 (target) has shape (2, 5)", "needs (2, 4)"});
  NodeGraph weight("SoftmaxCrossEntropyLoss", 13);
  weight.in(Host::dense(DType::kFloat, {2, 3}))
      .in(Host::dense(DType::kInt64, {2}))
      .in(Host::dense(DType::kFloat, {4}))
      .out(DType::kFloat);
  expect_error(weight, gen(), ErrorCode::kInvalidArgument,
               {"input 2 (weights) has shape (4)", "it must be (3)"});
  NodeGraph rank1("NegativeLogLikelihoodLoss", 13);
  rank1.in(Host::dense(DType::kFloat, {3})).in(Host::dense(DType::kInt64, {})).out(DType::kFloat);
  expect_error(rank1, gen(), ErrorCode::kInvalidArgument, {"has shape (3)", "(N, C)"});
}

TEST(CpuGenericLoss, SupportsRefusesBadReductionAndTargetDtype) {
  NodeGraph red("NegativeLogLikelihoodLoss", 13);
  red.in(Host::dense(DType::kFloat, {2, 3})).in(Host::dense(DType::kInt64, {2}));
  red.out(DType::kFloat).attr_s("reduction", "max");
  ASSERT_TRUE(red.supports(gen()).has_value());
  EXPECT_NE(red.supports(gen())->find("'reduction' is 'max'"), std::string::npos);
  NodeGraph tt("SoftmaxCrossEntropyLoss", 13);
  tt.in(Host::dense(DType::kFloat, {2, 3})).in(Host::dense(DType::kInt8, {2})).out(DType::kFloat);
  ASSERT_TRUE(tt.supports(gen()).has_value());
  EXPECT_NE(tt.supports(gen())->find("int32 or int64"), std::string::npos);
  NodeGraph xt("SoftmaxCrossEntropyLoss", 13);
  xt.in(Host::dense(DType::kInt32, {2, 3})).in(Host::dense(DType::kInt64, {2})).out(DType::kInt32);
  EXPECT_TRUE(xt.supports(gen()).has_value());
}

}  // namespace
}  // namespace geon::cpu::testing
