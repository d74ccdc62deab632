// geon.FusedConv and geon.FusedMatMul on cpu.dnnl keep NaN through the activations oneDNN
// turns it into a number in (Relu, LeakyRelu of slope 0, Clip, HardSigmoid; nan_guard.h): a
// NaN or infinity in X or A, in the constant weights, in the bias or in the residual, against
// naive loops in double whose activations keep NaN as ONNX's max and min do. And the check
// finds a NaN or infinity at any element of a view: dense in either order, sparse, reversed.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/dnnl/nan_guard.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/dnnl/conv_reference.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

struct Act {
  std::string name;
  float alpha, beta;
};
const Act kActs[] = {
    {"Relu", 0, 0}, {"LeakyRelu", 0, 0}, {"Clip", 0, 6}, {"HardSigmoid", 0.2f, 0.5f}};

double activate(const Act& a, double v) {
  if (std::isnan(v)) return v;
  if (a.name == "Relu") return v > 0 ? v : 0.0;
  if (a.name == "LeakyRelu") return v < 0 ? a.alpha * v : v;  // 0 * -inf: NaN, as ONNX's formula
  if (a.name == "Clip") return std::min(std::max(v, double{a.alpha}), double{a.beta});
  return std::max(0.0, std::min(1.0, a.alpha * v + a.beta));  // HardSigmoid
}

// NaN where the reference is NaN, the same infinity, else within a relative 1e-4.
void expect_same(const Host& got, const std::vector<double>& want) {
  ASSERT_EQ(static_cast<size_t>(element_count(got.shape())), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const double g = got.at(static_cast<int64_t>(i)), w = want[i];
    if (std::isnan(w) || std::isinf(w))
      ASSERT_TRUE(std::isnan(w) ? std::isnan(g) : g == w)
          << "at " << i << ": " << g << " for " << w;
    else
      ASSERT_NEAR(g, w, 1e-4 * std::max(1.0, std::abs(w))) << "at " << i;
  }
}

enum class Where { kX, kW, kBias, kZ };
const char* name(Where w) {
  return w == Where::kX ? "X" : w == Where::kW ? "W" : w == Where::kBias ? "bias" : "Z";
}

// `bad` at a third of the way into the input `where` names.
void plant(Where where, double bad, Host& x, Host& w, Host& b, Host& z) {
  Host& t = where == Where::kX ? x : where == Where::kW ? w : where == Where::kBias ? b : z;
  t.set(element_count(t.shape()) / 3, bad);
}

// The node made a geon-domain one with the activation `a`.
void fused_node(NodeGraph& ng, const Act& a) {
  ng.node->domain = "geon";
  ng.attr_s("activation", a.name);
  ng.attr_f("activation_alpha", a.alpha).attr_f("activation_beta", a.beta);
}

TEST(DnnlNanGuard, MaxAbsFindsTheLargestMagnitudeOfAnyViewAndInfinityForNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> buf(200, 1.0f);
  // (2, 3, 4) views of buf at offset 10: row-major, channels-last order (strides 12, 1, 3),
  // every third float (sparser than twice its elements), the first dim reversed, and 40 floats
  // in a row (the vector loop's 32 and a tail).
  struct View {
    Dims shape, strides;
    int64_t offset;
  };
  for (const View& v : {View{{2, 3, 4}, {12, 4, 1}, 10}, View{{2, 3, 4}, {12, 1, 3}, 10},
                        View{{2, 3, 4}, {36, 12, 3}, 10}, View{{2, 3, 4}, {-12, 4, 1}, 22},
                        View{{1, 1, 40}, {40, 40, 1}, 10}}) {
    TensorDesc d = row_major(DType::kFloat, v.shape);
    d.strides = v.strides;
    d.offset = v.offset;
    const ConstOperand view(d, buf.data());
    EXPECT_EQ(max_abs(&view), 1.0f);
    for (int64_t i = 0; i < v.shape[0]; ++i)
      for (int64_t j = 0; j < v.shape[1]; ++j)
        for (int64_t k = 0; k < v.shape[2]; ++k) {
          const int64_t at = v.offset + i * v.strides[0] + j * v.strides[1] + k * v.strides[2];
          for (const float bad : {nan, -nan, inf, -inf}) {
            buf[at] = bad;
            EXPECT_EQ(max_abs(&view), inf) << "element " << i << "," << j << "," << k;
          }
          for (const float big : {-3e38f, 2.5f, -1.5f, 1e-3f}) {
            buf[at] = big;
            EXPECT_EQ(max_abs(&view), std::max(1.0f, std::fabs(big)))
                << "element " << i << "," << j << "," << k;
          }
          buf[at] = 1.0f;
        }
    buf[9] = nan;  // just before the view, and far after it
    buf[199] = nan;
    EXPECT_EQ(max_abs(&view), 1.0f);
    buf[9] = buf[199] = 1.0f;
  }
  EXPECT_EQ(max_abs(nullptr), 0.0f);
}

TEST(DnnlNanGuard, SumsStayFiniteOnlyFarBelowFloatsRange) {
  EXPECT_TRUE(native::sums_stay_finite(4608, 100.0f, 10.0f, 1e3f));
  EXPECT_TRUE(native::sums_stay_finite(0, std::numeric_limits<float>::max(), 1.0f));
  EXPECT_FALSE(native::sums_stay_finite(2, 3e38f, 2.0f));
  EXPECT_FALSE(native::sums_stay_finite(4608, 1e20f, 1e10f));
  EXPECT_FALSE(native::sums_stay_finite(1, 1.0f, 1.0f, std::numeric_limits<float>::infinity()));
  // 0 · inf is NaN: an infinite X with all-zero weights still gives NaN outputs.
  EXPECT_FALSE(native::sums_stay_finite(9, std::numeric_limits<float>::infinity(), 0.0f));
}

TEST(DnnlNanGuard, FusedConvKeepsNaNFromAnyInputThroughEachActivation) {
  std::mt19937 rng(41);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // A small layer, and one of the size oneDNN's Winograd takes on AVX-512 (64 channels, 3x3).
  for (const int64_t c : {8, 64})
    for (const Act& a : kActs)
      for (const Where where : {Where::kX, Where::kW, Where::kBias, Where::kZ})
        for (const double bad : {nan, inf}) {
          SCOPED_TRACE(a.name + " with " + std::to_string(bad) + " in " + name(where) +
                       ", channels " + std::to_string(c));
          const Dims xs{1, c, 10, 10}, ws{c, c, 3, 3}, out{1, c, 10, 10};
          Host x = Host::random(DType::kFloat, xs, rng), w = Host::random(DType::kFloat, ws, rng);
          Host b = Host::random(DType::kFloat, {c}, rng), z = Host::random(DType::kFloat, out, rng);
          plant(where, bad, x, w, b, z);
          NodeGraph ng("FusedConv", 1);
          fused_node(ng, a);
          ng.in(x).in(w, true).in(b, true).in(z);
          ng.out(DType::kFloat, out).attr_ints("pads", {1, 1, 1, 1});
          ASSERT_EQ(ng.supports(dnnl_kernels()), std::nullopt);
          const auto got = ng.run(dnnl_kernels());
          std::vector<double> want =
              conv_reference(x, w, &b, out, ConvRef{{}, {}, {1, 1}, 1, false});
          for (size_t i = 0; i < want.size(); ++i)
            want[i] = activate(a, want[i] + z.at(static_cast<int64_t>(i)));
          expect_same(got[0], want);
        }
}

TEST(DnnlNanGuard, FusedMatMulKeepsNaNFromAnyInputThroughEachActivation) {
  std::mt19937 rng(42);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // geon's small product, and one large enough for oneDNN's; B constant (packed) or per run.
  for (const auto& [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{5, 24, 40}, {64, 256, 512}})
    for (const bool constant_b : {true, false})
      for (const Act& a : kActs)
        for (const Where where : {Where::kX, Where::kW, Where::kBias, Where::kZ}) {
          SCOPED_TRACE(a.name + " with NaN in " + std::string(name(where)) + ", " +
                       std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) +
                       (constant_b ? ", B constant" : ", B per run"));
          Host x = Host::random(DType::kFloat, {m, k}, rng);
          Host w = Host::random(DType::kFloat, {k, n}, rng);
          Host b = Host::random(DType::kFloat, {n}, rng),
               z = Host::random(DType::kFloat, {m, n}, rng);
          plant(where, nan, x, w, b, z);
          NodeGraph ng("FusedMatMul", 1);
          fused_node(ng, a);
          ng.in(x).in(w, constant_b).in(b, true).in(z).out(DType::kFloat, {m, n});
          const auto got = ng.run(dnnl_kernels());
          // The product from plain copies (Host::at per multiply-add is slow at this size).
          std::vector<double> xv(static_cast<size_t>(m * k)), wv(static_cast<size_t>(k * n));
          for (int64_t i = 0; i < m * k; ++i) xv[i] = x.at(i);
          for (int64_t i = 0; i < k * n; ++i) wv[i] = w.at(i);
          std::vector<double> want(static_cast<size_t>(m * n), 0.0);
          for (int64_t r = 0; r < m; ++r)
            for (int64_t q = 0; q < k; ++q)
              for (int64_t col = 0; col < n; ++col)
                want[r * n + col] += xv[r * k + q] * wv[q * n + col];
          for (int64_t i = 0; i < m * n; ++i)
            want[i] = activate(a, want[i] + b.at(i % n) + z.at(i));
          expect_same(got[0], want);
        }
}

}  // namespace
}  // namespace geon::cpu::testing
