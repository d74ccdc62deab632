// core/passes/fold_constants with the real CPU kernel sets (so it lives in the binary that links
// them): MatMul of constants against a naive product, chains folded transitively, and what must
// not fold: overridable inputs, outputs above the bounds, random ops, other domains, nested
// graphs, non-host sets, and constants the kernel rejects.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/dtype/scalar.h"
#include "core/graph/tensor_data.h"
#include "core/passes/fold_constants.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/graph_builder.h"

namespace geon {
namespace {

using cpu::testing::Builder;

std::vector<double> values_of(const Value& v) {
  std::vector<double> out;
  for (int64_t i = 0; i < v.data->elements(); ++i) out.push_back(element_as_double(*v.data, i));
  return out;
}

std::vector<double> random_values(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-2, 2);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

const std::vector<const KernelSet*>& cpu_sets() {
  static const std::vector<const KernelSet*> sets = {&cpu::dnnl_kernels(), &cpu::generic_kernels()};
  return sets;
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-7 + 1e-3 * std::abs(want[i])) << "at " << i;
}

TEST(FoldConstants, MatMulOfConstantsMatchesNaiveProduct) {
  Builder b;
  const auto av = random_values(3 * 4, 1), bv = random_values(4 * 5, 2);
  const int a = b.constant("a", DType::kFloat, {3, 4}, av);
  const int w = b.constant("w", DType::kFloat, {4, 5}, bv);
  const int y = b.node("MatMul", {a, w}, DType::kFloat, {3, 5});
  b.g.outputs = {y};
  EXPECT_EQ(fold_constants(b.g, cpu_sets()), 1);
  EXPECT_TRUE(b.g.nodes.empty());
  const Value& v = b.g.value(y);
  EXPECT_EQ(v.kind, ValueKind::kConstant);
  EXPECT_EQ(v.producer, -1);
  ASSERT_TRUE(v.data);
  EXPECT_EQ(v.data->desc.shape, (Dims{3, 5}));
  std::vector<double> want(15, 0.0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 4; ++k) want[i * 5 + j] += av[i * 4 + k] * bv[k * 5 + j];
  expect_near_all(values_of(v), want);
}

// c -> Transpose -> Add(d) -> Relu folds in one pass; Mul with the graph input stays, and its
// producer index follows it to position 0.
TEST(FoldConstants, ChainFoldsTransitivelyAndProducersAreRenumbered) {
  Builder b;
  const auto cv = random_values(6, 3), dv = random_values(6, 4);
  const int x = b.input("x", DType::kFloat, {3, 2});
  const int c = b.constant("c", DType::kFloat, {2, 3}, cv);
  const int d = b.constant("d", DType::kFloat, {3, 2}, dv);
  const int t = b.node("Transpose", {c}, DType::kFloat, {}, false);  // shape left to the kernel
  const int s = b.node("Add", {t, d}, DType::kFloat, {3, 2});
  const int r = b.node("Relu", {s}, DType::kFloat, {3, 2});
  const int m = b.node("Mul", {r, x}, DType::kFloat, {3, 2});
  b.g.outputs = {m};
  EXPECT_EQ(fold_constants(b.g, cpu_sets()), 3);
  ASSERT_EQ(b.g.nodes.size(), 1u);
  EXPECT_EQ(b.g.nodes[0].op, "Mul");
  EXPECT_EQ(b.g.value(m).producer, 0);
  const Value& tv = b.g.value(t);
  ASSERT_TRUE(tv.rank_known);
  EXPECT_EQ(static_lengths(tv.axes), (Dims{3, 2}));
  std::vector<double> want(6);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) want[i * 2 + j] = std::max(0.0, cv[j * 3 + i] + dv[i * 2 + j]);
  expect_near_all(values_of(b.g.value(r)), want);
}

TEST(FoldConstants, OverridableInputBlocksFolding) {
  Builder b;
  const int c = b.constant("c", DType::kFloat, {4}, {-1, 2, -3, 4});
  b.g.value(c).overridable = true;
  b.g.value(c).kind = ValueKind::kInput;
  b.g.inputs.push_back(c);
  const int r = b.node("Relu", {c}, DType::kFloat, {4});
  const int n = b.node("Neg", {r}, DType::kFloat, {4});
  b.g.outputs = {n};
  EXPECT_EQ(fold_constants(b.g, cpu_sets()), 0);
  EXPECT_EQ(b.g.nodes.size(), 2u);
  // Even marked as a constant, an overridable value is a default the run may replace.
  b.g.value(c).kind = ValueKind::kConstant;
  EXPECT_EQ(fold_constants(b.g, cpu_sets()), 0);
  b.g.value(c).overridable = false;
  EXPECT_EQ(fold_constants(b.g, cpu_sets()), 2);
  expect_near_all(values_of(b.g.value(n)), {-0.0, -2, -0.0, -4});
}

TEST(FoldConstants, OutputAndTotalSizeBoundsAreRespected) {
  Builder b;
  const int c = b.constant("c", DType::kFloat, {1000}, random_values(1000, 5));
  const int shape = b.constant("shape", DType::kInt64, {2}, {1000, 1000});
  const int big = b.node("Expand", {c, shape}, DType::kFloat, {1000, 1000});  // 4 MB
  const int small1 = b.node("Neg", {c}, DType::kFloat, {1000});               // 4 KB each
  const int small2 = b.node("Abs", {c}, DType::kFloat, {1000});
  b.g.outputs = {big, small1, small2};
  // 1 MB per output, 6 KB in all: Expand is too big, then one of the small ones fits.
  EXPECT_EQ(fold_constants(b.g, cpu_sets(), 1 << 20, 6000), 1);
  ASSERT_EQ(b.g.nodes.size(), 2u);
  EXPECT_EQ(b.g.nodes[0].op, "Expand");
  EXPECT_EQ(b.g.nodes[1].op, "Abs");
  EXPECT_EQ(b.g.value(big).kind, ValueKind::kIntermediate);
  EXPECT_EQ(b.g.value(small1).kind, ValueKind::kConstant);
  // With room for it, Expand folds too.
  EXPECT_EQ(fold_constants(b.g, cpu_sets(), 8 << 20, 16 << 20), 2);
  EXPECT_TRUE(b.g.nodes.empty());
  EXPECT_EQ(b.g.value(big).data->desc.shape, (Dims{1000, 1000}));
}

// A host set claiming every op, so that only the pass's own rules can refuse a node.
std::unique_ptr<Kernel> zeros_kernel(const Graph&, const Node&) {
  class Zeros : public Kernel {
   public:
    void compute(KernelContext& ctx) const override {
      ctx.output(0, ctx.num_inputs() > 0 ? ctx.input(0).desc.shape : Dims{1});
    }
  };
  return std::make_unique<Zeros>();
}
std::optional<std::string> supports_all(const Graph&, const Node&) { return std::nullopt; }
const KernelEntry kAnything[] = {
    {"", "RandomUniformLike", 1, supports_all, zeros_kernel},
    {"", "Bernoulli", 1, supports_all, zeros_kernel},
    {"", "RandomNormal", 1, supports_all, zeros_kernel},
    {"com.example", "Twice", 1, supports_all, zeros_kernel},
    {"", "If", 1, supports_all, zeros_kernel},
    {"", "Neg", 1, supports_all, zeros_kernel},
};

TEST(FoldConstants, RandomOpsOtherDomainsAndNestedGraphsAreNotFolded) {
  const KernelSet anything{"test.anything", Device{DeviceKind::kHost, 0}, kAnything};
  const std::vector<const KernelSet*> sets = {&anything};
  Builder b;
  const int c = b.constant("c", DType::kFloat, {4}, {1, 2, 3, 4});
  const int cond = b.constant("cond", DType::kBool, {}, {1});
  b.node("RandomUniformLike", {c}, DType::kFloat, {4});
  b.node("Bernoulli", {c}, DType::kFloat, {4});
  b.node("RandomNormal", {}, DType::kFloat, {1});
  b.node("Twice", {c}, DType::kFloat, {4}, true, "com.example");
  b.node("If", {cond}, DType::kFloat, {4});
  Attribute body;
  body.kind = Attribute::Kind::kGraph;
  body.g = std::make_shared<Graph>();
  b.g.nodes.back().attrs["then_branch"] = body;
  EXPECT_EQ(fold_constants(b.g, sets), 0);
  EXPECT_EQ(b.g.nodes.size(), 5u);
  // The same set does fold a plain op, so the refusals above are the pass's.
  b.node("Neg", {c}, DType::kFloat, {4});
  EXPECT_EQ(fold_constants(b.g, sets), 1);
}

TEST(FoldConstants, DeviceSetsAndFailingKernelsLeaveNodesInPlace) {
  const KernelSet device{"test.device", Device{DeviceKind::kCuda, 0}, kAnything};
  const std::vector<const KernelSet*> device_only = {&device};
  Builder b;
  const int c = b.constant("c", DType::kFloat, {2, 3}, random_values(6, 6));
  const int neg = b.node("Neg", {c}, DType::kFloat, {2, 3});
  EXPECT_EQ(fold_constants(b.g, device_only), 0);
  // Reshape to 7 elements fails in the kernel: the node stays for the run to report.
  const int bad_shape = b.constant("bad", DType::kInt64, {1}, {7});
  const int r = b.node("Reshape", {neg, bad_shape}, DType::kFloat, {7});
  EXPECT_EQ(fold_constants(b.g, cpu_sets()), 1);
  ASSERT_EQ(b.g.nodes.size(), 1u);
  EXPECT_EQ(b.g.nodes[0].op, "Reshape");
  EXPECT_EQ(b.g.value(r).producer, 0);
  EXPECT_EQ(b.g.value(neg).kind, ValueKind::kConstant);
}

}  // namespace
}  // namespace geon
