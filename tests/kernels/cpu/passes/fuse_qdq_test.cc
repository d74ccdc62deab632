// core/passes/fuse_qdq: the QDQ groups of a quantize_static model become geon.QConv (with the
// residual Add of a ResNet block), data-movement ops between a DequantizeLinear and a
// QuantizeLinear of the same parameters move onto the 8-bit data, and the DequantizeLinear
// nodes left unread go; checked on a stand-in set with a QConv row, with the near-misses it must
// leave alone, and with the real sets through the executor against the unfused graph.
#include "core/passes/fuse_qdq.h"

#include <gtest/gtest.h>

#include "core/passes/graph_edit.h"
#include "core/passes/select_layouts.h"
#include "kernels/cpu/dnnl/ops.h"
#include "tests/kernels/cpu/passes/pass_test_util.h"

namespace geon::cpu::testing {
namespace {

std::optional<std::string> supports_all(const Graph&, const Node&) { return std::nullopt; }
std::unique_ptr<Kernel> no_kernel(const Graph&, const Node&) { return nullptr; }
const KernelEntry kQConvRow[] = {{"geon", "QConv", 1, supports_all, no_kernel},
                                 {"", "MaxPool", 1, supports_all, no_kernel},
                                 {"", "Flatten", 1, supports_all, no_kernel}};
const KernelSet& stand_in() {
  static const KernelSet set{"test.qconv", Device{DeviceKind::kHost, 0}, kQConvRow};
  return set;
}
const std::vector<const KernelSet*>& stand_in_sets() {
  static const std::vector<const KernelSet*> sets = {&stand_in()};
  return sets;
}

const Dims kX{1, 3, 6, 6}, kY{1, 4, 4, 4};

// Scale and zero point constants.
struct Params {
  int scale, zero;
};
Params params(Builder& b, const std::string& name, double scale, DType t, double zero) {
  return {b.constant(name + "_scale", DType::kFloat, {}, {scale}),
          b.constant(name + "_zp", t, {}, {zero})};
}
int dq(Builder& b, int v, Params p, const Dims& shape) {
  return b.node("DequantizeLinear", {v, p.scale, p.zero}, DType::kFloat, shape);
}
int q(Builder& b, int v, Params p, const Dims& shape, DType t = DType::kUInt8) {
  return b.node("QuantizeLinear", {v, p.scale, p.zero}, t, shape);
}

struct QdqConv {
  Builder b;
  int x, w, w_scale, w_zero, bias, b_scale, b_zero, conv, y;
  Params xp, yp;
};

// x (uint8) -> DQ -> Conv(DQ(w int8, per channel), DQ(b int32)) -> [Relu] -> Q -> y.
QdqConv qdq_conv(bool relu = true) {
  QdqConv c;
  Builder& b = c.b;
  c.x = b.input("x", DType::kUInt8, kX);
  c.xp = params(b, "x", 0.02, DType::kUInt8, 120);
  std::vector<double> wv(4 * 3 * 3 * 3);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<double>(i % 41) - 20;
  c.w = b.constant("w", DType::kInt8, {4, 3, 3, 3}, wv);
  c.w_scale = b.constant("w_scale", DType::kFloat, {4}, {0.01, 0.02, 0.015, 0.005});
  c.w_zero = b.constant("w_zp", DType::kInt8, {4}, {0, 0, 0, 0});
  const int wd =
      b.node("DequantizeLinear", {c.w, c.w_scale, c.w_zero}, DType::kFloat, {4, 3, 3, 3});
  set_attr(b, "axis", passes::int_attr(0));  // per output channel
  c.bias = b.constant("b", DType::kInt32, {4}, {100, -200, 300, 0});
  c.b_scale = b.constant("b_scale", DType::kFloat, {}, {0.0002});
  c.b_zero = b.constant("b_zp", DType::kInt32, {}, {0});
  const int bd = b.node("DequantizeLinear", {c.bias, c.b_scale, c.b_zero}, DType::kFloat, {4});
  const int xd = dq(b, c.x, c.xp, kX);
  c.conv = b.node("Conv", {xd, wd, bd}, DType::kFloat, kY);
  attr_ints(b, "kernel_shape", {3, 3});
  int v = c.conv;
  if (relu) v = b.node("Relu", {v}, DType::kFloat, kY);
  c.yp = params(b, "y", 0.05, DType::kUInt8, 10);
  c.y = q(b, v, c.yp, kY);
  b.g.outputs = {c.y};
  return c;
}

TEST(FuseQdq, ConvGroupBecomesOneQConv) {
  QdqConv c = qdq_conv();
  const QdqFusions made = fuse_qdq(c.b.g, stand_in_sets());
  EXPECT_EQ(made.convs, 1);
  EXPECT_EQ(made.residuals, 0);
  Graph& g = c.b.g;
  ASSERT_EQ(g.nodes.size(), 1u);  // the DequantizeLinear nodes went with the group
  const Node& f = g.nodes[0];
  EXPECT_EQ(f.domain, "geon");
  EXPECT_EQ(f.op, "QConv");
  EXPECT_EQ(f.inputs, (std::vector<int>{c.x, c.xp.scale, c.xp.zero, c.w, c.w_scale, c.w_zero,
                                        c.bias, c.b_scale, c.b_zero, c.yp.scale, c.yp.zero}));
  EXPECT_EQ(f.outputs, std::vector<int>{c.y});
  EXPECT_EQ(f.attr("activation")->s, "Relu");
  EXPECT_EQ(f.attr("sum_activation")->s, "");
  EXPECT_EQ(f.attr("kernel_shape")->ints, (std::vector<int64_t>{3, 3}));
  const std::vector<std::string> m = members(f);
  ASSERT_EQ(m.size(), 6u);
  EXPECT_EQ(m[3], "Conv:Conv3");
  EXPECT_EQ(m[4], "Relu:Relu4");
  EXPECT_EQ(m[5], "QuantizeLinear:QuantizeLinear5");
  EXPECT_EQ(f.name, "Conv3+Relu4+QuantizeLinear5");
  expect_consistent(g);
}

// conv -> Q -> DQ -> Add(·, DQ(z)) -> Relu -> Q: the residual joins the QConv.
TEST(FuseQdq, ResidualAddJoinsTheQConv) {
  QdqConv c = qdq_conv(false);
  Builder& b = c.b;
  const int z = b.input("z", DType::kUInt8, kY);
  const Params zp = params(b, "z", 0.03, DType::kUInt8, 128);
  const int back = dq(b, c.y, c.yp, kY);
  const int sum = b.node("Add", {dq(b, z, zp, kY), back}, DType::kFloat, kY);
  const int r = b.node("Relu", {sum}, DType::kFloat, kY);
  const Params op = params(b, "out", 0.04, DType::kUInt8, 0);
  const int out = q(b, r, op, kY);
  b.g.outputs = {out};
  const QdqFusions made = fuse_qdq(b.g, stand_in_sets());
  EXPECT_EQ(made.convs, 1);
  EXPECT_EQ(made.residuals, 1);
  Graph& g = b.g;
  ASSERT_EQ(g.nodes.size(), 1u);
  const Node& f = g.nodes[0];
  ASSERT_EQ(f.inputs.size(), 16u);
  EXPECT_EQ(f.inputs[9], op.scale);
  EXPECT_EQ(f.inputs[10], op.zero);
  EXPECT_EQ(f.inputs[11], z);
  EXPECT_EQ(f.inputs[12], zp.scale);
  EXPECT_EQ(f.inputs[13], zp.zero);
  EXPECT_EQ(f.inputs[14], c.yp.scale);  // the Conv's own quantization
  EXPECT_EQ(f.inputs[15], c.yp.zero);
  EXPECT_EQ(f.outputs, std::vector<int>{out});
  EXPECT_EQ(f.attr("activation")->s, "");
  EXPECT_EQ(f.attr("sum_activation")->s, "Relu");
  expect_consistent(g);
}

// A downsampling block: both addends are quantized convolutions. The first takes the Add; the
// second stays a QConv of its own, which the first reads as Z.
TEST(FuseQdq, AnAddOfTwoConvolutionsGoesToOne) {
  QdqConv c = qdq_conv(false);
  Builder& b = c.b;
  const int w2 = b.constant("w2", DType::kInt8, {4, 3, 3, 3}, std::vector<double>(108, 1));
  const Params w2p = params(b, "w2", 0.01, DType::kInt8, 0);
  const int w2d = dq(b, w2, w2p, {4, 3, 3, 3});
  const int x2 = dq(b, c.x, c.xp, kX);
  const int conv2 = b.node("Conv", {x2, w2d}, DType::kFloat, kY);
  attr_ints(b, "kernel_shape", {3, 3});
  const Params p2 = params(b, "c2", 0.07, DType::kUInt8, 3);
  const int y2 = q(b, conv2, p2, kY);
  const int sum = b.node("Add", {dq(b, c.y, c.yp, kY), dq(b, y2, p2, kY)}, DType::kFloat, kY);
  const Params op = params(b, "out", 0.04, DType::kUInt8, 0);
  const int out = q(b, sum, op, kY);
  b.g.outputs = {out};
  const QdqFusions made = fuse_qdq(b.g, stand_in_sets());
  EXPECT_EQ(made.convs, 2);
  EXPECT_EQ(made.residuals, 1);
  Graph& g = b.g;
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].inputs.size(), 11u);  // the second conv, now first in order
  EXPECT_EQ(g.nodes[0].outputs, std::vector<int>{y2});
  EXPECT_EQ(g.nodes[1].inputs.at(11), y2);
  EXPECT_EQ(g.nodes[1].outputs, std::vector<int>{out});
  expect_consistent(g);
}

TEST(FuseQdq, OmittedZeroPointsBecomeZeroConstants) {
  QdqConv c = qdq_conv();
  Graph& g = c.b.g;
  for (Node& n : g.nodes)
    if (n.op == "QuantizeLinear" || (n.op == "DequantizeLinear" && n.inputs[0] == c.x))
      n.inputs.resize(2);
  ASSERT_EQ(fuse_qdq(g, stand_in_sets()).convs, 1);
  const Node& f = g.nodes.at(0);
  for (int i : {2, 10}) {
    const Value& z = g.value(f.inputs[i]);
    ASSERT_TRUE(z.data);
    EXPECT_EQ(z.dtype(), DType::kUInt8);
    EXPECT_EQ(element_as_double(*z.data, 0), 0.0);
  }
}

TEST(FuseQdq, MaxPoolAndFlattenMoveOntoTheEightBitData) {
  Builder b;
  const int x = b.input("x", DType::kUInt8, {1, 2, 4, 4});
  const Params p = params(b, "p", 0.1, DType::kUInt8, 5);
  const int pool = b.node("MaxPool", {dq(b, x, p, {1, 2, 4, 4})}, DType::kFloat, {1, 2, 2, 2});
  attr_ints(b, "kernel_shape", {2, 2});
  attr_ints(b, "strides", {2, 2});
  const int pq = q(b, pool, p, {1, 2, 2, 2});
  const int flat = b.node("Flatten", {dq(b, pq, p, {1, 2, 2, 2})}, DType::kFloat, {1, 8});
  const int fq = q(b, flat, p, {1, 8});
  b.g.outputs = {fq};
  EXPECT_EQ(fuse_qdq(b.g, stand_in_sets()).pass_through, 2);
  Graph& g = b.g;
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].op, "MaxPool");
  EXPECT_EQ(g.nodes[0].inputs, std::vector<int>{x});
  EXPECT_EQ(g.nodes[0].outputs, std::vector<int>{pq});
  EXPECT_EQ(g.nodes[1].op, "Flatten");
  EXPECT_EQ(g.nodes[1].inputs, std::vector<int>{pq});
  EXPECT_EQ(g.nodes[1].outputs, std::vector<int>{fq});
  expect_consistent(g);
}

TEST(FuseQdq, PassThroughNeedsTheSameParameters) {
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE(variant);
    Builder b;
    const int x = b.input("x", DType::kUInt8, {1, 2, 4, 4});
    const Params p = params(b, "p", 0.1, DType::kUInt8, 5);
    const Params other = variant == 0   ? params(b, "o", 0.2, DType::kUInt8, 5)
                         : variant == 1 ? params(b, "o", 0.1, DType::kUInt8, 6)
                                        : params(b, "o", 0.1, DType::kInt8, 5);
    const int pool = b.node("MaxPool", {dq(b, x, p, {1, 2, 4, 4})}, DType::kFloat, {1, 2, 2, 2});
    attr_ints(b, "kernel_shape", {2, 2});
    b.g.outputs = {q(b, pool, other, {1, 2, 2, 2}, variant == 2 ? DType::kInt8 : DType::kUInt8)};
    EXPECT_EQ(fuse_qdq(b.g, stand_in_sets()).pass_through, 0);
    EXPECT_EQ(b.g.nodes.size(), 3u);
  }
}

TEST(FuseQdq, NearMissesAreLeftAlone) {
  for (int variant = 0; variant < 8; ++variant) {
    SCOPED_TRACE(variant);
    QdqConv c = qdq_conv();
    Graph& g = c.b.g;
    std::vector<const KernelSet*> sets = stand_in_sets();
    if (variant == 0) g.outputs.push_back(c.conv);      // the float result is wanted too
    if (variant == 1) g.value(c.w).overridable = true;  // weights a feed may replace
    if (variant == 2) {                                 // X quantized per channel
      const int s = c.b.constant("xs2", DType::kFloat, {3}, {0.1, 0.2, 0.3});
      for (Node& n : g.nodes)
        if (n.op == "DequantizeLinear" && n.inputs[0] == c.x) n.inputs = {c.x, s};
    }
    if (variant == 3) sets = {&generic_kernels()};  // no set runs geon.QConv
    if (variant == 4) {                             // a second reader of the Conv's result
      g.outputs.push_back(c.b.node("Neg", {c.conv}, DType::kFloat, kY));
    }
    if (variant == 5) {  // a bias that is computed, not constant
      const int extra = c.b.input("bias_in", DType::kFloat, {4});
      for (Node& n : g.nodes)
        if (n.op == "Conv") n.inputs[2] = extra;
    }
    if (variant == 6) {  // the activation is not Relu
      for (Node& n : g.nodes)
        if (n.op == "Relu") n.op = "Sigmoid";
    }
    if (variant == 7) {  // 16-bit activations
      g.value(c.x).type.dtype = DType::kUInt16;
      g.value(c.xp.zero).type.dtype = DType::kUInt16;
    }
    const size_t before = g.nodes.size();
    EXPECT_EQ(fuse_qdq(g, sets).convs, 0);
    EXPECT_EQ(g.nodes.size(), before);
  }
}

// A Gemm scaled by alpha, or transposing A, stays as it is.
TEST(FuseQdq, GemmNearMissesAreLeftAlone) {
  for (const char* attr : {"alpha", "transA"}) {
    SCOPED_TRACE(attr);
    Builder b;
    const int x = b.input("x", DType::kUInt8, {6, 6});
    const int w = b.constant("w", DType::kInt8, {6, 6}, std::vector<double>(36, 3));
    const Params wp = params(b, "w", 0.01, DType::kInt8, 0);
    const int prod = b.node(
        "Gemm", {dq(b, x, params(b, "x", 0.05, DType::kUInt8, 0), {6, 6}), dq(b, w, wp, {6, 6})},
        DType::kFloat, {6, 6});
    if (std::string(attr) == "alpha")
      set_attr(b, "alpha", passes::float_attr(0.5f));
    else
      set_attr(b, "transA", passes::int_attr(1));
    b.g.outputs = {q(b, prod, params(b, "y", 0.1, DType::kUInt8, 0), {6, 6})};
    EXPECT_EQ(fuse_qdq(b.g, cpu_sets()).gemms, 0);
    EXPECT_EQ(b.g.nodes.size(), 4u);
  }
}

// A weight zero point other than zero: cpu.dnnl's QConv refuses it, so nothing fuses.
TEST(FuseQdq, WhatTheKernelRefusesStaysUnfused) {
  QdqConv c = qdq_conv();
  auto d = make_tensor_data(DType::kInt8, {4});
  d->storage->data()[1] = std::byte{2};
  c.b.g.value(c.w_zero).data = d;
  const size_t before = c.b.g.nodes.size();
  EXPECT_EQ(fuse_qdq(c.b.g, cpu_sets()).convs, 0);
  EXPECT_EQ(c.b.g.nodes.size(), before);
}

// Runs g on uint8 inputs through the real sets; returns output 0's bytes.
std::vector<uint8_t> run_u8(const Graph& g, const std::vector<std::vector<uint8_t>>& inputs) {
  auto exe = Executable::compile(std::make_shared<Graph>(g), cpu_sets());
  std::vector<TensorRef> refs;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const Value& v = g.value(g.inputs[i]);
    refs.push_back(TensorRef{row_major(DType::kUInt8, *static_lengths(v.axes)),
                             const_cast<uint8_t*>(inputs[i].data()), Device{}});
  }
  const std::vector<OwnedTensor> outs = exe->run(refs, std::vector<int>{0});
  const auto* p = static_cast<const uint8_t*>(outs.at(0).data());
  return std::vector<uint8_t>(p, p + element_count(outs.at(0).desc));
}

// The same bytes, but for at most one that differs by one (a tie rounded the other way).
void expect_tie_close(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  ASSERT_EQ(got.size(), want.size());
  int differ = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(std::abs(got[i] - want[i]), 1) << "at " << i;
    differ += got[i] != want[i];
  }
  EXPECT_LE(differ, 1);
}

// With cpu.dnnl: the fused graph gives the unfused graph's bytes (the unfused graph runs
// DequantizeLinear, a float Conv and QuantizeLinear), but where float rounding lands a value
// on the other side of a tie: such differences are 1 and rare.
TEST(FuseQdq, RealKernelsGiveTheUnfusedValues) {
  for (bool residual : {false, true}) {
    SCOPED_TRACE(residual);
    QdqConv c = qdq_conv(!residual);
    Builder& b = c.b;
    if (residual) {
      const int z = b.input("z", DType::kUInt8, kY);
      const Params zp = params(b, "z", 0.03, DType::kUInt8, 128);
      const int sum = b.node("Add", {dq(b, c.y, c.yp, kY), dq(b, z, zp, kY)}, DType::kFloat, kY);
      const Params op = params(b, "out", 0.04, DType::kUInt8, 100);
      b.g.outputs = {q(b, sum, op, kY)};
    }
    const Graph original = b.g;
    const QdqFusions made = fuse_qdq(b.g, cpu_sets());
    EXPECT_EQ(made.convs, 1);
    EXPECT_EQ(made.residuals, residual ? 1 : 0);
    std::mt19937 rng(5);
    std::vector<std::vector<uint8_t>> inputs;
    for (int in : b.g.inputs) {
      std::vector<uint8_t> v(
          static_cast<size_t>(element_count(*static_lengths(b.g.value(in).axes))));
      for (uint8_t& e : v) e = static_cast<uint8_t>(rng() % 256);
      inputs.push_back(v);
    }
    expect_tie_close(run_u8(b.g, inputs), run_u8(original, inputs));
  }
}

// x (2, 6) -> DQ -> Gemm(DQ(w)ᵀ, DQ(b)) or MatMul(DQ(w) per column) -> Q: one geon.QGemm, which
// gives the unfused graph's bytes on the real sets.
TEST(FuseQdq, GemmAndMatMulBecomeQGemm) {
  for (bool matmul : {false, true}) {
    SCOPED_TRACE(matmul);
    Builder b;
    const int x = b.input("x", DType::kUInt8, {2, 6});
    const Params xp = params(b, "x", 0.05, DType::kUInt8, 100);
    std::vector<double> wv(24);
    for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<double>(i * 7 % 61) - 30;
    const Dims wshape = matmul ? Dims{6, 4} : Dims{4, 6};
    const int w = b.constant("w", DType::kInt8, wshape, wv);
    const int ws = b.constant("w_scale", DType::kFloat, {4}, {0.01, 0.02, 0.03, 0.04});
    const int wz = b.constant("w_zp", DType::kInt8, {4}, {0, 0, 0, 0});
    const int wd = b.node("DequantizeLinear", {w, ws, wz}, DType::kFloat, wshape);
    set_attr(b, "axis", passes::int_attr(matmul ? 1 : 0));
    const int xd = dq(b, x, xp, {2, 6});
    int prod;
    if (matmul) {
      prod = b.node("MatMul", {xd, wd}, DType::kFloat, {2, 4});
    } else {
      const int bias = b.constant("b", DType::kFloat, {4}, {0.5, -0.5, 1, 0});
      prod = b.node("Gemm", {xd, wd, bias}, DType::kFloat, {2, 4});
      set_attr(b, "transB", passes::int_attr(1));
    }
    const int y = q(b, prod, params(b, "y", 0.1, DType::kUInt8, 128), {2, 4});
    b.g.outputs = {y};
    const Graph original = b.g;
    const QdqFusions made = fuse_qdq(b.g, cpu_sets());
    EXPECT_EQ(made.gemms, 1);
    ASSERT_EQ(b.g.nodes.size(), 1u);
    const Node& f = b.g.nodes[0];
    EXPECT_EQ(f.op, "QGemm");
    EXPECT_EQ(f.attr("trans_b")->i, matmul ? 0 : 1);
    EXPECT_EQ(f.inputs[3], w);
    std::vector<uint8_t> xs(12);
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<uint8_t>(i * 37 % 256);
    expect_tie_close(run_u8(b.g, {xs}), run_u8(original, {xs}));
  }
}

// Between quantized convolutions the 8-bit values are laid out channels-last.
TEST(FuseQdq, EightBitValuesBetweenQConvsAreChannelsLast) {
  QdqConv c = qdq_conv();
  Builder& b = c.b;
  const int w2 = b.constant("w2", DType::kInt8, {4, 4, 1, 1}, std::vector<double>(16, 1));
  const Params w2p = params(b, "w2", 0.01, DType::kInt8, 0);
  const int conv2 =
      b.node("Conv", {dq(b, c.y, c.yp, kY), dq(b, w2, w2p, {4, 4, 1, 1})}, DType::kFloat, kY);
  attr_ints(b, "kernel_shape", {1, 1});
  b.g.outputs = {q(b, conv2, params(b, "o", 0.1, DType::kUInt8, 0), kY)};
  ASSERT_EQ(fuse_qdq(b.g, cpu_sets()).convs, 2);
  EXPECT_EQ(select_layouts(b.g), 1);
  EXPECT_EQ(b.g.value(c.y).layout, (std::vector<int>{0, 2, 3, 1}));
  EXPECT_TRUE(b.g.value(c.x).layout.empty());
}

// The network's last QConv feeds a DequantizeLinear and a pooling (a ResNet's tail): its 8-bit
// output stays channels-last through the DequantizeLinear, so the QConv writes it in place, with
// no copy out of its channels-last work buffer, and the pooled floats are those of the bytes the
// QConv gives as a graph output (averaged here by a plain loop).
TEST(FuseQdq, DequantizeLinearAfterTheLastQConvReadsItsChannelsLastOutput) {
  QdqConv plain = qdq_conv();
  ASSERT_EQ(fuse_qdq(plain.b.g, cpu_sets()).convs, 1);
  const std::vector<uint8_t> xs = [] {
    std::vector<uint8_t> v(static_cast<size_t>(element_count(kX)));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>(i * 53 % 256);
    return v;
  }();
  const std::vector<uint8_t> y = run_u8(plain.b.g, {xs});  // row-major (N, C, H, W)

  QdqConv c = qdq_conv();
  Builder& b = c.b;
  const int d = dq(b, c.y, c.yp, kY);
  const int pooled = b.node("GlobalAveragePool", {d}, DType::kFloat, {1, 4, 1, 1});
  b.g.outputs = {pooled};
  ASSERT_EQ(fuse_qdq(b.g, cpu_sets()).convs, 1);
  Graph laid_out = b.g;
  EXPECT_EQ(select_layouts(laid_out), 2);
  EXPECT_EQ(laid_out.value(c.y).layout, (std::vector<int>{0, 2, 3, 1}));
  EXPECT_EQ(laid_out.value(d).layout, (std::vector<int>{0, 2, 3, 1}));

  auto exe = Executable::compile(std::make_shared<Graph>(laid_out), cpu_sets());
  const TensorRef in{row_major(DType::kUInt8, kX), const_cast<uint8_t*>(xs.data()), Device{}};
  const int64_t copies = dnnl_qconv_copies();
  const std::vector<OwnedTensor> outs = exe->run(std::vector<TensorRef>{in}, std::vector<int>{0});
  // X, a row-major graph input, is the one copy (into the channels-last layout oneDNN reads).
  EXPECT_EQ(dnnl_qconv_copies() - copies, 1);
  ASSERT_EQ(element_count(outs.at(0).desc), 4);
  const auto* got = static_cast<const float*>(outs.at(0).data());
  const int64_t pixels = kY[2] * kY[3];
  for (int64_t k = 0; k < 4; ++k) {
    double sum = 0;
    for (int64_t p = 0; p < pixels; ++p)
      sum += (y[static_cast<size_t>(k * pixels + p)] - 10) * 0.05;
    EXPECT_NEAR(got[k], sum / static_cast<double>(pixels), 1e-5) << "channel " << k;
  }
}

}  // namespace
}  // namespace geon::cpu::testing
