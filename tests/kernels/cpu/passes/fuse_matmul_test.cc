// core/passes/fuse_matmul and cpu.dnnl's geon.FusedMatMul: MatMul + bias + residual +
// activation (each activation) and Gemm (transB, C as the bias, alpha) against naive loops and
// the unfused graph, non-contiguous operands, and the near-misses (a non-constant or
// non-per-column bias, a second reader, a graph output).
#include "core/passes/fuse_matmul.h"

#include <gtest/gtest.h>

#include "core/passes/activation.h"
#include "core/passes/graph_edit.h"
#include "tests/kernels/cpu/passes/pass_test_util.h"

namespace geon::cpu::testing {
namespace {

struct Act {
  std::string op;
  float alpha = 0, beta = 0;
};

// Adds the activation node for a on v (shape s); returns its output.
int add_activation(Builder& b, const Act& a, int v, const Dims& s) {
  if (a.op == "Clip") {
    const int lo = b.constant("lo", DType::kFloat, {}, {a.alpha});
    const int hi = b.constant("hi", DType::kFloat, {}, {a.beta});
    return b.node("Clip", {v, lo, hi}, DType::kFloat, s);
  }
  if (a.op == "GeluTanh") {  // ONNX Gelu with the tanh approximation
    const int out = b.node("Gelu", {v}, DType::kFloat, s);
    b.g.nodes.back().opset = 20;
    set_attr(b, "approximate", passes::string_attr("tanh"));
    return out;
  }
  const int out = b.node(a.op, {v}, DType::kFloat, s);
  if (a.op == "LeakyRelu" || a.op == "Elu") attr_f(b, "alpha", a.alpha);
  if (a.op == "HardSigmoid") {
    attr_f(b, "alpha", a.alpha);
    attr_f(b, "beta", a.beta);
  }
  if (a.op == "Gelu") b.g.nodes.back().opset = 20;
  return out;
}

const std::vector<Act>& all_activations() {
  static const std::vector<Act> acts = {{"Relu"},
                                        {"LeakyRelu", 0.1f},
                                        {"Clip", -0.5f, 0.7f},
                                        {"Sigmoid"},
                                        {"Tanh"},
                                        {"HardSigmoid", 0.3f, 0.4f},
                                        {"HardSwish"},
                                        {"Elu", 0.8f},
                                        {"Gelu"},
                                        {"GeluTanh"}};
  return acts;
}

// Y = act(X·W + bias + Z) with X (2, 3, 5, 9), W (9, 6), bias (6), Z graph input.
TEST(FuseMatMul, MatMulBiasResidualActivationMatchesNaive) {
  const int64_t m = 5, k = 9, n = 6, batch = 6;
  const auto xs = random_floats(batch * m * k, 1), ws = random_floats(k * n, 2);
  const auto bs = random_floats(n, 3), zs = random_floats(batch * m * n, 4);
  // A constant W takes the prepacked product, a fed one the single primitive with post-ops.
  for (const bool constant_w : {true, false})
    for (const Act& act : all_activations()) {
      SCOPED_TRACE(act.op + (constant_w ? " constant W" : " fed W"));
      Builder b;
      const int x = b.input("x", DType::kFloat, {2, 3, m, k});
      const int z = b.input("z", DType::kFloat, {2, 3, m, n});
      const int w = constant_w ? b.constant("w", DType::kFloat, {k, n},
                                            std::vector<double>(ws.begin(), ws.end()))
                               : b.input("w", DType::kFloat, {k, n});
      const int bias =
          b.constant("bias", DType::kFloat, {n}, std::vector<double>(bs.begin(), bs.end()));
      const int mm = b.node("MatMul", {x, w}, DType::kFloat, {2, 3, m, n});
      const int a = b.node("Add", {bias, mm}, DType::kFloat, {2, 3, m, n});
      const int r = b.node("Add", {a, z}, DType::kFloat, {2, 3, m, n});
      b.g.outputs = {add_activation(b, act, r, {2, 3, m, n})};
      const Graph original = b.g;
      EXPECT_EQ(fuse_matmul(b.g, cpu_sets()), 1);
      const Node* f = find_op(b.g, "FusedMatMul");
      ASSERT_NE(f, nullptr);
      EXPECT_EQ(f->domain, "geon");
      EXPECT_EQ(members(*f).size(), 4u);
      EXPECT_EQ(members(*f)[0], "MatMul:MatMul0");
      EXPECT_EQ(b.g.nodes.size(), 1u);
      expect_consistent(b.g);
      const passes::Activation pa{act.op, act.alpha, act.beta};
      std::vector<float> want(static_cast<size_t>(batch * m * n));
      for (int64_t q = 0; q < batch; ++q)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (int64_t e = 0; e < k; ++e) s += double(xs[(q * m + i) * k + e]) * ws[e * n + j];
            const size_t at = static_cast<size_t>((q * m + i) * n + j);
            want[at] = passes::apply_activation(pa, static_cast<float>(s + bs[j] + zs[at]));
          }
      std::vector<std::vector<float>> feeds = {xs, zs};
      if (!constant_w) feeds.push_back(ws);
      const auto got = run_graph(b.g, feeds);
      expect_close(got.at(0), want, 1e-4, 1e-4);
      expect_close(got.at(0), run_graph(original, feeds).at(0), 1e-4, 1e-4);
    }
}

// Gemm(A, B, C; transB, alpha 0.5) -> Relu: C becomes the bias, alpha takes the general path.
TEST(FuseMatMul, GemmWithTransBAlphaAndCMatchesTheOriginal) {
  for (const float alpha : {1.0f, 0.5f}) {
    Builder b;
    const int a = b.input("a", DType::kFloat, {7, 4});
    const int w = b.constant("w", DType::kFloat, {3, 4}, random_doubles(12, 5));
    const int c = b.constant("c", DType::kFloat, {1, 3}, random_doubles(3, 6));
    const int y = b.node("Gemm", {a, w, c}, DType::kFloat, {7, 3});
    b.attr_i("transB", 1);
    attr_f(b, "alpha", alpha);
    b.g.outputs = {b.node("Relu", {y}, DType::kFloat, {7, 3})};
    const Graph original = b.g;
    EXPECT_EQ(fuse_matmul(b.g, cpu_sets()), 1);
    ASSERT_EQ(b.g.nodes.size(), 1u);
    EXPECT_EQ(b.g.nodes[0].op, "FusedMatMul");
    const auto as = random_floats(28, 7);
    expect_close(run_graph(b.g, {as}).at(0), run_graph(original, {as}).at(0));
  }
}

// A transposed view as A (a Transpose node's view) and a vector B.
TEST(FuseMatMul, TransposedAAndVectorBMatchTheOriginal) {
  Builder b;
  const int x = b.input("x", DType::kFloat, {6, 5});
  const int t = b.node("Transpose", {x}, DType::kFloat, {5, 6});
  const int v = b.constant("v", DType::kFloat, {6}, random_doubles(6, 8));
  const int mm = b.node("MatMul", {t, v}, DType::kFloat, {5});
  const int bias = b.constant("bias", DType::kFloat, {1}, {0.25});
  const int s = b.node("Add", {mm, bias}, DType::kFloat, {5});
  b.g.outputs = {b.node("Tanh", {s}, DType::kFloat, {5})};
  const Graph original = b.g;
  EXPECT_EQ(fuse_matmul(b.g, cpu_sets()), 1);
  const auto xs = random_floats(30, 9);
  expect_close(run_graph(b.g, {xs}).at(0), run_graph(original, {xs}).at(0));
}

TEST(FuseMatMul, NearMissesAreLeftAlone) {
  const auto build = [](int variant) {
    Builder b;
    const int x = b.input("x", DType::kFloat, {4, 5});
    const int w = b.constant("w", DType::kFloat, {5, 3}, random_doubles(15, 10));
    const int mm = b.node("MatMul", {x, w}, DType::kFloat, {4, 3});
    int bias = b.constant("bias", DType::kFloat, {3}, {1, 2, 3});
    if (variant == 0) bias = b.input("bias_in", DType::kFloat, {3});  // not constant
    if (variant == 1) bias = b.constant("col", DType::kFloat, {4, 1}, {1, 2, 3, 4});  // per row
    const int a = b.node("Add", {mm, bias}, DType::kFloat, {4, 3});
    b.g.outputs = {a};
    if (variant == 2) b.g.outputs.push_back(mm);  // graph output
    if (variant == 3) b.g.outputs.push_back(b.node("Neg", {mm}, DType::kFloat, {4, 3}));
    return b;
  };
  for (int variant = 0; variant < 4; ++variant) {
    SCOPED_TRACE(variant);
    Builder b = build(variant);
    EXPECT_EQ(fuse_matmul(b.g, cpu_sets()), 0);
    EXPECT_EQ(count_op(b.g, "MatMul"), 1);
  }
  // The plain case does fuse, so the refusals above are the near-misses'.
  Builder ok = build(4);
  EXPECT_EQ(fuse_matmul(ok.g, cpu_sets()), 1);
}

}  // namespace
}  // namespace geon::cpu::testing
