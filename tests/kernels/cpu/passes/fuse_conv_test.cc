// core/passes/fuse_conv: Conv -> per-channel bias Add -> residual Add -> activation becomes one
// geon.FusedConv laid out as fused.md says (bias folded into B, Z as input 3, the activation's
// parameters); checked on a stand-in set with a FusedConv row (the real kernel is cpu.dnnl's,
// compared through the executor when present), with the near-misses it must leave alone.
#include "core/passes/fuse_conv.h"

#include <gtest/gtest.h>

#include "core/passes/activation.h"
#include "core/passes/graph_edit.h"
#include "tests/kernels/cpu/passes/pass_test_util.h"

namespace geon::cpu::testing {
namespace {

std::optional<std::string> supports_all(const Graph&, const Node&) { return std::nullopt; }
std::unique_ptr<Kernel> no_kernel(const Graph&, const Node&) { return nullptr; }
const KernelEntry kFusedConvRow[] = {{"geon", "FusedConv", 1, supports_all, no_kernel}};
const KernelSet& stand_in() {
  static const KernelSet set{"test.fused_conv", Device{DeviceKind::kHost, 0}, kFusedConvRow};
  return set;
}

struct ConvChain {
  Builder b;
  int x, w, bias, z, conv, out;
};

// x (1, 3, 5, 5) -> Conv(w (4, 3, 3, 3), b) -> Add(c (1, 4, 1, 1)) -> Add(z) -> act.
ConvChain chain(const std::string& act, bool channel_bias = true) {
  ConvChain c;
  Builder& b = c.b;
  c.x = b.input("x", DType::kFloat, {1, 3, 5, 5});
  c.z = b.input("z", DType::kFloat, {1, 4, 3, 3});
  c.w = b.constant("w", DType::kFloat, {4, 3, 3, 3}, random_doubles(108, 1));
  c.bias = b.constant("b", DType::kFloat, {4}, {1, 2, 3, 4});
  c.conv = b.node("Conv", {c.x, c.w, c.bias}, DType::kFloat, {1, 4, 3, 3});
  attr_ints(b, "kernel_shape", {3, 3});
  int v = c.conv;
  if (channel_bias) {
    const int cb = b.constant("cb", DType::kFloat, {1, 4, 1, 1}, {10, 20, 30, 40});
    v = b.node("Add", {v, cb}, DType::kFloat, {1, 4, 3, 3});
  }
  v = b.node("Add", {c.z, v}, DType::kFloat, {1, 4, 3, 3});
  if (act == "Clip") {
    const int lo = b.constant("lo", DType::kFloat, {}, {-1});
    const int hi = b.constant("hi", DType::kFloat, {}, {6});
    v = b.node("Clip", {v, lo, hi}, DType::kFloat, {1, 4, 3, 3});
  } else if (!act.empty()) {
    v = b.node(act, {v}, DType::kFloat, {1, 4, 3, 3});
    if (act == "LeakyRelu") attr_f(b, "alpha", 0.3f);
  }
  c.out = v;
  b.g.outputs = {v};
  return c;
}

TEST(FuseConv, BiasResidualAndActivationBecomeOneFusedConv) {
  ConvChain c = chain("Relu");
  const std::vector<const KernelSet*> sets = {&stand_in()};
  EXPECT_EQ(fuse_conv(c.b.g, sets), 1);
  Graph& g = c.b.g;
  ASSERT_EQ(g.nodes.size(), 1u);
  const Node& f = g.nodes[0];
  EXPECT_EQ(f.domain, "geon");
  EXPECT_EQ(f.op, "FusedConv");
  EXPECT_EQ(f.outputs, std::vector<int>{c.out});
  ASSERT_EQ(f.inputs.size(), 4u);
  EXPECT_EQ(f.inputs[0], c.x);
  EXPECT_EQ(f.inputs[1], c.w);
  EXPECT_EQ(f.inputs[3], c.z);
  // B + the per-channel constant, as a new constant; the original b is untouched.
  const TensorData& b = *g.value(f.inputs[2]).data;
  std::vector<float> bv(4);
  std::memcpy(bv.data(), b.bytes(), 16);
  EXPECT_EQ(bv, (std::vector<float>{11, 22, 33, 44}));
  EXPECT_EQ(f.attr("activation")->s, "Relu");
  EXPECT_EQ(f.attr("kernel_shape")->ints, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(members(f),
            (std::vector<std::string>{"Conv:Conv0", "Add:Add1", "Add:Add2", "Relu:Relu3"}));
  expect_consistent(g);
}

TEST(FuseConv, ActivationParametersAreCarried) {
  const std::vector<const KernelSet*> sets = {&stand_in()};
  ConvChain clip = chain("Clip", false);
  ASSERT_EQ(fuse_conv(clip.b.g, sets), 1);
  const passes::Activation a = passes::read_activation(clip.b.g.nodes.at(0));
  EXPECT_EQ(a.op, "Clip");
  EXPECT_EQ(a.alpha, -1.0f);
  EXPECT_EQ(a.beta, 6.0f);
  ConvChain leaky = chain("LeakyRelu", false);
  ASSERT_EQ(fuse_conv(leaky.b.g, sets), 1);
  EXPECT_FLOAT_EQ(passes::read_activation(leaky.b.g.nodes.at(0)).alpha, 0.3f);
  // No activation: the residual alone is worth a fused node.
  ConvChain plain = chain("", false);
  ASSERT_EQ(fuse_conv(plain.b.g, sets), 1);
  EXPECT_EQ(passes::read_activation(plain.b.g.nodes.at(0)).op, "");
}

TEST(FuseConv, NearMissesAreLeftAlone) {
  const std::vector<const KernelSet*> sets = {&stand_in()};
  for (int variant = 0; variant < 5; ++variant) {
    SCOPED_TRACE(variant);
    ConvChain c = chain("Relu");
    Graph& g = c.b.g;
    if (variant == 0) g.outputs.push_back(c.conv);
    if (variant == 1) g.outputs.push_back(c.b.node("Neg", {c.conv}, DType::kFloat, {1, 4, 3, 3}));
    if (variant == 2) g.value(c.w).overridable = true;
    if (variant == 3) {
      // A broadcast addend that is not a constant: neither a bias nor a residual.
      const int s = c.b.input("s", DType::kFloat, {1, 4, 1, 1});
      g.nodes[1].inputs[1] = s;
    }
    const size_t before = g.nodes.size();
    EXPECT_EQ(fuse_conv(g, variant == 4 ? std::vector<const KernelSet*>{&generic_kernels()} : sets),
              0);
    EXPECT_EQ(g.nodes.size(), before);
  }
}

// With the real sets: the same values as the unfused graph, once cpu.dnnl runs FusedConv.
TEST(FuseConv, RealKernelsGiveTheUnfusedValues) {
  Node probe;
  probe.domain = "geon";
  probe.op = "FusedConv";
  probe.opset = 1;
  if (!find_kernel(dnnl_kernels(), probe)) GTEST_SKIP() << "no geon.FusedConv kernel yet";
  for (const char* act : {"Relu", "Clip", "LeakyRelu", "Sigmoid", "HardSwish", ""}) {
    SCOPED_TRACE(act);
    ConvChain c = chain(act);
    const Graph original = c.b.g;
    EXPECT_EQ(fuse_conv(c.b.g, cpu_sets()), 1);
    const auto xs = random_floats(75, 2), zs = random_floats(36, 3);
    expect_close(run_graph(c.b.g, {xs, zs}).at(0), run_graph(original, {xs, zs}).at(0), 1e-4, 1e-4);
  }
}

// Gelu with approximate="tanh" is its own activation (GeluTanh): a FusedConv kernel that knows
// only the erf Gelu refuses it rather than compute the wrong curve, and then the Conv still
// takes its bias and residual, the Gelu staying a node of its own.
TEST(FuseConv, TanhGeluKeepsTheUnfusedValues) {
  Node probe;
  probe.domain = "geon";
  probe.op = "FusedConv";
  probe.opset = 1;
  if (!find_kernel(dnnl_kernels(), probe)) GTEST_SKIP() << "no geon.FusedConv kernel yet";
  ConvChain c = chain("Gelu");
  c.b.g.nodes.back().opset = 20;
  set_attr(c.b, "approximate", passes::string_attr("tanh"));
  const Graph original = c.b.g;
  EXPECT_EQ(fuse_conv(c.b.g, cpu_sets()), 1);
  const Node* f = find_op(c.b.g, "FusedConv");
  ASSERT_NE(f, nullptr);
  const bool absorbed = passes::read_activation(*f).op == "GeluTanh";
  EXPECT_EQ(count_op(c.b.g, "Gelu"), absorbed ? 0 : 1);
  expect_consistent(c.b.g);
  const auto xs = random_floats(75, 4), zs = random_floats(36, 5);
  expect_close(run_graph(c.b.g, {xs, zs}).at(0), run_graph(original, {xs, zs}).at(0), 1e-4, 1e-4);
}

}  // namespace
}  // namespace geon::cpu::testing
