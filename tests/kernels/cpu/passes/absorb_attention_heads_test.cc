// core/passes/absorb_attention_heads with the CPU kernel sets: the head split (Reshape to
// (B, S, H, D), Transpose (0, 2, 1, 3)) of Q, K and V and the head merge after Attention become
// the Attention node's own 3-D form (q_num_heads, kv_num_heads), giving the original graph's
// values (heads differ for Q and K/V: grouped-query attention); the near-misses stay (a split
// read twice, a merge that is a graph output, another permutation, a 3-D Attention already).
#include "core/passes/absorb_attention_heads.h"

#include <gtest/gtest.h>

#include <array>

#include "tests/kernels/cpu/passes/pass_test_util.h"

namespace geon::cpu::testing {
namespace {

constexpr int64_t kB = 2, kS = 5, kT = 6, kD = 4, kDv = 3;

struct Options {
  int64_t q_heads = 4, kv_heads = 4;
  bool mask = true;
  bool split_read_twice = false;  // Q's Transpose output is also a graph output
  bool merge_is_output = false;   // the merge's Transpose output is a graph output too
  // An array, not a vector: GCC 12 at -O3 with AVX-512 warns (falsely) that a copied
  // initializer list may be uninitialized.
  std::array<int64_t, 4> v_perm = {0, 2, 1, 3};
};

struct Chain {
  Builder b;
  int y = -1;
};

// x (B, len, heads·d) -> Reshape (B, len, heads, d) -> Transpose perm -> (B, heads, len, d).
int split(Builder& b, const std::string& name, int64_t len, int64_t heads, int64_t d,
          const std::vector<int64_t>& perm = {0, 2, 1, 3}) {
  const DType f = DType::kFloat;
  const int x = b.input(name, f, {kB, len, heads * d});
  const int shape = b.constant(name + "_shape", DType::kInt64, {4},
                               {double(kB), double(len), double(heads), double(d)});
  const int r = b.node("Reshape", {x, shape}, f, {kB, len, heads, d});
  Dims out{kB, len, heads, d};
  Dims permuted(4);
  for (int i = 0; i < 4; ++i) permuted[i] = out[perm[i]];
  const int t = b.node("Transpose", {r}, f, permuted);
  attr_ints(b, "perm", perm);
  return t;
}

Chain build(const Options& o) {
  Chain c;
  Builder& b = c.b;
  const DType f = DType::kFloat;
  const int q = split(b, "q", kS, o.q_heads, kD);
  const int k = split(b, "k", kT, o.kv_heads, kD);
  const int v = split(b, "v", kT, o.kv_heads, kDv, {o.v_perm.begin(), o.v_perm.end()});
  std::vector<int> in{q, k, v};
  if (o.mask) in.push_back(b.input("mask", f, {1, 1, 1, kT}));
  const int y = b.node("Attention", in, f, {kB, o.q_heads, kS, kDv});
  b.g.nodes.back().opset = 23;
  attr_f(b, "scale", 0.5f);
  const int yt = b.node("Transpose", {y}, f, {kB, kS, o.q_heads, kDv});
  attr_ints(b, "perm", {0, 2, 1, 3});
  const int shape =
      b.constant("y_shape", DType::kInt64, {3}, {double(kB), double(kS), double(o.q_heads * kDv)});
  c.y = b.node("Reshape", {yt, shape}, f, {kB, kS, o.q_heads * kDv});
  b.g.outputs = {c.y};
  if (o.split_read_twice) b.g.outputs.push_back(q);
  if (o.merge_is_output) b.g.outputs.push_back(yt);
  return c;
}

std::vector<std::vector<float>> inputs_for(const Graph& g) {
  std::vector<std::vector<float>> in;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const Value& v = g.value(g.inputs[i]);
    in.push_back(random_floats(static_cast<size_t>(element_count(*static_lengths(v.axes))),
                               200 + static_cast<unsigned>(i)));
  }
  return in;
}

TEST(AbsorbAttentionHeads, SplitAndMergeBecomeThe3DFormWithTheSameValues) {
  for (const auto& [qh, kvh] : std::vector<std::pair<int64_t, int64_t>>{{4, 4}, {4, 2}}) {
    Options o;
    o.q_heads = qh;
    o.kv_heads = kvh;
    Chain c = build(o);
    const Graph original = c.b.g;
    EXPECT_EQ(absorb_attention_heads(c.b.g, cpu_sets()), 1);
    ASSERT_EQ(c.b.g.nodes.size(), 1u);
    const Node& a = c.b.g.nodes[0];
    EXPECT_EQ(a.op, "Attention");
    EXPECT_EQ(a.attr("q_num_heads")->i, o.q_heads);
    EXPECT_EQ(a.attr("kv_num_heads")->i, o.kv_heads);
    EXPECT_FLOAT_EQ(a.attr("scale")->f, 0.5f);
    // It reads the 3-D projections and writes the merged output itself.
    EXPECT_EQ(a.inputs, (std::vector<int>{original.inputs[0], original.inputs[1],
                                          original.inputs[2], original.inputs[3]}));
    EXPECT_EQ(a.outputs, (std::vector<int>{c.y}));
    EXPECT_EQ(members(a).size(), 9u);  // three splits of two, Attention, the merge's two
    expect_consistent(c.b.g);
    const auto in = inputs_for(original);
    expect_close(run_graph(c.b.g, in).at(0), run_graph(original, in).at(0));
  }
}

TEST(AbsorbAttentionHeads, NearMissesStay) {
  std::vector<Options> cases(3);
  cases[0].split_read_twice = true;
  cases[1].merge_is_output = true;
  cases[2].v_perm = {0, 2, 3, 1};  // V transposed another way
  for (const Options& o : cases) {
    Chain c = build(o);
    const size_t nodes = c.b.g.nodes.size();
    EXPECT_EQ(absorb_attention_heads(c.b.g, cpu_sets()), 0);
    EXPECT_EQ(c.b.g.nodes.size(), nodes);
  }
  // An Attention already in its 3-D form is left alone.
  Options o;
  Chain c = build(o);
  EXPECT_EQ(absorb_attention_heads(c.b.g, cpu_sets()), 1);
  EXPECT_EQ(absorb_attention_heads(c.b.g, cpu_sets()), 0);
}

}  // namespace
}  // namespace geon::cpu::testing
