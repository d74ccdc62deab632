// cpu.generic's activation rows (Selu, Celu, Gelu both forms, HardSigmoid, HardSwish, Mish,
// Swish, ThresholdedRelu, Shrink) against the ONNX formulas: attributes and their defaults,
// strided and float16 inputs, integer Shrink, and the attribute values refused with a reason.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

struct Act {
  const char* op;
  int opset;
  std::vector<std::pair<std::string, float>> attrs;
  std::string approximate;  // Gelu only
  std::function<double(double)> f;
};

double clamp01(double v) { return std::max(0.0, std::min(1.0, v)); }
double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

std::vector<Act> acts() {
  const double sa = 1.67326319217681884765625, sg = 1.05070102214813232421875;
  return {
      {"Selu", 6, {}, "", [=](double x) { return sg * (x > 0 ? x : sa * (std::exp(x) - 1)); }},
      {"Selu",
       6,
       {{"alpha", 2.f}, {"gamma", 0.5f}},
       "",
       [](double x) { return 0.5 * (x > 0 ? x : 2 * (std::exp(x) - 1)); }},
      {"Celu",
       12,
       {{"alpha", 0.5f}},
       "",
       [](double x) { return std::max(0.0, x) + std::min(0.0, 0.5 * (std::exp(x / 0.5) - 1)); }},
      {"Gelu", 20, {}, "", [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }},
      {"Gelu",
       20,
       {},
       "tanh",
       [](double x) {
         return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
       }},
      {"HardSigmoid", 6, {}, "", [](double x) { return clamp01(0.2 * x + 0.5); }},
      {"HardSigmoid",
       6,
       {{"alpha", 0.5f}, {"beta", 0.25f}},
       "",
       [](double x) { return clamp01(0.5 * x + 0.25); }},
      {"HardSwish", 14, {}, "", [](double x) { return x * clamp01(x / 6 + 0.5); }},
      {"Mish", 18, {}, "", [](double x) { return x * std::tanh(std::log1p(std::exp(x))); }},
      {"Swish", 24, {}, "", [](double x) { return x * sigmoid(x); }},
      {"Swish", 24, {{"alpha", 1.702f}}, "", [](double x) { return x * sigmoid(1.702 * x); }},
      {"ThresholdedRelu", 10, {}, "", [](double x) { return x > 1 ? x : 0; }},
      {"ThresholdedRelu", 10, {{"alpha", 0.25f}}, "", [](double x) { return x > 0.25 ? x : 0; }},
      {"Shrink", 9, {}, "", [](double x) { return x < -0.5  ? x
                                                  : x > 0.5 ? x
                                                            : 0; }},
      {"Shrink",
       9,
       {{"bias", 1.5f}, {"lambd", 1.5f}},
       "",
       [](double x) { return x < -1.5  ? x + 1.5
                             : x > 1.5 ? x - 1.5
                                       : 0; }},
  };
}

TEST(CpuGenericActivations, MatchTheOnnxFormulasOnStridedFloatAndFloat16) {
  std::mt19937 rng(17);
  for (const Act& a : acts()) {
    for (DType t : {DType::kFloat, DType::kFloat16}) {
      Host x = Host::random(t, {4, 3, 5}, rng, -4, 4).strided({2, 0, 1});
      NodeGraph ng(a.op, a.opset);
      ng.in(x).out(t, {4, 3, 5});
      for (const auto& [name, v] : a.attrs) ng.attr_f(name, v);
      if (!a.approximate.empty()) ng.attr_s("approximate", a.approximate);
      ASSERT_EQ(ng.supports(gen()), std::nullopt) << a.op;
      SCOPED_TRACE(std::string(a.op) + " " + std::string(dtype_name(t)));
      expect_values(
          ng.run(gen())[0], {4, 3, 5}, [&](int64_t i) { return a.f(x.at(i)); },
          t == DType::kFloat ? 2e-6 : 2e-3);
    }
  }
}

TEST(CpuGenericActivations, ShrinkOnIntegers) {
  NodeGraph ng("Shrink", 9);
  const Host x = Host::of(DType::kInt8, {6}, {-7, -2, -1, 0, 2, 7});
  ng.in(x).out(DType::kInt8, {6}).attr_f("lambd", 1.5f).attr_f("bias", 2.0f);
  const std::vector<double> want = {-5, 0, 0, 0, 0, 5};
  expect_values(ng.run(gen())[0], {6}, [&](int64_t i) { return want[i]; });
}

TEST(CpuGenericActivations, UnknownGeluApproximationAndCeluAlphaZeroAreRefused) {
  NodeGraph gelu("Gelu", 20);
  gelu.in(Host::dense(DType::kFloat, {2})).out(DType::kFloat, {2}).attr_s("approximate", "fast");
  ASSERT_TRUE(gelu.supports(gen()).has_value());
  EXPECT_NE(gelu.supports(gen())->find("fast"), std::string::npos);
  NodeGraph celu("Celu", 12);
  celu.in(Host::dense(DType::kFloat, {2})).out(DType::kFloat, {2}).attr_f("alpha", 0.0f);
  EXPECT_TRUE(celu.supports(gen()).has_value());
}

}  // namespace
}  // namespace geon::cpu::testing
