// core/passes/recognise_layernorm_gelu with the CPU kernel sets: spelled-out LayerNorm (Pow or
// Mul squaring, with and without gamma/beta) becomes one LayerNormalization, both GELU forms
// (erf with the products in each order, tanh with 0.044715) become one Gelu, each giving the
// original graph's values; near-misses (another axis, a second reader, wrong constants) stay.
#include "core/passes/recognise_layernorm_gelu.h"

#include <gtest/gtest.h>

#include "tests/kernels/cpu/passes/pass_test_util.h"

namespace geon::cpu::testing {
namespace {

const Dims kShape = {2, 3, 8};

struct LnOptions {
  bool pow = true;
  bool affine = true;
  int64_t axis = -1;
  bool constant_gamma = true;
  bool reciprocal = false;  // d * Reciprocal(std) instead of d / std
};

Builder layernorm(const LnOptions& o) {
  Builder b;
  const int x = b.input("x", DType::kFloat, kShape);
  Dims reduced = kShape;
  reduced[o.axis < 0 ? o.axis + 3 : o.axis] = 1;
  const int m = b.node("ReduceMean", {x}, DType::kFloat, reduced);
  attr_ints(b, "axes", {o.axis});
  const int d = b.node("Sub", {x, m}, DType::kFloat, kShape);
  const int two = b.constant("two", DType::kFloat, {}, {2});
  const int sq = o.pow ? b.node("Pow", {d, two}, DType::kFloat, kShape)
                       : b.node("Mul", {d, d}, DType::kFloat, kShape);
  const int v = b.node("ReduceMean", {sq}, DType::kFloat, reduced);
  attr_ints(b, "axes", {o.axis});
  const int eps = b.constant("eps", DType::kFloat, {}, {1e-5});
  const int e = b.node("Add", {v, eps}, DType::kFloat, reduced);
  const int s = b.node("Sqrt", {e}, DType::kFloat, reduced);
  int y = o.reciprocal ? b.node("Mul", {b.node("Reciprocal", {s}, DType::kFloat, reduced), d},
                                DType::kFloat, kShape)
                       : b.node("Div", {d, s}, DType::kFloat, kShape);
  if (o.affine) {
    const int gamma = o.constant_gamma
                          ? b.constant("gamma", DType::kFloat, {8}, random_doubles(8, 1))
                          : b.input("gamma", DType::kFloat, {8});
    const int beta = b.constant("beta", DType::kFloat, {1, 1, 8}, random_doubles(8, 2));
    y = b.node("Mul", {gamma, y}, DType::kFloat, kShape);
    y = b.node("Add", {y, beta}, DType::kFloat, kShape);
  }
  b.g.outputs = {y};
  return b;
}

TEST(RecogniseLayerNorm, SpelledOutLayerNormBecomesOneNode) {
  for (const bool pow : {true, false})
    for (const bool affine : {true, false}) {
      SCOPED_TRACE(std::to_string(pow) + std::to_string(affine));
      Builder b = layernorm({pow, affine});
      const Graph original = b.g;
      EXPECT_EQ(recognise_layernorm_gelu(b.g, cpu_sets()), 1);
      ASSERT_EQ(b.g.nodes.size(), 1u);
      const Node& ln = b.g.nodes[0];
      EXPECT_EQ(ln.op, "LayerNormalization");
      EXPECT_EQ(ln.opset, 17);
      EXPECT_EQ(ln.attr("axis")->i, -1);
      EXPECT_NEAR(ln.attr("epsilon")->f, 1e-5, 1e-9);
      EXPECT_EQ(members(ln).size(), affine ? 9u : 7u);
      expect_consistent(b.g);
      const auto xs = random_floats(48, 3);
      expect_close(run_graph(b.g, {xs}).at(0), run_graph(original, {xs}).at(0), 1e-4, 1e-4);
    }
}

TEST(RecogniseLayerNorm, ReciprocalOfTheDeviationIsRecognisedToo) {
  LnOptions o;
  o.reciprocal = true;
  Builder b = layernorm(o);
  const Graph original = b.g;
  EXPECT_EQ(recognise_layernorm_gelu(b.g, cpu_sets()), 1);
  ASSERT_EQ(b.g.nodes.size(), 1u);
  EXPECT_EQ(members(b.g.nodes[0]).size(), 10u);
  const auto xs = random_floats(48, 12);
  expect_close(run_graph(b.g, {xs}).at(0), run_graph(original, {xs}).at(0), 1e-4, 1e-4);
}

TEST(RecogniseLayerNorm, NearMissesAreLeftAlone) {
  // Normalising over another axis is not LayerNormalization(axis -1).
  Builder other = layernorm({true, true, 1});
  EXPECT_EQ(recognise_layernorm_gelu(other.g, cpu_sets()), 0);
  // x - mean also read outside the pattern.
  Builder shared = layernorm({});
  const int d = shared.g.nodes[1].outputs[0];
  shared.g.outputs.push_back(shared.node("Abs", {d}, DType::kFloat, kShape));
  EXPECT_EQ(recognise_layernorm_gelu(shared.g, cpu_sets()), 0);
  // A gamma fed at run time: the normalisation is recognised, the Mul and Add stay.
  Builder fed = layernorm({true, true, -1, false});
  EXPECT_EQ(recognise_layernorm_gelu(fed.g, cpu_sets()), 1);
  EXPECT_EQ(count_op(fed.g, "Mul"), 1);
  EXPECT_EQ(count_op(fed.g, "Add"), 1);
  expect_consistent(fed.g);
}

int scalar(Builder& b, double v) {
  return b.constant("c" + std::to_string(b.g.values.size()), DType::kFloat, {}, {v});
}

// x * 0.5 * (1 + erf(x / sqrt 2)) with the products in order `order` (0: (x*t)*0.5,
// 1: x*(t*0.5), 2: (x*0.5)*t), and Div or Mul by 1/sqrt 2.
Builder gelu_erf(int order, bool div, double half = 0.5) {
  Builder b;
  const int x = b.input("x", DType::kFloat, {4, 6});
  const Dims s = {4, 6};
  const int u = div ? b.node("Div", {x, scalar(b, std::sqrt(2.0))}, DType::kFloat, s)
                    : b.node("Mul", {scalar(b, std::sqrt(0.5)), x}, DType::kFloat, s);
  const int e = b.node("Erf", {u}, DType::kFloat, s);
  const int t = b.node("Add", {e, scalar(b, 1.0)}, DType::kFloat, s);
  int y = -1;
  if (order == 0)
    y = b.node("Mul", {b.node("Mul", {x, t}, DType::kFloat, s), scalar(b, half)}, DType::kFloat, s);
  if (order == 1)
    y = b.node("Mul", {x, b.node("Mul", {t, scalar(b, half)}, DType::kFloat, s)}, DType::kFloat, s);
  if (order == 2)
    y = b.node("Mul", {b.node("Mul", {x, scalar(b, half)}, DType::kFloat, s), t}, DType::kFloat, s);
  b.g.outputs = {y};
  return b;
}

TEST(RecogniseGelu, ErfFormInEveryOrderBecomesGelu) {
  for (int order = 0; order < 3; ++order)
    for (const bool div : {true, false}) {
      SCOPED_TRACE(std::to_string(order) + (div ? " div" : " mul"));
      Builder b = gelu_erf(order, div);
      const Graph original = b.g;
      EXPECT_EQ(recognise_layernorm_gelu(b.g, cpu_sets()), 1);
      ASSERT_EQ(b.g.nodes.size(), 1u);
      EXPECT_EQ(b.g.nodes[0].op, "Gelu");
      EXPECT_EQ(b.g.nodes[0].opset, 20);
      EXPECT_EQ(b.g.nodes[0].attr("approximate")->s, "none");
      EXPECT_EQ(members(b.g.nodes[0]).size(), 5u);
      expect_consistent(b.g);
      const auto xs = random_floats(24, 4, -4, 4);
      expect_close(run_graph(b.g, {xs}).at(0), run_graph(original, {xs}).at(0));
    }
}

TEST(RecogniseGelu, TanhFormBecomesGeluTanh) {
  for (const bool pow : {true, false}) {
    Builder b;
    const Dims s = {3, 5};
    const int x = b.input("x", DType::kFloat, s);
    int cube;
    if (pow) {
      cube = b.node("Pow", {x, scalar(b, 3.0)}, DType::kFloat, s);
    } else {
      const int sq = b.node("Mul", {x, x}, DType::kFloat, s);
      cube = b.node("Mul", {sq, x}, DType::kFloat, s);
    }
    const int k = b.node("Mul", {scalar(b, 0.044715), cube}, DType::kFloat, s);
    const int inner = b.node("Add", {x, k}, DType::kFloat, s);
    const int sc = b.node("Mul", {inner, scalar(b, 0.7978845608)}, DType::kFloat, s);
    const int th = b.node("Tanh", {sc}, DType::kFloat, s);
    const int t = b.node("Add", {scalar(b, 1.0), th}, DType::kFloat, s);
    const int h = b.node("Mul", {scalar(b, 0.5), x}, DType::kFloat, s);
    b.g.outputs = {b.node("Mul", {h, t}, DType::kFloat, s)};
    const Graph original = b.g;
    EXPECT_EQ(recognise_layernorm_gelu(b.g, cpu_sets()), 1);
    ASSERT_EQ(b.g.nodes.size(), 1u);
    EXPECT_EQ(b.g.nodes[0].attr("approximate")->s, "tanh");
    expect_consistent(b.g);
    const auto xs = random_floats(15, 5, -4, 4);
    expect_close(run_graph(b.g, {xs}).at(0), run_graph(original, {xs}).at(0));
  }
}

TEST(RecogniseGelu, WrongConstantsOrASecondReaderAreLeftAlone) {
  Builder half = gelu_erf(0, true, 0.6);
  EXPECT_EQ(recognise_layernorm_gelu(half.g, cpu_sets()), 0);
  Builder shared = gelu_erf(1, true);
  const int e = shared.g.nodes[1].outputs[0];  // erf(x / sqrt 2)
  shared.g.outputs.push_back(e);
  EXPECT_EQ(recognise_layernorm_gelu(shared.g, cpu_sets()), 0);
  // Without a set that runs Gelu nothing is made.
  Builder no_set = gelu_erf(2, false);
  const std::vector<const KernelSet*> dnnl_only = {&dnnl_kernels()};
  EXPECT_EQ(recognise_layernorm_gelu(no_set.g, dnnl_only), 0);
}

}  // namespace
}  // namespace geon::cpu::testing
