// select_layouts: which values it marks channels-last (runs of 4-D/5-D float intermediates
// touching a convolution, through layout-agnostic nodes) and which it must leave row-major
// (graph inputs and outputs, values read by other ops or nested graphs, runs with no conv).
#include "core/passes/select_layouts.h"

#include <gtest/gtest.h>

#include "tests/core/runtime/executor_fixture.h"

namespace geon {
namespace {

using namespace geon::testing;  // NOLINT

const std::vector<int> kNhwc{0, 2, 3, 1};

TEST(SelectLayouts, ConvReluConvIntermediatesBecomeChannelsLast) {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {1, 3, 8, 8});
  const int w = b.constant("w", float_data({4, 3, 3, 3}, std::vector<float>(108, 0.1f)));
  const int w2 = b.constant("w2", float_data({4, 4, 1, 1}, std::vector<float>(16, 0.1f)));
  const int c1 = b.node("Conv", {x, w}, "c1", DType::kFloat, {1, 4, 6, 6});
  const int r = b.node("Relu", {c1}, "r", DType::kFloat, {1, 4, 6, 6});
  const int y = b.node("Conv", {r, w2}, "y", DType::kFloat, {1, 4, 6, 6});
  b.output(y);
  EXPECT_EQ(select_layouts(b.graph()), 2);
  EXPECT_EQ(b.graph().values[c1].layout, kNhwc);
  EXPECT_EQ(b.graph().values[r].layout, kNhwc);
  for (int v : {x, w, w2, y}) EXPECT_TRUE(b.graph().values[v].layout.empty()) << v;
}

TEST(SelectLayouts, ARunReachesThroughPoolingAndElementwiseNodes) {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {1, 2, 8, 8});
  const int w = b.constant("w", float_data({2, 2, 1, 1}, std::vector<float>(4, 0.5f)));
  const int c = b.node("Conv", {x, w}, "c", DType::kFloat, {1, 2, 8, 8});
  const int p = b.node("MaxPool", {c}, "p", DType::kFloat, {1, 2, 4, 4});
  const int s = b.node("Sigmoid", {p}, "s", DType::kFloat, {1, 2, 4, 4});
  const int m = b.node("Mul", {s, p}, "m", DType::kFloat, {1, 2, 4, 4});
  b.output(b.node("Flatten", {m}, "f", DType::kFloat, {1, 32}));
  // c, p and s form one run with the conv; m is read by Flatten, which wants row-major.
  EXPECT_EQ(select_layouts(b.graph()), 3);
  for (int v : {c, p, s}) EXPECT_EQ(b.graph().values[v].layout, kNhwc) << v;
  EXPECT_TRUE(b.graph().values[m].layout.empty());
}

TEST(SelectLayouts, FiveDimensionalValuesPutChannelsLast) {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {1, 2, 4, 4, 4});
  const int w = b.constant("w", float_data({2, 2, 1, 1, 1}, std::vector<float>(4, 0.5f)));
  const int c = b.node("Conv", {x, w}, "c", DType::kFloat, {1, 2, 4, 4, 4});
  b.output(b.node("Relu", {c}, "y", DType::kFloat, {1, 2, 4, 4, 4}));
  EXPECT_EQ(select_layouts(b.graph()), 1);
  EXPECT_EQ(b.graph().values[c].layout, (std::vector<int>{0, 2, 3, 4, 1}));
}

TEST(SelectLayouts, LeavesRunsWithoutConvAndOtherReadersAlone) {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {1, 2, 4, 4});
  const int a = b.node("Relu", {x}, "a", DType::kFloat, {1, 2, 4, 4});
  const int t = b.node("Tanh", {a}, "t", DType::kFloat, {1, 2, 4, 4});  // no conv in this run
  const int w = b.constant("w", float_data({2, 2, 1, 1}, std::vector<float>(4, 0.5f)));
  const int c = b.node("Conv", {t, w}, "c", DType::kFloat, {1, 2, 4, 4});
  const int r = b.node("Transpose", {c}, "r", DType::kFloat, {1, 4, 4, 2});
  b.output(r);
  b.output(b.node("Relu", {c}, "y", DType::kFloat, {1, 2, 4, 4}));
  // t touches the conv (so a and t join its run); c is also read by Transpose: row-major.
  EXPECT_EQ(select_layouts(b.graph()), 2);
  EXPECT_EQ(b.graph().values[a].layout, kNhwc);
  EXPECT_EQ(b.graph().values[t].layout, kNhwc);
  EXPECT_TRUE(b.graph().values[c].layout.empty());

  ExecBuilder plain;
  const int px = plain.input("x", DType::kFloat, {1, 2, 4, 4});
  const int pa = plain.node("Relu", {px}, "a", DType::kFloat, {1, 2, 4, 4});
  plain.output(plain.node("Tanh", {pa}, "t", DType::kFloat, {1, 2, 4, 4}));
  EXPECT_EQ(select_layouts(plain.graph()), 0);
}

TEST(SelectLayouts, OnlyFloatValuesOfRankFourOrFive) {
  ExecBuilder b;
  const int x = b.input("x", DType::kFloat, {1, 2, 8});
  const int w = b.constant("w", float_data({2, 2, 1}, std::vector<float>(4, 0.5f)));
  const int c = b.node("Conv", {x, w}, "c", DType::kFloat, {1, 2, 8});
  b.output(b.node("Relu", {c}, "y", DType::kFloat, {1, 2, 8}));
  EXPECT_EQ(select_layouts(b.graph()), 0);  // 1-D convolution data has nothing to gain
}

// Quantize/DequantizeLinear join a run only with both their X and Y in it: their fast loop needs
// the two laid out alike, so one side channels-last and the other row-major would send them down
// the slow general path.
TEST(SelectLayouts, TypeConversionsJoinARunOnlyWithBothSides) {
  const auto chain = [](ExecBuilder& b, const std::string& last_op, DType last_type,
                        std::vector<Dim> last) {
    const int x = b.input("x", DType::kFloat, {1, 2, 4, 4});
    const int w = b.constant("w", float_data({2, 2, 1, 1}, std::vector<float>(4, 0.5f)));
    const int s = b.constant("s", float_data({}, {0.1f}));
    const int c = b.node("Conv", {x, w}, "c", DType::kFloat, {1, 2, 4, 4});
    const int q = b.node("QuantizeLinear", {c, s}, "q", DType::kUInt8, {1, 2, 4, 4});
    const int d = b.node("DequantizeLinear", {q, s}, "d", DType::kFloat, {1, 2, 4, 4});
    b.output(b.node(last_op, {d}, "y", last_type, last));
    return std::vector<int>{c, q, d};
  };
  // Conv -> Q -> DQ -> GlobalAveragePool: all three intermediates in the conv's run.
  ExecBuilder pooled;
  const std::vector<int> in_run = chain(pooled, "GlobalAveragePool", DType::kFloat, {1, 2, 1, 1});
  EXPECT_EQ(select_layouts(pooled.graph()), 3);
  for (int v : in_run) EXPECT_EQ(pooled.graph().values[v].layout, kNhwc) << v;
  // ... -> DQ -> Flatten: Flatten wants DQ's Y row-major, so DQ's X stays row-major too, and
  // with it Q's X, the conv's output.
  ExecBuilder flat;
  const std::vector<int> left = chain(flat, "Flatten", DType::kFloat, {1, 32});
  EXPECT_EQ(select_layouts(flat.graph()), 0);
  for (int v : left) EXPECT_TRUE(flat.graph().values[v].layout.empty()) << v;
  // A graph input never changes layout, so the Y of a conversion reading one stays row-major.
  ExecBuilder from_input;
  const int x = from_input.input("x", DType::kFloat, {1, 2, 4, 4});
  const int s = from_input.constant("s", float_data({}, {0.1f}));
  const int w = from_input.constant("w", float_data({2, 2, 1, 1}, std::vector<float>(4, 0.5f)));
  const int q = from_input.node("QuantizeLinear", {x, s}, "q", DType::kUInt8, {1, 2, 4, 4});
  const int d = from_input.node("DequantizeLinear", {q, s}, "d", DType::kFloat, {1, 2, 4, 4});
  from_input.output(from_input.node("Conv", {d, w}, "y", DType::kFloat, {1, 2, 4, 4}));
  EXPECT_EQ(select_layouts(from_input.graph()), 0);
}

}  // namespace
}  // namespace geon
