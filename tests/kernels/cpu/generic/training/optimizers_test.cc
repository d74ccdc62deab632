// cpu.generic Adagrad, Adam and Momentum (standard and nesterov) of ai.onnx.preview.training
// against the spec's update formulas written out per element: several tensors of different
// shapes per node, the first update (T = 0) and later ones, float and double, strided state,
// and the errors for mismatched shapes, a non-scalar R and a wrong input count.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

constexpr const char* kTraining = "ai.onnx.preview.training";

// Float, as ONNX attributes are: the reference then uses exactly the kernel's values.
struct Attrs {
  float alpha = 0.9f, beta = 0.999f, epsilon = 1e-6f, norm = 0.01f, norm_post = 0.02f, decay = 0.1f;
  std::string mode = "standard";
};

// New values of (X, state...) for one element, from the spec's formulas.
std::vector<double> updated(const std::string& op, const Attrs& a, double r, int64_t t,
                            const std::vector<double>& in) {
  const double alpha = a.alpha, beta = a.beta, eps = a.epsilon, norm = a.norm;
  const double x = in[0], g = in[1] + norm * in[0];
  if (op == "Adagrad") {
    const double rr = r / (1 + static_cast<double>(t) * double(a.decay));
    const double h = in[2] + g * g;
    return {x - rr * g / (std::sqrt(h) + eps), h};
  }
  if (op == "Adam") {
    const double v = alpha * in[2] + (1 - alpha) * g;
    const double h = beta * in[3] + (1 - beta) * g * g;
    const double td = static_cast<double>(t);
    const double rr = t > 0 ? r * std::sqrt(1 - std::pow(beta, td)) / (1 - std::pow(alpha, td)) : r;
    return {(1 - double(a.norm_post)) * (x - rr * v / (std::sqrt(h) + eps)), v, h};
  }
  const double v = alpha * in[2] + (t > 0 ? beta : 1.0) * g;
  return {a.mode == "nesterov" ? x - r * (g + alpha * v) : x - r * v, v};
}

int groups_of(const std::string& op) { return op == "Adam" ? 4 : 3; }

// A node optimising one tensor per shape; state inputs positive where they are squares.
void expect_optimizer(const std::string& op, const Attrs& a, DType t, int64_t step,
                      const std::vector<Dims>& shapes, std::mt19937& rng, bool strided,
                      bool set_attrs = true) {
  SCOPED_TRACE(op + " " + a.mode + " " + std::string(dtype_name(t)) + " T=" + std::to_string(step));
  const int groups = groups_of(op);
  const int n = static_cast<int>(shapes.size());
  NodeGraph ng(op, 1);
  ng.node->domain = kTraining;
  const double r = 0.05 + static_cast<double>(rng() % 10) / 100;
  ng.in(Host::of(t, {}, {r})).in(Host::of(DType::kInt64, {}, {static_cast<double>(step)}));
  std::vector<std::vector<Host>> blocks(static_cast<size_t>(groups));
  for (int b = 0; b < groups; ++b)
    for (int k = 0; k < n; ++k) {
      const bool square = (op == "Adagrad" && b == 2) || (op == "Adam" && b == 3);
      Host h = Host::random(t, shapes[k], rng, square ? 0 : -2, 2);
      if (strided && shapes[k].size() == 2) h = h.strided({1, 0});
      blocks[b].push_back(h);
      ng.in(h);
    }
  const int outs = groups - 1;
  for (int o = 0; o < outs; ++o)
    for (int k = 0; k < n; ++k) ng.out(t);
  if (!set_attrs) {
    // The spec's defaults apply.
  } else if (op == "Adagrad") {
    ng.attr_f("decay_factor", a.decay);
    ng.attr_f("epsilon", a.epsilon);
    ng.attr_f("norm_coefficient", a.norm);
  } else if (op == "Adam") {
    ng.attr_f("alpha", a.alpha);
    ng.attr_f("beta", a.beta);
    ng.attr_f("epsilon", a.epsilon);
    ng.attr_f("norm_coefficient", a.norm);
    ng.attr_f("norm_coefficient_post", a.norm_post);
  } else {
    ng.attr_f("alpha", a.alpha);
    ng.attr_f("beta", a.beta);
    ng.attr_f("norm_coefficient", a.norm);
    ng.attr_s("mode", a.mode);
  }
  const std::vector<Host> got = ng.run(gen());
  ASSERT_EQ(got.size(), static_cast<size_t>(outs * n));
  const double rr = Host::of(t, {}, {r}).at(0);
  for (int k = 0; k < n; ++k) {
    std::vector<std::vector<double>> want(static_cast<size_t>(outs));
    for (int64_t i = 0; i < element_count(shapes[k]); ++i) {
      std::vector<double> in;
      for (int b = 0; b < groups; ++b) in.push_back(blocks[b][k].at(i));
      const std::vector<double> u = updated(op, a, rr, step, in);
      for (int o = 0; o < outs; ++o) want[o].push_back(u[o]);
    }
    for (int o = 0; o < outs; ++o)
      expect_values(
          got[o * n + k], shapes[k], [&](int64_t i) { return want[o][i]; },
          t == DType::kDouble ? 1e-12 : 1e-5);
  }
}

TEST(CpuGenericOptimizers, EachOptimizerOverSeveralTensorsAndSteps) {
  std::mt19937 rng(31);
  const std::vector<Dims> shapes = {{3}, {2, 5}, {}, {2, 1, 3}};
  for (const char* op : {"Adagrad", "Adam", "Momentum"})
    for (DType t : {DType::kFloat, DType::kDouble})
      for (int64_t step : {0, 1, 7}) {
        Attrs a;
        expect_optimizer(op, a, t, step, shapes, rng, false);
        if (std::string(op) == "Momentum") {
          a.mode = "nesterov";
          expect_optimizer(op, a, t, step, shapes, rng, false);
        }
      }
}

TEST(CpuGenericOptimizers, OneTensorAndStridedState) {
  std::mt19937 rng(32);
  for (const char* op : {"Adagrad", "Adam", "Momentum"}) {
    expect_optimizer(op, Attrs{}, DType::kFloat, 3, {{4, 3}}, rng, true);
    expect_optimizer(op, Attrs{}, DType::kFloat, 2, {{2, 3}, {5, 2}}, rng, true);
  }
}

TEST(CpuGenericOptimizers, AdagradAndAdamDefaultsAreTheSpecs) {
  std::mt19937 rng(33);
  Attrs adam;  // alpha 0.9, beta 0.999, epsilon 1e-6, no regularisation
  adam.norm = adam.norm_post = adam.decay = 0;
  adam.epsilon = 1e-6f;
  expect_optimizer("Adam", adam, DType::kDouble, 2, {{3}}, rng, false, false);
  Attrs adagrad;  // decay_factor 0, epsilon 1e-6, norm_coefficient 0
  adagrad.decay = adagrad.norm = 0;
  adagrad.epsilon = 1e-6f;
  expect_optimizer("Adagrad", adagrad, DType::kDouble, 2, {{3}}, rng, false, false);
}

TEST(CpuGenericOptimizers, MismatchedStateShapeIsAnError) {
  NodeGraph ng("Adagrad", 1);
  ng.node->domain = kTraining;
  ng.in(Host::of(DType::kFloat, {}, {0.1})).in(Host::of(DType::kInt64, {}, {0}));
  ng.in(Host::dense(DType::kFloat, {2, 3}))
      .in(Host::dense(DType::kFloat, {2, 3}))
      .in(Host::dense(DType::kFloat, {3, 2}));
  ng.out(DType::kFloat).out(DType::kFloat);
  expect_error(ng, gen(), ErrorCode::kInvalidArgument,
               {"Adagrad", "input 4 has shape (3, 2)", "(input 2) has shape (2, 3)"});
}

TEST(CpuGenericOptimizers, NonScalarRateOrStepIsAnError) {
  for (int which : {0, 1}) {
    NodeGraph ng("Momentum", 1);
    ng.node->domain = kTraining;
    ng.in(which == 0 ? Host::dense(DType::kFloat, {2}) : Host::of(DType::kFloat, {}, {0.1}));
    ng.in(which == 1 ? Host::dense(DType::kInt64, {3}) : Host::of(DType::kInt64, {}, {0}));
    for (int i = 0; i < 3; ++i) ng.in(Host::dense(DType::kFloat, {2}));
    ng.out(DType::kFloat).out(DType::kFloat);
    ng.attr_f("alpha", 0.9f)
        .attr_f("beta", 0.1f)
        .attr_f("norm_coefficient", 0)
        .attr_s("mode", "standard");
    expect_error(ng, gen(), ErrorCode::kInvalidArgument,
                 {which == 0 ? "input 0 (R) must hold one value" : "input 1 (T) must hold one"});
  }
}

TEST(CpuGenericOptimizers, SupportsRefusesBadArityAndMomentumWithoutItsAttributes) {
  NodeGraph arity("Adam", 1);
  arity.node->domain = kTraining;
  arity.in(Host::of(DType::kFloat, {}, {0.1})).in(Host::of(DType::kInt64, {}, {0}));
  for (int i = 0; i < 5; ++i) arity.in(Host::dense(DType::kFloat, {2}));
  arity.out(DType::kFloat);
  ASSERT_TRUE(arity.supports(gen()).has_value());
  EXPECT_NE(arity.supports(gen())->find("got 7 inputs"), std::string::npos);
  NodeGraph mode("Momentum", 1);
  mode.node->domain = kTraining;
  mode.in(Host::of(DType::kFloat, {}, {0.1})).in(Host::of(DType::kInt64, {}, {0}));
  for (int i = 0; i < 3; ++i) mode.in(Host::dense(DType::kFloat, {2}));
  mode.out(DType::kFloat).out(DType::kFloat);
  mode.attr_f("alpha", 0.9f).attr_f("beta", 0.1f).attr_f("norm_coefficient", 0);
  ASSERT_TRUE(mode.supports(gen()).has_value());
  EXPECT_NE(mode.supports(gen())->find("'mode' is required"), std::string::npos);
  mode.attr_s("mode", "heavy");
  EXPECT_NE(mode.supports(gen())->find("'mode' is 'heavy'"), std::string::npos);
}

}  // namespace
}  // namespace geon::cpu::testing
