// core/passes/fuse_attention with the CPU kernel sets: the exported scaled-dot-product chain
// (Transpose, MatMul, Div or Mul by a constant, Add of a mask, Softmax, MatMul) becomes one
// Attention node that gives the original graph's values; a Kᵀ made by another permutation keeps
// its Transpose, re-permuted to yield K; and the near-misses stay as they are (Softmax over
// another axis, a second reader, a graph output, a non-constant scale, a mask that broadcasts
// along the key axis). Values carry axes as the importer gives them (MatMul contracts one
// shared axis, elementwise ops and Softmax keep their input's axes).
#include "core/passes/fuse_attention.h"

#include <gtest/gtest.h>

#include "tests/kernels/cpu/passes/pass_test_util.h"

namespace geon::cpu::testing {
namespace {

constexpr int64_t kB = 2, kH = 3, kS = 4, kT = 5, kD = 6, kDv = 7;

struct Options {
  bool mul_scale = false;    // Mul by 0.25 instead of Div by 4
  bool scale_input = false;  // the divisor is a graph input
  bool mask = true;
  bool short_mask = false;   // mask (S, 1): Add broadcasts it along the key axis
  bool k_seq_first = false;  // K given as (B, T, H, D), Kᵀ by perm (0, 2, 3, 1)
  int64_t softmax_axis = -1;
  bool second_reader = false;  // the scores are also read by a Relu that is a graph output
  bool scores_output = false;  // the softmax output is a graph output too
};

struct Chain {
  Builder b;
  int y = -1;
};

// Sets value v's axes (the Builder gives every value fresh ones).
void set_axes(Builder& b, int v, std::vector<Axis> axes) {
  b.g.value(v).axes = Axes(std::move(axes));
}

Chain build(const Options& o) {
  Chain c;
  Builder& b = c.b;
  const auto ax = [&](const char* name, int64_t n) {
    return make_axis(b.g.factory(), name, Length::known(n));
  };
  const Axis B = ax("B", kB), H = ax("H", kH), S = ax("S", kS), T = ax("T", kT), D = ax("D", kD),
             Dv = ax("Dv", kDv);
  const DType f = DType::kFloat;
  const int q = b.input("q", f, {kB, kH, kS, kD});
  set_axes(b, q, {B, H, S, D});
  int kt;
  if (o.k_seq_first) {
    const int k = b.input("k", f, {kB, kT, kH, kD});
    set_axes(b, k, {B, T, H, D});
    kt = b.node("Transpose", {k}, f, {kB, kH, kD, kT});
    attr_ints(b, "perm", {0, 2, 3, 1});
  } else {
    const int k = b.input("k", f, {kB, kH, kT, kD});
    set_axes(b, k, {B, H, T, D});
    kt = b.node("Transpose", {k}, f, {kB, kH, kD, kT});
    attr_ints(b, "perm", {0, 1, 3, 2});
  }
  set_axes(b, kt, {B, H, D, T});
  const int v = b.input("v", f, {kB, kH, kT, kDv});
  set_axes(b, v, {B, H, T, Dv});
  const Dims st{kB, kH, kS, kT};
  int cur = b.node("MatMul", {q, kt}, f, st);
  set_axes(b, cur, {B, H, S, T});
  const int scores = cur;
  if (o.mul_scale) {
    const int c025 = b.constant("quarter", f, {}, {0.25});
    cur = b.node("Mul", {c025, cur}, f, st);
  } else {
    const int four = o.scale_input ? b.input("four", f, {}) : b.constant("four", f, {1}, {4.0});
    cur = b.node("Div", {cur, four}, f, st);
  }
  set_axes(b, cur, {B, H, S, T});
  if (o.mask) {
    const int m = b.input("mask", f, {kS, o.short_mask ? 1 : kT});
    set_axes(b, m, {S, o.short_mask ? ax("one", 1) : T});
    cur = b.node("Add", {cur, m}, f, st);
    set_axes(b, cur, {B, H, S, T});
  }
  cur = b.node("Softmax", {cur}, f, st);
  b.attr_i("axis", o.softmax_axis);
  set_axes(b, cur, {B, H, S, T});
  const int p = cur;
  c.y = b.node("MatMul", {p, v}, f, {kB, kH, kS, kDv});
  set_axes(b, c.y, {B, H, S, Dv});
  b.g.outputs = {c.y};
  if (o.second_reader) b.g.outputs.push_back(b.node("Relu", {scores}, f, st));
  if (o.scores_output) b.g.outputs.push_back(p);
  return c;
}

std::vector<std::vector<float>> inputs_for(const Graph& g) {
  std::vector<std::vector<float>> in;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const Value& v = g.value(g.inputs[i]);
    const int64_t n = element_count(*static_lengths(v.axes));
    in.push_back(v.name == "four" ? std::vector<float>{4.0f}
                                  : random_floats(static_cast<size_t>(n), 100 + i));
  }
  return in;
}

TEST(FuseAttention, ExportedChainBecomesOneAttentionNodeWithTheSameValues) {
  for (const bool mul : {false, true}) {
    Options o;
    o.mul_scale = mul;
    Chain c = build(o);
    const Graph original = c.b.g;
    EXPECT_EQ(fuse_attention(c.b.g, cpu_sets()), 1);
    ASSERT_EQ(c.b.g.nodes.size(), 1u);
    const Node& a = c.b.g.nodes[0];
    EXPECT_EQ(a.op, "Attention");
    EXPECT_EQ(a.domain, "");
    EXPECT_EQ(a.opset, 23);
    ASSERT_NE(a.attr("scale"), nullptr);
    EXPECT_FLOAT_EQ(a.attr("scale")->f, 0.25f);
    EXPECT_EQ(members(a), (std::vector<std::string>{"Transpose:Transpose0", "MatMul:MatMul1",
                                                    mul ? "Mul:Mul2" : "Div:Div2", "Add:Add3",
                                                    "Softmax:Softmax4", "MatMul:MatMul5"}));
    EXPECT_EQ(a.inputs, (std::vector<int>{original.inputs[0], original.inputs[1],
                                          original.inputs[2], original.inputs[3]}));
    expect_consistent(c.b.g);
    const auto in = inputs_for(original);
    expect_close(run_graph(c.b.g, in).at(0), run_graph(original, in).at(0));
  }
}

TEST(FuseAttention, WithoutMaskAndWithKeyTransposedFromSequenceFirst) {
  Options o;
  o.mask = false;
  o.k_seq_first = true;
  Chain c = build(o);
  const Graph original = c.b.g;
  EXPECT_EQ(fuse_attention(c.b.g, cpu_sets()), 1);
  // The Transpose stays, now (0, 2, 1, 3): it yields K as (B, H, T, D).
  ASSERT_EQ(c.b.g.nodes.size(), 2u);
  EXPECT_EQ(c.b.g.nodes[0].op, "Transpose");
  EXPECT_EQ(c.b.g.nodes[0].attr("perm")->ints, (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_EQ(c.b.g.nodes[1].op, "Attention");
  EXPECT_EQ(c.b.g.nodes[1].inputs[3], -1);
  expect_consistent(c.b.g);
  const auto in = inputs_for(original);
  expect_close(run_graph(c.b.g, in).at(0), run_graph(original, in).at(0));
}

TEST(FuseAttention, NearMissesAreLeftAlone) {
  const auto untouched = [](const Options& o, const char* why) {
    Chain c = build(o);
    const size_t before = c.b.g.nodes.size();
    EXPECT_EQ(fuse_attention(c.b.g, cpu_sets()), 0) << why;
    EXPECT_EQ(c.b.g.nodes.size(), before) << why;
    EXPECT_EQ(count_op(c.b.g, "Attention"), 0) << why;
  };
  Options o;
  o.softmax_axis = 2;
  untouched(o, "softmax over the query axis");
  o = Options{};
  o.second_reader = true;
  untouched(o, "scores read twice");
  o = Options{};
  o.scores_output = true;
  untouched(o, "probabilities are a graph output");
  o = Options{};
  o.scale_input = true;
  untouched(o, "scale is not a constant");
  o = Options{};
  o.short_mask = true;
  untouched(o, "mask broadcast along the key axis");
}

}  // namespace
}  // namespace geon::cpu::testing
