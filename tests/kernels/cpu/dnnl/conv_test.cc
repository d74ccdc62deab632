// cpu.dnnl Conv and geon.FusedConv against a naive direct convolution: seeded random 1-D, 2-D
// and 3-D cases with groups, dilations, strides and asymmetric pads, every auto_pad mode,
// depthwise layers, channels-last and odd strided views, constant (prepacked) and per-run
// weights, each FusedConv activation with and without the residual, and what supports() refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <thread>

#include "kernels/cpu/dnnl/conv_core.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/dnnl/conv_reference.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

struct Case {
  Dims x, w, out;
  int64_t group = 1;
  Dims strides, dilations, pads;  // pads: begins then ends
  bool bias = true;
};

int64_t pick(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// A random valid Conv over `spatial` dims.
Case random_case(std::mt19937& rng, int spatial, int64_t max_group = 3) {
  Case c;
  c.group = pick(rng, 1, max_group);
  const int64_t cg = pick(rng, 1, 3), mg = pick(rng, 1, 3), n = pick(rng, 1, 2);
  c.x = {n, cg * c.group};
  c.w = {mg * c.group, cg};
  c.out = {n, mg * c.group};
  c.pads.assign(2 * spatial, 0);
  for (int i = 0; i < spatial; ++i) {
    const int64_t k = pick(rng, 1, 3), d = pick(rng, 1, 2), s = pick(rng, 1, 3);
    const int64_t pb = pick(rng, 0, 2), pe = pick(rng, 0, 2);
    const int64_t eff = (k - 1) * d + 1;
    const int64_t in = pick(rng, std::max<int64_t>(1, eff - pb - pe), eff + 6);
    c.x.push_back(in);
    c.w.push_back(k);
    c.strides.push_back(s);
    c.dilations.push_back(d);
    c.pads[i] = pb;
    c.pads[i + spatial] = pe;
    c.out.push_back((in + pb + pe - eff) / s + 1);
  }
  c.bias = pick(rng, 0, 1) == 1;
  return c;
}

ConvRef ref_of(const Case& c) {
  return ConvRef{c.strides, c.dilations,
                 Dims(c.pads.begin(), c.pads.begin() + static_cast<int64_t>(c.strides.size())),
                 c.group, false};
}

// Runs a Conv node over these inputs (W constant or not) and checks it against the reference.
void expect_conv(const Case& c, const Host& x, const Host& w, const Host* b, bool const_w,
                 const std::string& auto_pad = "") {
  NodeGraph ng("Conv", 11);
  ng.in(x).in(w, const_w);
  if (b) ng.in(*b, true);
  ng.out(DType::kFloat, c.out).attr_i("group", c.group);
  ng.attr_ints("strides", c.strides).attr_ints("dilations", c.dilations);
  if (auto_pad.empty())
    ng.attr_ints("pads", c.pads);
  else
    ng.attr_s("auto_pad", auto_pad);
  ASSERT_EQ(ng.supports(dnnl_kernels()), std::nullopt);
  const auto got = ng.run(dnnl_kernels());
  const auto want = conv_reference(x, w, b, c.out, ref_of(c));
  expect_values(
      got[0], c.out, [&](int64_t i) { return want[i]; }, 1e-4);
}

void expect_random(const Case& c, std::mt19937& rng, bool const_w) {
  const Host x = Host::random(DType::kFloat, c.x, rng), w = Host::random(DType::kFloat, c.w, rng);
  const Host b = Host::random(DType::kFloat, {c.out[1]}, rng);
  expect_conv(c, x, w, c.bias ? &b : nullptr, const_w);
}

TEST(DnnlConv, Random2dCasesMatchDirectConvolution) {
  std::mt19937 rng(11);
  for (int t = 0; t < 40; ++t) {
    SCOPED_TRACE(t);
    expect_random(random_case(rng, 2), rng, t % 2 == 0);
  }
}

TEST(DnnlConv, Random1dAnd3dCasesMatchDirectConvolution) {
  std::mt19937 rng(12);
  for (int t = 0; t < 30; ++t) {
    SCOPED_TRACE(t);
    expect_random(random_case(rng, t % 2 == 0 ? 1 : 3), rng, t % 3 != 0);
  }
}

TEST(DnnlConv, WideLayersUseBlockedWeightsAndMatch) {
  // Channel counts past oneDNN's vector width, so the jit kernels and blocked weights are used.
  std::mt19937 rng(13);
  for (auto [cin, cout, len, k] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{16, 32, 9, 3},
                                   {35, 19, 7, 1},
                                   {64, 48, 6, 3}}) {
    Case c;
    c.x = {2, cin, len, len + 1};
    c.w = {cout, cin, k, k};
    c.out = {2, cout, len, len + 1};
    c.strides = {1, 1};
    c.dilations = {1, 1};
    c.pads.assign(4, k / 2);
    expect_random(c, rng, true);
    expect_random(c, rng, false);
  }
}

TEST(DnnlConv, DepthwiseWithAndWithoutMultiplier) {
  std::mt19937 rng(14);
  for (int64_t mult : {1, 2})
    for (int64_t s : {1, 2}) {
      Case c;
      const int64_t ch = 32, len = 11;
      c.group = ch;
      c.x = {1, ch, len, len};
      c.w = {ch * mult, 1, 3, 3};
      c.strides = {s, s};
      c.dilations = {1, 1};
      c.pads = {1, 1, 1, 1};
      c.out = {1, ch * mult, (len + 2 - 3) / s + 1, (len + 2 - 3) / s + 1};
      expect_random(c, rng, true);
    }
}

TEST(DnnlConv, AutoPadModesFollowTheSpec) {
  std::mt19937 rng(15);
  for (const std::string mode : {"SAME_UPPER", "SAME_LOWER", "VALID"})
    for (int t = 0; t < 6; ++t) {
      SCOPED_TRACE(mode + " " + std::to_string(t));
      Case c = random_case(rng, 2);
      for (int i = 0; i < 2; ++i) {
        const int64_t in = c.x[i + 2], s = c.strides[i];
        const int64_t eff = (c.w[i + 2] - 1) * c.dilations[i] + 1;
        int64_t out, begin = 0, total = 0;
        if (mode == "VALID") {
          if (in < eff) c.x[i + 2] = eff;  // VALID needs the window to fit
          out = (c.x[i + 2] - eff) / s + 1;
        } else {
          out = (in + s - 1) / s;
          total = std::max<int64_t>(0, (out - 1) * s + eff - in);
          begin = mode == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
        }
        c.out[i + 2] = out;
        c.pads[i] = begin;
        c.pads[i + 2] = total - begin;
      }
      const Host x = Host::random(DType::kFloat, c.x, rng);
      const Host w = Host::random(DType::kFloat, c.w, rng);
      expect_conv(c, x, w, nullptr, true, mode);
    }
}

TEST(DnnlConv, KernelShapeAttributeAndPadsLargerThanTheKernel) {
  std::mt19937 rng(16);
  Case c;
  c.x = {1, 2, 3, 4};
  c.w = {3, 2, 2, 2};
  c.strides = {1, 2};
  c.dilations = {1, 1};
  c.pads = {3, 0, 2, 4};  // windows entirely in the padding give the bias alone
  c.out = {1, 3, 3 + 5 - 2 + 1, (4 + 4 - 2) / 2 + 1};
  const Host x = Host::random(DType::kFloat, c.x, rng), w = Host::random(DType::kFloat, c.w, rng);
  const Host b = Host::random(DType::kFloat, {3}, rng);
  expect_conv(c, x, w, &b, true);
}

TEST(DnnlConv, StridedInputsAreReadThroughTheirViews) {
  std::mt19937 rng(17);
  for (int t = 0; t < 12; ++t) {
    SCOPED_TRACE(t);
    const Case c = random_case(rng, 2);
    const Host x = Host::random(DType::kFloat, c.x, rng), w = Host::random(DType::kFloat, c.w, rng);
    const Host b = Host::random(DType::kFloat, {c.out[1]}, rng);
    // Channels-last X (read in place), a reversed-order X, and a transposed W.
    const std::vector<int64_t> perm =
        t % 2 ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{3, 1, 2, 0};
    expect_conv(c, x.strided(perm), w.strided({1, 0, 3, 2}), &b, t % 3 == 0);
  }
}

TEST(DnnlConv, ChannelsLastViewsNeedNoLayoutCopy) {
  std::mt19937 rng(18);
  Case c;
  c.x = {1, 8, 6, 5};
  c.w = {4, 8, 3, 3};
  c.out = {1, 4, 6, 5};
  c.strides = {1, 1};
  c.dilations = {1, 1};
  c.pads = {1, 1, 1, 1};
  const Host x = Host::random(DType::kFloat, c.x, rng).strided({0, 2, 3, 1});
  const Host w = Host::random(DType::kFloat, c.w, rng);
  NodeGraph ng("Conv", 11);
  ng.in(x).in(w, true).out(DType::kFloat, c.out).attr_ints("pads", c.pads);
  const auto kernel = find_kernel(dnnl_kernels(), *ng.node)->create(ng.g, *ng.node);
  FakeContext ctx({x, w}, {DType::kFloat});
  const int64_t before = dnnl_conv_layout_copies();
  kernel->compute(ctx);  // dst is dense NCHW here: one copy out, none in
  EXPECT_EQ(dnnl_conv_layout_copies() - before, 1);
  const auto want = conv_reference(x, w, nullptr, c.out, ref_of(c));
  expect_values(
      ctx.result(0), c.out, [&](int64_t i) { return want[i]; }, 1e-4);
}

TEST(DnnlConv, OneKernelRunsOnSeveralThreadsAtOnce) {
  std::mt19937 rng(19);
  Case c;
  c.x = {2, 16, 9, 9};
  c.w = {24, 16, 3, 3};
  c.out = {2, 24, 9, 9};
  c.pads = {1, 1, 1, 1};
  const Host x = Host::random(DType::kFloat, c.x, rng), w = Host::random(DType::kFloat, c.w, rng);
  NodeGraph ng("Conv", 11);
  ng.in(x).in(w, true).out(DType::kFloat, c.out).attr_ints("pads", c.pads);
  const auto kernel = find_kernel(dnnl_kernels(), *ng.node)->create(ng.g, *ng.node);
  const auto want = conv_reference(x, w, nullptr, c.out, ConvRef{{}, {}, {1, 1}, 1, false});
  std::vector<std::thread> threads;
  std::vector<Host> results(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < 5; ++r) {
        FakeContext ctx({x, w}, {DType::kFloat});
        kernel->compute(ctx);
        results[t] = ctx.result(0);
      }
    });
  for (auto& th : threads) th.join();
  for (const Host& h : results)
    expect_values(
        h, c.out, [&](int64_t i) { return want[i]; }, 1e-4);
}

// ---- geon.FusedConv ----

double activate(const std::string& act, double v, double alpha, double beta) {
  if (act == "Relu") return std::max(v, 0.0);
  if (act == "LeakyRelu") return v < 0 ? alpha * v : v;
  if (act == "Clip") return std::min(std::max(v, alpha), beta);
  if (act == "Sigmoid") return 1 / (1 + std::exp(-v));
  if (act == "Tanh") return std::tanh(v);
  if (act == "HardSigmoid") return std::max(0.0, std::min(1.0, alpha * v + beta));
  if (act == "HardSwish") return v * std::max(0.0, std::min(1.0, v / 6 + 0.5));
  if (act == "Elu") return v < 0 ? alpha * (std::exp(v) - 1) : v;
  if (act == "Gelu") return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
  return v;
}

TEST(DnnlFusedConv, EachActivationWithAndWithoutResidual) {
  std::mt19937 rng(21);
  struct Act {
    std::string name;
    float alpha, beta;
  };
  for (const Act& a :
       {Act{"", 0, 0}, Act{"Relu", 0, 0}, Act{"LeakyRelu", 0.1f, 0}, Act{"Clip", -0.5f, 1.5f},
        Act{"Sigmoid", 0, 0}, Act{"Tanh", 0, 0}, Act{"HardSigmoid", 0.3f, 0.4f},
        Act{"HardSwish", 0, 0}, Act{"Elu", 0.7f, 0}, Act{"Gelu", 0, 0}})
    for (int residual = 0; residual < 2; ++residual) {
      SCOPED_TRACE(a.name + (residual ? " + Z" : ""));
      const Case c = random_case(rng, 2);
      const Host x = Host::random(DType::kFloat, c.x, rng);
      const Host w = Host::random(DType::kFloat, c.w, rng);
      const Host b = Host::random(DType::kFloat, {c.out[1]}, rng);
      // Z as a transposed view, so it is copied into dst before the sum post-op.
      const Host z = Host::random(DType::kFloat, c.out, rng).strided({0, 3, 2, 1});
      NodeGraph ng("FusedConv", 1);
      ng.node->domain = "geon";
      ng.in(x).in(w, true).in(b, true);
      if (residual) ng.in(z);
      ng.out(DType::kFloat, c.out).attr_i("group", c.group).attr_ints("pads", c.pads);
      ng.attr_ints("strides", c.strides).attr_ints("dilations", c.dilations);
      if (!a.name.empty()) {
        ng.attr_s("activation", a.name);
        ng.attr_f("activation_alpha", a.alpha).attr_f("activation_beta", a.beta);
      }
      ASSERT_EQ(ng.supports(dnnl_kernels()), std::nullopt);
      const auto got = ng.run(dnnl_kernels());
      const auto conv = conv_reference(x, w, &b, c.out, ref_of(c));
      expect_values(
          got[0], c.out,
          [&](int64_t i) {
            return activate(a.name, conv[i] + (residual ? z.at(i) : 0), a.alpha, a.beta);
          },
          2e-4);
    }
}

TEST(DnnlFusedConv, DefaultActivationParametersAreTheOnnxOnes) {
  std::mt19937 rng(22);
  for (const std::string act : {"LeakyRelu", "HardSigmoid", "Elu", "Clip"}) {
    SCOPED_TRACE(act);
    const Case c = random_case(rng, 1);
    const Host x = Host::random(DType::kFloat, c.x, rng), w = Host::random(DType::kFloat, c.w, rng);
    NodeGraph ng("FusedConv", 1);
    ng.node->domain = "geon";
    ng.in(x).in(w, true).omitted().out(DType::kFloat, c.out).attr_i("group", c.group);
    ng.attr_ints("pads", c.pads).attr_ints("strides", c.strides);
    ng.attr_ints("dilations", c.dilations).attr_s("activation", act);
    const auto got = ng.run(dnnl_kernels());
    const auto conv = conv_reference(x, w, nullptr, c.out, ref_of(c));
    const double alpha = act == "LeakyRelu"     ? 0.01
                         : act == "HardSigmoid" ? 0.2
                         : act == "Elu"         ? 1
                                                : -INFINITY;
    const double beta = act == "HardSigmoid" ? 0.5 : INFINITY;
    expect_values(
        got[0], c.out, [&](int64_t i) { return activate(act, conv[i], alpha, beta); }, 2e-4);
  }
}

TEST(DnnlFusedConv, ResidualSharingTheOutputMemoryIsAddedOnce) {
  // The executor may give Z's memory to Y (in_place_inputs): the sum post-op reads it there.
  std::mt19937 rng(23);
  const Case c = random_case(rng, 2);
  const Host x = Host::random(DType::kFloat, c.x, rng), w = Host::random(DType::kFloat, c.w, rng);
  const Host z = Host::random(DType::kFloat, c.out, rng);
  const std::vector<double> z0 = [&] {
    std::vector<double> v(element_count(c.out));
    for (size_t i = 0; i < v.size(); ++i) v[i] = z.at(static_cast<int64_t>(i));
    return v;
  }();
  NodeGraph ng("FusedConv", 1);
  ng.node->domain = "geon";
  ng.in(x).in(w, true).omitted().in(z).out(DType::kFloat, c.out).attr_i("group", c.group);
  ng.attr_ints("pads", c.pads).attr_ints("strides", c.strides).attr_ints("dilations", c.dilations);
  const auto kernel = find_kernel(dnnl_kernels(), *ng.node)->create(ng.g, *ng.node);
  ASSERT_EQ(kernel->in_place_inputs().size(), 1u);
  EXPECT_EQ(kernel->in_place_inputs()[0], 3);
  // A context whose output is Z's own buffer.
  struct InPlace : FakeContext {
    using FakeContext::FakeContext;
    TensorRef& output(int, const Dims&) override { return const_cast<TensorRef&>(input(3)); }
  } ctx({x, w, Host{}, z}, {DType::kFloat});
  kernel->compute(ctx);
  const auto conv = conv_reference(x, w, nullptr, c.out, ref_of(c));
  expect_values(
      z, c.out, [&](int64_t i) { return conv[i] + z0[i]; }, 1e-4);
}

TEST(DnnlConv, SupportsRefusesWhatOneDnnCannotRun) {
  std::mt19937 rng(24);
  {
    NodeGraph ng("Conv", 11);
    ng.in(Host::random(DType::kDouble, {1, 1, 4, 4}, rng));
    ng.in(Host::random(DType::kDouble, {1, 1, 3, 3}, rng), true).out(DType::kDouble);
    EXPECT_NE(ng.supports(dnnl_kernels()), std::nullopt);
  }
  {
    NodeGraph ng("Conv", 11);
    ng.in(Host::random(DType::kFloat, {1, 1, 2, 2, 2, 2}, rng));
    ng.in(Host::random(DType::kFloat, {1, 1, 1, 1, 1, 1}, rng), true).out(DType::kFloat);
    const auto why = ng.supports(dnnl_kernels());
    ASSERT_NE(why, std::nullopt);
    EXPECT_NE(why->find("rank 6"), std::string::npos) << *why;
  }
  {
    NodeGraph ng("FusedConv", 1);
    ng.node->domain = "geon";
    ng.in(Host::random(DType::kFloat, {1, 1, 4, 4}, rng));
    ng.in(Host::random(DType::kFloat, {1, 1, 3, 3}, rng), true).out(DType::kFloat);
    ng.attr_s("activation", "Softplus");
    const auto why = ng.supports(dnnl_kernels());
    ASSERT_NE(why, std::nullopt);
    EXPECT_NE(why->find("Softplus"), std::string::npos) << *why;
  }
}

}  // namespace
}  // namespace geon::cpu::testing
