// core/passes/fuse_pointwise_depthwise: a 1x1 Conv -> Clip -> depthwise Conv -> Clip (after
// fuse_conv), with or without a 1x1 projection and a residual Add after it, becomes one
// geon.FusedPointwiseDepthwise laid out as its header says, checked on a stand-in set; the
// near-misses it must leave alone; and, with the real sets where cpu.dnnl takes the node (no
// other set has a row for it), the fused graph's values equal the unfused graph's.
#include "core/passes/fuse_pointwise_depthwise.h"

#include <gtest/gtest.h>

#include "core/passes/activation.h"
#include "core/passes/fuse_conv.h"
#include "core/passes/graph_edit.h"
#include "core/passes/select_layouts.h"
#include "kernels/cpu/native/cpu_isa.h"
#include "tests/kernels/cpu/passes/pass_test_util.h"

namespace geon::cpu::testing {
namespace {

std::optional<std::string> supports_all(const Graph&, const Node&) { return std::nullopt; }
std::optional<std::string> supports_none(const Graph&, const Node&) {
  return std::string("not here");
}
std::unique_ptr<Kernel> no_kernel(const Graph&, const Node&) { return nullptr; }
const KernelEntry kRows[] = {{"geon", "FusedConv", 1, supports_all, no_kernel},
                             {"geon", "FusedPointwiseDepthwise", 1, supports_all, no_kernel}};
const KernelEntry kRefusing[] = {{"geon", "FusedConv", 1, supports_all, no_kernel},
                                 {"geon", "FusedPointwiseDepthwise", 1, supports_none, no_kernel}};
const KernelSet& stand_in() {
  static const KernelSet set{"test.pointwise_depthwise", Device{DeviceKind::kHost, 0}, kRows};
  return set;
}
const KernelSet& refusing() {
  static const KernelSet set{"test.refusing", Device{DeviceKind::kHost, 0}, kRefusing};
  return set;
}

struct Block {
  Builder b;
  int x, w1, b1, w2, b2, pw, mid, dw, out;
  int w3 = -1, b3 = -1, pj = -1, sum = -1;  // the projection and its residual Add
};

int clip(Builder& b, int v, const Dims& shape) {
  const int lo = b.constant("lo" + std::to_string(v), DType::kFloat, {}, {0});
  const int hi = b.constant("hi" + std::to_string(v), DType::kFloat, {}, {6});
  return b.node("Clip", {v, lo, hi}, DType::kFloat, shape);
}

// x (n, c, h, w) -> Conv 1x1 (m) -> Clip -> depthwise Conv 3x3 (stride s, pads 1) -> Clip;
// `wrapped`: a Relu before and after, so that the block's X and Y are intermediates that
// select_layouts can mark channels-last.
Block block(int64_t n, int64_t c, int64_t m, int64_t h, int64_t w, int64_t s, bool wrapped = false,
            bool wrap_out = true) {
  Block k;
  Builder& b = k.b;
  const int64_t oh = (h - 1) / s + 1, ow = (w - 1) / s + 1;
  k.x = b.input("x", DType::kFloat, {n, c, h, w});
  if (wrapped) k.x = b.node("Relu", {k.x}, DType::kFloat, {n, c, h, w});
  k.w1 = b.constant("w1", DType::kFloat, {m, c, 1, 1},
                    random_doubles(static_cast<size_t>(m * c), 1, -0.5, 0.5));
  k.b1 = b.constant("b1", DType::kFloat, {m}, random_doubles(static_cast<size_t>(m), 2));
  k.w2 = b.constant("w2", DType::kFloat, {m, 1, 3, 3},
                    random_doubles(static_cast<size_t>(m * 9), 3, -0.5, 0.5));
  k.b2 = b.constant("b2", DType::kFloat, {m}, random_doubles(static_cast<size_t>(m), 4));
  k.pw = b.node("Conv", {k.x, k.w1, k.b1}, DType::kFloat, {n, m, h, w});
  attr_ints(b, "kernel_shape", {1, 1});
  k.mid = clip(b, k.pw, {n, m, h, w});
  k.dw = b.node("Conv", {k.mid, k.w2, k.b2}, DType::kFloat, {n, m, oh, ow});
  attr_ints(b, "kernel_shape", {3, 3});
  attr_ints(b, "strides", {s, s});
  attr_ints(b, "pads", {1, 1, 1, 1});
  set_attr(b, "group", passes::int_attr(m));
  k.out = clip(b, k.dw, {n, m, oh, ow});
  b.g.outputs = {wrapped && wrap_out ? b.node("Relu", {k.out}, DType::kFloat, {n, m, oh, ow})
                                     : k.out};
  return k;
}

// block() (stride 1) then a 1x1 projection back to c channels and the residual Add of x.
Block projected(int64_t n, int64_t c, int64_t m, int64_t h, int64_t w, bool wrapped = false) {
  Block k = block(n, c, m, h, w, 1, wrapped, false);
  Builder& b = k.b;
  k.w3 = b.constant("w3", DType::kFloat, {c, m, 1, 1},
                    random_doubles(static_cast<size_t>(c * m), 6, -0.3, 0.3));
  k.b3 = b.constant("b3", DType::kFloat, {c}, random_doubles(static_cast<size_t>(c), 7));
  k.pj = b.node("Conv", {k.out, k.w3, k.b3}, DType::kFloat, {n, c, h, w});
  attr_ints(b, "kernel_shape", {1, 1});
  k.sum = b.node("Add", {k.pj, k.x}, DType::kFloat, {n, c, h, w});
  // A Mul rather than a Relu after it, which fuse_conv would take as the projection's activation.
  const int two = b.constant("two", DType::kFloat, {}, {2});
  b.g.outputs = {wrapped ? b.node("Mul", {k.sum, two}, DType::kFloat, {n, c, h, w}) : k.sum};
  return k;
}

TEST(FusePointwiseDepthwise, OneByOneThenDepthwiseBecomeOneNode) {
  Block k = block(1, 3, 8, 6, 6, 2);
  const std::vector<const KernelSet*> sets = {&stand_in()};
  Graph& g = k.b.g;
  ASSERT_EQ(fuse_conv(g, sets), 2);
  EXPECT_EQ(fuse_pointwise_depthwise(g, sets), 1);
  ASSERT_EQ(g.nodes.size(), 1u);
  expect_consistent(g);
  const Node& f = g.nodes[0];
  EXPECT_EQ(f.domain, "geon");
  EXPECT_EQ(f.op, "FusedPointwiseDepthwise");
  EXPECT_EQ(f.inputs, (std::vector<int>{k.x, k.w1, k.b1, k.w2, k.b2}));
  EXPECT_EQ(f.outputs, std::vector<int>{k.out});
  EXPECT_EQ(f.attr("activation")->s, "Clip");
  EXPECT_EQ(f.attr("dw_activation")->s, "Clip");
  EXPECT_EQ(f.attr("dw_strides")->ints, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(f.attr("dw_group")->i, 8);
  EXPECT_EQ(f.attr("kernel_shape")->ints, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(members(f),
            (std::vector<std::string>{"Conv:Conv0", "Clip:Clip1", "Conv:Conv2", "Clip:Clip3"}));
  // Each side reads back as the FusedConv it was.
  const Node pw = pointwise_side(f), dw = depthwise_side(f);
  EXPECT_EQ(pw.inputs, (std::vector<int>{k.x, k.w1, k.b1}));
  EXPECT_EQ(dw.inputs, (std::vector<int>{-1, k.w2, k.b2}));
  EXPECT_EQ(passes::read_activation(pw).op, "Clip");
  EXPECT_EQ(passes::read_activation(dw).beta, 6.0f);
  EXPECT_EQ(dw.attr("pads")->ints, (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(pw.attr("strides"), nullptr);
  EXPECT_EQ(dw.attr("members"), nullptr);
}

TEST(FusePointwiseDepthwise, TakesTheProjectionAndItsResidual) {
  Block k = projected(1, 4, 16, 5, 5);
  const std::vector<const KernelSet*> sets = {&stand_in()};
  Graph& g = k.b.g;
  ASSERT_EQ(fuse_conv(g, sets), 3);
  EXPECT_EQ(fuse_pointwise_depthwise(g, sets), 1);
  ASSERT_EQ(g.nodes.size(), 1u);
  expect_consistent(g);
  const Node& f = g.nodes[0];
  EXPECT_EQ(f.inputs, (std::vector<int>{k.x, k.w1, k.b1, k.w2, k.b2, k.w3, k.b3, k.x}));
  EXPECT_EQ(f.outputs, std::vector<int>{k.sum});
  EXPECT_EQ(members(f), (std::vector<std::string>{"Conv:Conv0", "Clip:Clip1", "Conv:Conv2",
                                                  "Clip:Clip3", "Conv:Conv4", "Add:Add5"}));
  const Node pj = projection_side(f);
  EXPECT_EQ(pj.inputs, (std::vector<int>{-1, k.w3, k.b3, k.x}));
  EXPECT_EQ(pj.attr("kernel_shape")->ints, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(passes::read_activation(pj).op, "");
  EXPECT_EQ(depthwise_side(f).attr("kernel_shape")->ints, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(pointwise_side(f).attr("pj_kernel_shape"), nullptr);
}

// A set that takes the node only without a projection: the pair fuses, the projection stays.
std::optional<std::string> supports_pairs(const Graph&, const Node& n) {
  if (n.inputs.size() > 5) return std::string("no projection here");
  return std::nullopt;
}
const KernelEntry kPairRows[] = {{"geon", "FusedConv", 1, supports_all, no_kernel},
                                 {"geon", "FusedPointwiseDepthwise", 1, supports_pairs, no_kernel}};

TEST(FusePointwiseDepthwise, FusesThePairWhenTheProjectionIsRefused) {
  static const KernelSet pairs{"test.pairs", Device{DeviceKind::kHost, 0}, kPairRows};
  Block k = projected(1, 4, 16, 5, 5);
  const std::vector<const KernelSet*> sets = {&pairs};
  Graph& g = k.b.g;
  fuse_conv(g, sets);
  EXPECT_EQ(fuse_pointwise_depthwise(g, sets), 1);
  ASSERT_EQ(g.nodes.size(), 2u);
  expect_consistent(g);
  EXPECT_EQ(g.nodes[0].op, "FusedPointwiseDepthwise");
  EXPECT_EQ(g.nodes[0].inputs.size(), 5u);
  EXPECT_EQ(g.nodes[1].op, "FusedConv");
}

TEST(FusePointwiseDepthwise, NearMissesAreLeftAlone) {
  for (int variant = 0; variant < 7; ++variant) {
    SCOPED_TRACE(variant);
    Block k = block(1, 3, 8, 6, 6, 1);
    Graph& g = k.b.g;
    std::vector<const KernelSet*> sets = {&stand_in()};
    if (variant == 0) g.outputs.push_back(k.mid);  // the intermediate is a graph output
    if (variant == 1) g.outputs.push_back(k.b.node("Neg", {k.mid}, DType::kFloat, {1, 8, 6, 6}));
    if (variant == 2) g.value(k.w1).overridable = true;
    if (variant == 3) g.nodes[2].attrs["group"] = passes::int_attr(1);  // not depthwise
    if (variant == 4) {                                                 // a 3x3 first side
      k.w1 = k.b.constant("w1b", DType::kFloat, {8, 3, 3, 3}, random_doubles(216, 9));
      g.nodes[0].inputs[1] = k.w1;
    }
    if (variant == 5) sets = {&refusing()};
    if (variant == 6) sets = {&generic_kernels()};  // no row for the fused node
    const std::vector<const KernelSet*> conv_sets = {&stand_in()};
    fuse_conv(g, conv_sets);
    const size_t before = g.nodes.size();
    EXPECT_EQ(fuse_pointwise_depthwise(g, sets), 0);
    EXPECT_EQ(g.nodes.size(), before);
  }
}

// With the real sets: cpu.dnnl takes the node where the native block is preferred and the
// intermediate reaches 1 MiB an image (96 channels at 56x56); values as unfused, with X and Y
// row-major (a graph input and output: the kernel's copies) and channels-last (in place).
TEST(FusePointwiseDepthwise, RealKernelsGiveTheUnfusedValues) {
  if (!native_fused_block_preferred())
    GTEST_SKIP() << "cpu.dnnl takes the fused node only where the native AVX2 kernels are "
                    "allowed (AVX2 + FMA, GEON_NATIVE_KERNELS not 0)";
  for (bool wrapped : {false, true})
    for (int64_t s : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << "stride " << s << " wrapped " << wrapped);
      Block k = block(2, 16, 96, 56, 55, s, wrapped);
      const Graph original = k.b.g;
      fuse_conv(k.b.g, cpu_sets());
      ASSERT_EQ(fuse_pointwise_depthwise(k.b.g, cpu_sets()), 1);
      if (wrapped) {
        EXPECT_EQ(select_layouts(k.b.g), 2);
        const Node* f = find_op(k.b.g, "FusedPointwiseDepthwise");
        ASSERT_NE(f, nullptr);
        EXPECT_FALSE(k.b.g.value(f->inputs[0]).layout.empty());
        EXPECT_FALSE(k.b.g.value(f->outputs[0]).layout.empty());
      }
      const auto xs = random_floats(2 * 16 * 56 * 55, 5);
      expect_close(run_graph(k.b.g, {xs}).at(0), run_graph(original, {xs}).at(0), 1e-4, 1e-4);
    }
  // With the projection and the residual of X (a MobileNetV2 block at 24 -> 144 channels).
  for (bool wrapped : {false, true}) {
    SCOPED_TRACE(::testing::Message() << "projected, wrapped " << wrapped);
    Block k = projected(1, 24, 144, 56, 56, wrapped);
    const Graph original = k.b.g;
    fuse_conv(k.b.g, cpu_sets());
    ASSERT_EQ(fuse_pointwise_depthwise(k.b.g, cpu_sets()), 1);
    const Node* f = find_op(k.b.g, "FusedPointwiseDepthwise");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->inputs.size(), 8u);
    if (wrapped) {
      select_layouts(k.b.g);
      EXPECT_FALSE(k.b.g.value(f->inputs[7]).layout.empty());
      EXPECT_FALSE(k.b.g.value(f->outputs[0]).layout.empty());
    }
    const auto xs = random_floats(24 * 56 * 56, 8);
    expect_close(run_graph(k.b.g, {xs}).at(0), run_graph(original, {xs}).at(0), 1e-4, 1e-4);
  }
  // Below 1 MiB an image (96 channels at 28x28): left as two nodes.
  Block small = block(1, 16, 96, 28, 28, 1);
  fuse_conv(small.b.g, cpu_sets());
  EXPECT_EQ(fuse_pointwise_depthwise(small.b.g, cpu_sets()), 0);
}

}  // namespace
}  // namespace geon::cpu::testing
