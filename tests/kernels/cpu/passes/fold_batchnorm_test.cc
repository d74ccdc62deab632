// core/passes/fold_batchnorm: Conv -> BatchNormalization becomes the Conv alone with new
// constant weights equal to a naive conv followed by a naive batch norm (and through the
// executor when a set has a Conv kernel); ConvTranspose's grouped weight layout; the
// originals left for other readers; the near-misses (a second reader, a graph output, a
// non-constant weight or mean, training mode).
#include "core/passes/fold_batchnorm.h"

#include <gtest/gtest.h>

#include "core/runtime/kernel.h"
#include "tests/kernels/cpu/passes/pass_test_util.h"

namespace geon::cpu::testing {
namespace {

std::vector<float> values(const Graph& g, int v) {
  const TensorData& d = *g.value(v).data;
  std::vector<float> out(static_cast<size_t>(d.elements()));
  std::memcpy(out.data(), d.bytes(), out.size() * sizeof(float));
  return out;
}

// Direct 2-D convolution, stride 1, no padding: x (1, C, H, W), w (M, C/group, kh, kw).
std::vector<float> naive_conv(const std::vector<float>& x, const std::vector<float>& w,
                              const std::vector<float>& b, int64_t c, int64_t h, int64_t wd,
                              int64_t m, int64_t k, int64_t group) {
  const int64_t oh = h - k + 1, ow = wd - k + 1, cg = c / group, mg = m / group;
  std::vector<float> y(static_cast<size_t>(m * oh * ow));
  for (int64_t o = 0; o < m; ++o)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double s = b.empty() ? 0.0 : b[o];
        for (int64_t ci = 0; ci < cg; ++ci)
          for (int64_t p = 0; p < k; ++p)
            for (int64_t q = 0; q < k; ++q)
              s += double(x[((o / mg) * cg + ci) * h * wd + (i + p) * wd + j + q]) *
                   w[((o * cg + ci) * k + p) * k + q];
        y[(o * oh + i) * ow + j] = static_cast<float>(s);
      }
  return y;
}

struct ConvBn {
  Builder b;
  int x, w, bias, scale, shift, mean, var, conv, bn;
};

// x (1, 4, 6, 5) -> Conv(w (6, 2, 3, 3), bias, group 2) -> BatchNormalization(eps 1e-3).
ConvBn conv_bn(bool with_bias = true) {
  ConvBn c;
  Builder& b = c.b;
  c.x = b.input("x", DType::kFloat, {1, 4, 6, 5});
  c.w = b.constant("w", DType::kFloat, {6, 2, 3, 3}, random_doubles(108, 1));
  c.bias = with_bias ? b.constant("b", DType::kFloat, {6}, random_doubles(6, 2)) : -1;
  c.scale = b.constant("scale", DType::kFloat, {6}, random_doubles(6, 3, 0.5, 2));
  c.shift = b.constant("shift", DType::kFloat, {6}, random_doubles(6, 4));
  c.mean = b.constant("mean", DType::kFloat, {6}, random_doubles(6, 5));
  c.var = b.constant("var", DType::kFloat, {6}, random_doubles(6, 6, 0.1, 3));
  std::vector<int> in = {c.x, c.w};
  if (with_bias) in.push_back(c.bias);
  c.conv = b.node("Conv", in, DType::kFloat, {1, 6, 4, 3});
  b.attr_i("group", 2);
  c.bn = b.node("BatchNormalization", {c.conv, c.scale, c.shift, c.mean, c.var}, DType::kFloat,
                {1, 6, 4, 3});
  attr_f(b, "epsilon", 1e-3f);
  b.g.outputs = {c.bn};
  return c;
}

TEST(FoldBatchNorm, ConvWeightsAbsorbTheNormalisation) {
  for (const bool with_bias : {true, false}) {
    ConvBn c = conv_bn(with_bias);
    const Graph original = c.b.g;
    EXPECT_EQ(fold_batchnorm(c.b.g), 1);
    Graph& g = c.b.g;
    ASSERT_EQ(g.nodes.size(), 1u);
    const Node& conv = g.nodes[0];
    EXPECT_EQ(conv.op, "Conv");
    EXPECT_EQ(conv.outputs[0], c.bn);
    EXPECT_EQ(members(conv),
              (std::vector<std::string>{"Conv:Conv0", "BatchNormalization:BatchNormalization1"}));
    expect_consistent(g);
    // The originals are untouched; the Conv reads new constants.
    EXPECT_NE(conv.inputs[1], c.w);
    EXPECT_EQ(values(g, c.w), values(original, c.w));
    const auto xs = random_floats(120, 7);
    const auto wv = values(original, c.w);
    const auto bv = with_bias ? values(original, c.bias) : std::vector<float>{};
    std::vector<float> want = naive_conv(xs, wv, bv, 4, 6, 5, 6, 3, 2);
    const auto sc = values(g, c.scale), sh = values(g, c.shift), mu = values(g, c.mean),
               va = values(g, c.var);
    for (int64_t o = 0; o < 6; ++o)
      for (int64_t p = 0; p < 12; ++p) {
        float& y = want[o * 12 + p];
        y = (y - mu[o]) / std::sqrt(va[o] + 1e-3f) * sc[o] + sh[o];
      }
    const auto got =
        naive_conv(xs, values(g, conv.inputs[1]), values(g, conv.inputs[2]), 4, 6, 5, 6, 3, 2);
    expect_close(got, want, 1e-4, 1e-4);
    // Through the executor too, once a set has a Conv kernel.
    Node probe;
    probe.op = "Conv";
    probe.opset = 17;
    if (find_kernel(dnnl_kernels(), probe) || find_kernel(generic_kernels(), probe))
      expect_close(run_graph(g, {xs}).at(0), want, 1e-4, 1e-4);
  }
}

// ConvTranspose W is (Cin, Cout/group, k...): output channel (i / (Cin/group)) * Cout/group + j.
TEST(FoldBatchNorm, ConvTransposeScalesItsOutputChannels) {
  Builder b;
  const int x = b.input("x", DType::kFloat, {1, 4, 3, 3});
  const int w = b.constant("w", DType::kFloat, {4, 3, 2, 2}, random_doubles(48, 8));
  const auto sv = random_doubles(6, 9, 0.5, 2);
  const int scale = b.constant("scale", DType::kFloat, {6}, sv);
  const int shift = b.constant("shift", DType::kFloat, {6}, random_doubles(6, 10));
  const int mean = b.constant("mean", DType::kFloat, {6}, random_doubles(6, 11));
  const int var = b.constant("var", DType::kFloat, {6}, std::vector<double>(6, 1.0));
  const int t = b.node("ConvTranspose", {x, w}, DType::kFloat, {1, 6, 4, 4});
  b.attr_i("group", 2);
  b.g.outputs = {
      b.node("BatchNormalization", {t, scale, shift, mean, var}, DType::kFloat, {1, 6, 4, 4})};
  const Graph original = b.g;
  ASSERT_EQ(fold_batchnorm(b.g), 1);
  const Node& ct = b.g.nodes.at(0);
  const auto w0 = values(original, w), w1 = values(b.g, ct.inputs[1]);
  const auto b1 = values(b.g, ct.inputs[2]), mu = values(original, mean),
             sh = values(original, shift);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      const int64_t oc = (i / 2) * 3 + j;
      const double s = sv[oc] / std::sqrt(1.0 + 1e-5);
      for (int64_t e = 0; e < 4; ++e) {
        const size_t at = static_cast<size_t>((i * 3 + j) * 4 + e);
        EXPECT_NEAR(w1[at], w0[at] * s, 1e-5);
      }
      EXPECT_NEAR(b1[oc], -mu[oc] * s + sh[oc], 1e-5);
    }
}

TEST(FoldBatchNorm, NearMissesAreLeftAlone) {
  for (int variant = 0; variant < 5; ++variant) {
    SCOPED_TRACE(variant);
    ConvBn c = conv_bn();
    Graph& g = c.b.g;
    if (variant == 0) g.outputs.push_back(c.conv);  // the conv output is also a graph output
    if (variant == 1) g.outputs.push_back(c.b.node("Relu", {c.conv}, DType::kFloat, {1, 6, 4, 3}));
    if (variant == 2) g.value(c.w).overridable = true;  // a weight a feed may replace
    if (variant == 3) g.value(c.mean).kind = ValueKind::kInput;
    if (variant == 4) {
      Attribute training;
      training.i = 1;
      g.nodes[1].attrs["training_mode"] = training;
    }
    const size_t before = g.nodes.size();
    EXPECT_EQ(fold_batchnorm(g), 0);
    EXPECT_EQ(g.nodes.size(), before);
    EXPECT_EQ(count_op(g, "BatchNormalization"), 1);
  }
}

}  // namespace
}  // namespace geon::cpu::testing
