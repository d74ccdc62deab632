// The activation ops of the engine table (selu, celu, gelu, hard_sigmoid, hard_swish, mish,
// swish, thresholded_relu, shrink) against the ONNX formulas written out naively in double,
// with their alpha/beta knobs, in float and double; relu keeps NaN, as ONNX's max(0, x) does.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "core/desc/desc.h"
#include "core/engine/engine.h"

namespace geon {
namespace {

template <class T>
std::vector<T> apply1(const char* op, const std::vector<T>& x, DType t, OpParams p) {
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<T> out(x.size());
  const TensorDesc d = row_major(t, std::vector<int64_t>{n});
  const DType in[] = {t};
  ExprBuilder b(in);
  b.apply(op, {b.input(0)}, {}, p);
  const ConstOperand src(d, x.data());
  evaluate(b.build(), {d, out.data()}, std::span<const ConstOperand>(&src, 1));
  return out;
}

struct Case {
  const char* op;
  OpParams params;
  std::function<double(double)> want;
};

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
double clamp01(double v) { return std::max(0.0, std::min(1.0, v)); }

std::vector<Case> cases() {
  return {
      {"selu",
       {1.6732632, 1.0507010},
       [](double x) { return 1.0507010 * (x > 0 ? x : 1.6732632 * (std::exp(x) - 1)); }},
      {"selu", {2.0, 3.0}, [](double x) { return 3 * (x > 0 ? x : 2 * (std::exp(x) - 1)); }},
      {"celu", {1.0}, [](double x) { return std::max(0.0, x) + std::min(0.0, std::exp(x) - 1); }},
      {"celu",
       {2.5},
       [](double x) { return std::max(0.0, x) + std::min(0.0, 2.5 * (std::exp(x / 2.5) - 1)); }},
      {"gelu", {}, [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }},
      {"gelu_tanh",
       {},
       [](double x) {
         return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
       }},
      {"hard_sigmoid", {0.2, 0.5}, [](double x) { return clamp01(0.2 * x + 0.5); }},
      {"hard_sigmoid", {0.7, -0.1}, [](double x) { return clamp01(0.7 * x - 0.1); }},
      {"hard_swish", {}, [](double x) { return x * clamp01(x / 6 + 0.5); }},
      {"mish", {}, [](double x) { return x * std::tanh(std::log1p(std::exp(x))); }},
      {"swish", {1.0}, [](double x) { return x * sigmoid(x); }},
      {"swish", {0.3}, [](double x) { return x * sigmoid(0.3 * x); }},
      {"thresholded_relu", {1.0}, [](double x) { return x > 1 ? x : 0; }},
      {"thresholded_relu", {-0.5}, [](double x) { return x > -0.5 ? x : 0; }},
      {"shrink", {0.5, 0.0}, [](double x) { return x < -0.5 ? x : (x > 0.5 ? x : 0); }},
      {"shrink",
       {1.5, 0.25},
       [](double x) { return x < -1.5 ? x + 0.25 : (x > 1.5 ? x - 0.25 : 0); }},
  };
}

std::vector<double> samples() {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-7, 7);
  std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, -3, 3, 30, -30};
  for (int i = 0; i < 200; ++i) v.push_back(u(rng));
  return v;
}

TEST(EngineActivations, FloatAndDoubleMatchTheOnnxFormulas) {
  const std::vector<double> xs = samples();
  for (const Case& c : cases()) {
    std::vector<float> xf(xs.begin(), xs.end());
    const std::vector<float> yf = apply1<float>(c.op, xf, DType::kFloat, c.params);
    const std::vector<double> yd = apply1<double>(c.op, xs, DType::kDouble, c.params);
    for (size_t i = 0; i < xs.size(); ++i) {
      const double wf = c.want(static_cast<double>(xf[i])), wd = c.want(xs[i]);
      EXPECT_NEAR(yf[i], wf, 2e-6 * std::max(1.0, std::abs(wf))) << c.op << " x=" << xf[i];
      EXPECT_NEAR(yd[i], wd, 1e-12 * std::max(1.0, std::abs(wd))) << c.op << " x=" << xs[i];
    }
  }
}

TEST(EngineActivations, ShrinkOnIntegersComparesAgainstTheFloatThreshold) {
  const std::vector<int32_t> x = {-5, -2, -1, 0, 1, 2, 5};
  // lambd 1.5, bias 1: |x| <= 1.5 gives 0, others move towards 0 by 1.
  EXPECT_EQ(apply1<int32_t>("shrink", x, DType::kInt32, {1.5, 1.0}),
            (std::vector<int32_t>{-4, -1, 0, 0, 0, 1, 4}));
}

TEST(EngineActivations, MishAndSwishStayFiniteForLargeMagnitudes) {
  const std::vector<float> x = {-1000.f, 1000.f, -88.f, 88.f};
  for (const char* op : {"mish", "swish"}) {
    const std::vector<float> y = apply1<float>(op, x, DType::kFloat, {1.0});
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_TRUE(std::isfinite(y[i])) << op << " x=" << x[i];
      EXPECT_NEAR(y[i], x[i] > 0 ? x[i] : 0.f, 1e-3) << op << " x=" << x[i];
    }
  }
}

TEST(EngineActivations, ReluKeepsNaNAndTakesInfinitiesAsMaxDoes) {
  const float nan = std::numeric_limits<float>::quiet_NaN(),
              inf = std::numeric_limits<float>::infinity();
  const std::vector<float> y =
      apply1<float>("relu", {nan, -inf, inf, -2.f, -0.f, 3.f}, DType::kFloat, {});
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(std::vector<float>(y.begin() + 1, y.end()), (std::vector<float>{0, inf, 0, 0, 3}));
  const std::vector<double> yd = apply1<double>("relu", {double(nan), 1.5}, DType::kDouble, {});
  EXPECT_TRUE(std::isnan(yd[0]));
  EXPECT_EQ(yd[1], 1.5);
}

}  // namespace
}  // namespace geon
