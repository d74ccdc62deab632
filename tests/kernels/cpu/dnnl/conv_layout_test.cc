// Channels-last layout selection end to end: Conv -> Relu -> Conv compiled over cpu.dnnl and
// cpu.generic after select_layouts runs with channels-last intermediates (the convolutions
// read and write them with no layout copy, the Relu reads and writes the same strides) and
// gives the same result as the row-major run.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "core/passes/select_layouts.h"
#include "core/runtime/executor.h"
#include "kernels/cpu/dnnl/conv_core.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/graph_builder.h"

namespace geon::cpu::testing {
namespace {

std::vector<double> random_values(std::mt19937& rng, size_t n) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

void pads_1(Graph& g) {
  Attribute a;
  a.kind = Attribute::Kind::kInts;
  a.ints = {1, 1, 1, 1};
  g.nodes.back().attrs["pads"] = a;
}

struct Chain {
  std::shared_ptr<Graph> g;
  int c1 = -1, r = -1;
};

Chain conv_relu_conv(bool select) {
  std::mt19937 rng(41);
  Builder b;
  const int x = b.input("x", DType::kFloat, {2, 8, 10, 9});
  const int w1 = b.constant("w1", DType::kFloat, {16, 8, 3, 3}, random_values(rng, 16 * 8 * 9));
  const int b1 = b.constant("b1", DType::kFloat, {16}, random_values(rng, 16));
  const int w2 = b.constant("w2", DType::kFloat, {8, 16, 3, 3}, random_values(rng, 8 * 16 * 9));
  Chain c;
  c.c1 = b.node("Conv", {x, w1, b1}, DType::kFloat, {2, 16, 10, 9});
  pads_1(b.g);
  c.r = b.node("Relu", {c.c1}, DType::kFloat, {2, 16, 10, 9});
  const int y = b.node("Conv", {c.r, w2}, DType::kFloat, {2, 8, 10, 9});
  pads_1(b.g);
  b.g.outputs = {y};
  if (select) {
    EXPECT_EQ(select_layouts(b.g), 2);
  }
  c.g = std::make_shared<Graph>(std::move(b.g));
  return c;
}

std::vector<float> run(const Chain& c, int64_t* copies) {
  const KernelSet* sets[] = {&dnnl_kernels(), &generic_kernels()};
  auto exe = Executable::compile(c.g, sets);
  for (size_t n = 0; n < c.g->nodes.size(); ++n) {
    if (c.g->nodes[n].op == "Conv") {
      EXPECT_EQ(exe->placement().nodes[n].set, 0);
    }
  }
  std::vector<float> xs(2 * 8 * 10 * 9);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1, 1);
  for (float& v : xs) v = u(rng);
  const Dims shape{2, 8, 10, 9};
  TensorRef in{row_major(DType::kFloat, shape), xs.data(), Device{}};
  const int outputs[] = {0};
  const int64_t before = dnnl_conv_layout_copies();
  const auto out = exe->run({&in, 1}, outputs);
  *copies = dnnl_conv_layout_copies() - before;
  std::vector<float> v(static_cast<size_t>(element_count(out[0].desc)));
  std::memcpy(v.data(), out[0].data(), v.size() * sizeof(float));
  return v;
}

TEST(DnnlConvLayout, ConvReluConvRunsChannelsLastAndMatchesTheRowMajorRun) {
  const Chain plain = conv_relu_conv(false), laid = conv_relu_conv(true);
  const std::vector<int> nhwc{0, 2, 3, 1};
  EXPECT_EQ(laid.g->values[laid.c1].layout, nhwc);
  EXPECT_EQ(laid.g->values[laid.r].layout, nhwc);
  int64_t plain_copies = 0, laid_copies = 0;
  const std::vector<float> want = run(plain, &plain_copies);
  const std::vector<float> got = run(laid, &laid_copies);
  // Row-major: each conv copies its src in and its dst out. Channels-last: only the graph's
  // own input and output (row-major, as the caller gives and takes them) are copied.
  EXPECT_EQ(plain_copies, 4);
  EXPECT_EQ(laid_copies, 2);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-5 * std::max(1.0f, std::abs(want[i]))) << i;
}

}  // namespace
}  // namespace geon::cpu::testing
