// core/passes/fuse_elementwise with the CPU kernel sets: the L2 example sum((x - y)^2) as one
// geon.Elementwise node that plans no intermediate memory, chains with broadcasting and a
// keepdims mean, and the near-misses left alone (a second reader, a graph output, axes fed at
// run time, float16 intermediates); every rewrite gives the values of the original graph.
#include "core/passes/fuse_elementwise.h"

#include <gtest/gtest.h>

#include "tests/kernels/cpu/passes/pass_test_util.h"

namespace geon::cpu::testing {
namespace {

// sum((x - y)^2) over axis 1 of (5, 7), as exported: Sub, Mul(d, d) or Pow(d, 2), ReduceSum.
Builder l2_graph(bool pow) {
  Builder b;
  const int x = b.input("x", DType::kFloat, {5, 7});
  const int y = b.input("y", DType::kFloat, {5, 7});
  const int d = b.node("Sub", {x, y}, DType::kFloat, {5, 7});
  const int two = b.constant("two", DType::kFloat, {}, {2});
  const int sq = pow ? b.node("Pow", {d, two}, DType::kFloat, {5, 7})
                     : b.node("Mul", {d, d}, DType::kFloat, {5, 7});
  const int axes = b.constant("axes", DType::kInt64, {1}, {1});
  const int s = b.node("ReduceSum", {sq, axes}, DType::kFloat, {5});
  b.attr_i("keepdims", 0);
  b.g.outputs = {s};
  return b;
}

TEST(FuseElementwise, L2ExampleBecomesOneNodeWithoutIntermediates) {
  for (const bool pow : {false, true}) {
    Builder b = l2_graph(pow);
    const Graph original = b.g;
    EXPECT_EQ(fuse_elementwise(b.g, cpu_sets()), 1);
    ASSERT_EQ(b.g.nodes.size(), 1u);
    const Node& f = b.g.nodes[0];
    EXPECT_EQ(f.domain, "geon");
    EXPECT_EQ(f.op, "Elementwise");
    EXPECT_EQ(members(f), (std::vector<std::string>{"Sub:Sub0", pow ? "Pow:Pow1" : "Mul:Mul1",
                                                    "ReduceSum:ReduceSum2"}));
    expect_consistent(b.g);
    // x - y and its square are never written: nothing but the output is planned.
    const auto planned = [](const Graph& g) {
      size_t bytes = 0;
      for (const MemoryStats& m :
           Executable::compile(std::make_shared<Graph>(g), cpu_sets())->memory())
        bytes += m.intermediate_bytes;
      return bytes;
    };
    EXPECT_GT(planned(original), 0u);
    EXPECT_EQ(planned(b.g), 0u);
    const auto xs = random_floats(35, 1), ys = random_floats(35, 2);
    std::vector<float> want(5, 0.0f);
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 7; ++j)
        want[i] += (xs[i * 7 + j] - ys[i * 7 + j]) * (xs[i * 7 + j] - ys[i * 7 + j]);
    const auto got = run_graph(b.g, {xs, ys});
    expect_close(got.at(0), want);
    expect_close(got.at(0), run_graph(original, {xs, ys}).at(0));
  }
}

// relu(x * w + 1) - y with w (7) broadcast over x (5, 7), then a keepdims mean over axis 0.
TEST(FuseElementwise, BroadcastChainWithKeepdimsMeanMatchesTheOriginal) {
  Builder b;
  const int x = b.input("x", DType::kFloat, {5, 7});
  const int y = b.input("y", DType::kFloat, {5, 7});
  const int w = b.constant("w", DType::kFloat, {7}, random_doubles(7, 3));
  const int one = b.constant("one", DType::kFloat, {}, {1});
  const int m = b.node("Mul", {x, w}, DType::kFloat, {5, 7});
  const int a = b.node("Add", {m, one}, DType::kFloat, {5, 7});
  const int r = b.node("Relu", {a}, DType::kFloat, {5, 7});
  const int s = b.node("Sub", {r, y}, DType::kFloat, {5, 7});
  const int mean = b.node("ReduceMean", {s}, DType::kFloat, {1, 7});
  attr_ints(b, "axes", {0});
  b.g.outputs = {mean};
  const Graph original = b.g;
  EXPECT_EQ(fuse_elementwise(b.g, cpu_sets()), 1);
  ASSERT_EQ(b.g.nodes.size(), 1u);
  EXPECT_EQ(members(b.g.nodes[0]).size(), 5u);
  const auto xs = random_floats(35, 4), ys = random_floats(35, 5);
  expect_close(run_graph(b.g, {xs, ys}).at(0), run_graph(original, {xs, ys}).at(0));
}

// The fused node reads a transposed view (the Transpose kernel's output is a view) as it is.
TEST(FuseElementwise, TransposedInputAndKeepdimsSumMatchTheOriginal) {
  Builder b;
  const int x = b.input("x", DType::kFloat, {4, 6});
  const int y = b.input("y", DType::kFloat, {6, 4});
  const int t = b.node("Transpose", {x}, DType::kFloat, {6, 4});
  const int d = b.node("Sub", {t, y}, DType::kFloat, {6, 4});
  const int sq = b.node("Mul", {d, d}, DType::kFloat, {6, 4});
  const int axes = b.constant("axes", DType::kInt64, {1}, {0});
  b.g.outputs = {b.node("ReduceSum", {sq, axes}, DType::kFloat, {1, 4})};
  const Graph original = b.g;
  EXPECT_EQ(fuse_elementwise(b.g, cpu_sets()), 1);
  EXPECT_EQ(b.g.nodes.size(), 2u);
  const auto xs = random_floats(24, 9), ys = random_floats(24, 10);
  std::vector<float> want(4, 0.0f);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) {
      const float dv = xs[j * 6 + i] - ys[i * 4 + j];
      want[j] += dv * dv;
    }
  const auto got = run_graph(b.g, {xs, ys});
  expect_close(got.at(0), want);
  expect_close(got.at(0), run_graph(original, {xs, ys}).at(0));
}

TEST(FuseElementwise, ElementwiseChainWithoutReductionFuses) {
  Builder b;
  const int x = b.input("x", DType::kFloat, {3, 4, 5});
  const int t = b.node("Tanh", {x}, DType::kFloat, {3, 4, 5});
  const int e = b.node("Exp", {t}, DType::kFloat, {3, 4, 5});
  const int n = b.node("Neg", {e}, DType::kFloat, {3, 4, 5});
  b.g.outputs = {n};
  const Graph original = b.g;
  EXPECT_EQ(fuse_elementwise(b.g, cpu_sets()), 1);
  ASSERT_EQ(b.g.nodes.size(), 1u);
  const auto xs = random_floats(60, 6);
  expect_close(run_graph(b.g, {xs}).at(0), run_graph(original, {xs}).at(0));
  for (size_t i = 0; i < xs.size(); ++i)
    EXPECT_NEAR(run_graph(b.g, {xs}).at(0)[i], -std::exp(std::tanh(xs[i])), 1e-5);
}

TEST(FuseElementwise, SecondReaderOrGraphOutputKeepsTheProducer) {
  for (const bool as_output : {false, true}) {
    Builder b = l2_graph(false);
    const int d = b.g.nodes[0].outputs[0];
    if (as_output)
      b.g.outputs.push_back(d);
    else
      b.g.outputs.push_back(b.node("Abs", {d}, DType::kFloat, {5, 7}));
    const Graph original = b.g;
    fuse_elementwise(b.g, cpu_sets());
    // x - y is still computed by its own node; the square and the sum fuse.
    EXPECT_EQ(count_op(b.g, "Sub"), 1);
    EXPECT_EQ(count_op(b.g, "ReduceSum"), 0);
    expect_consistent(b.g);
    const auto xs = random_floats(35, 7), ys = random_floats(35, 8);
    const auto got = run_graph(b.g, {xs, ys}), want = run_graph(original, {xs, ys});
    for (size_t i = 0; i < want.size(); ++i) expect_close(got[i], want[i]);
  }
}

TEST(FuseElementwise, AxesFedAtRunTimeLeaveTheReductionAlone) {
  Builder b;
  const int x = b.input("x", DType::kFloat, {5, 7});
  const int axes = b.input("axes", DType::kInt64, {1});
  const int n = b.node("Neg", {x}, DType::kFloat, {5, 7});
  const int e = b.node("Exp", {n}, DType::kFloat, {5, 7});
  b.g.outputs = {b.node("ReduceSum", {e, axes}, DType::kFloat, {5, 1}, false)};
  EXPECT_EQ(fuse_elementwise(b.g, cpu_sets()), 1);
  EXPECT_EQ(count_op(b.g, "ReduceSum"), 1);
  EXPECT_EQ(count_op(b.g, "Elementwise"), 1);
  expect_consistent(b.g);
}

TEST(FuseElementwise, Float16IntermediatesAndSingleNodesAreNotFused) {
  Builder b;
  const int x = b.input("x", DType::kFloat16, {4});
  const int n = b.node("Neg", {x}, DType::kFloat16, {4});
  b.g.outputs = {b.node("Exp", {n}, DType::kFloat16, {4})};
  EXPECT_EQ(fuse_elementwise(b.g, cpu_sets()), 0);
  Builder c;
  c.g.outputs = {c.node("Relu", {c.input("x", DType::kFloat, {4})}, DType::kFloat, {4})};
  EXPECT_EQ(fuse_elementwise(c.g, cpu_sets()), 0);
}

TEST(FuseElementwise, WithoutAGeonElementwiseRowNothingFuses) {
  Builder b = l2_graph(false);
  const std::vector<const KernelSet*> dnnl_only = {&dnnl_kernels()};
  EXPECT_EQ(fuse_elementwise(b.g, dnnl_only), 0);
  EXPECT_EQ(b.g.nodes.size(), 3u);
}

}  // namespace
}  // namespace geon::cpu::testing
