// Import rules of the reduction family: Reduce*, ArgMax/ArgMin, CumSum/CumProd, TopK, the
// Softmax family and LpNormalization.
#include <gtest/gtest.h>

#include "core/base/error.h"
#include "tests/importer/model_builder.h"

namespace geon {
namespace {

using namespace testing_models;

constexpr int64_t N(int64_t n) { return n; }

std::string import_error(const GraphBuilder& g, int opset) {
  try {
    import(g, opset);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_IMPORT_ERROR(g, opset, text)                               \
  do {                                                                    \
    const std::string msg_ = import_error(g, opset);                      \
    EXPECT_NE(msg_.find(text), std::string::npos) << "message: " << msg_; \
  } while (0)

// ---- Reduce* -------------------------------------------------------------------------------

TEST(ImportReduction, KeptAxesAreTheInputsAndKeptDimsAreNewLengthOneAxes) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {std::string("B"), N(3), N(4)})
      .initializer("axes", DType::kInt64, {1}, {-1})
      .node("ReduceSum", {"x", "axes"}, {"y"})
      .node("ReduceSum", {"x", "axes"}, {"z"}, {{"keepdims", N(0)}})
      .output("y")
      .output("z");
  const ImportedModel m = import(g, 13);
  const Value& x = output_value(m, "x");
  const Value& y = output_value(m, "y");
  ASSERT_EQ(y.rank(), 3);
  EXPECT_TRUE(same_axis(y.axes[0], x.axes[0]));
  EXPECT_TRUE(same_axis(y.axes[1], x.axes[1]));
  EXPECT_EQ(y.axes[2].length, Length::known(1));
  EXPECT_FALSE(same_axis(y.axes[2], x.axes[2]));
  EXPECT_EQ(y.axes[2].cls, x.axes[2].cls);  // still "the axis that was reduced"
  const Value& z = output_value(m, "z");
  EXPECT_EQ(z.axes, Axes({x.axes[0], x.axes[1]}));
}

TEST(ImportReduction, ReduceSumTakesAxesAsAnAttributeBeforeOpset13) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(2), N(3), N(4)})
      .node("ReduceSum", {"x"}, {"y"}, {{"axes", std::vector<int64_t>{0, 2}}})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(g, 11), "y")), (std::vector<int64_t>{1, 3, 1}));
  // From 13 the attribute is gone: axes are input 1.
  EXPECT_IMPORT_ERROR(g, 13, "attribute 'axes' is an input (1) from opset 13");
}

TEST(ImportReduction, OtherReductionsTakeAxesAsAnInputFromOpset18) {
  GraphBuilder attr;
  attr.input("x", DType::kFloat, {N(2), N(3)})
      .node("ReduceMean", {"x"}, {"y"}, {{"axes", std::vector<int64_t>{1}}, {"keepdims", N(0)}})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(attr, 17), "y")), (std::vector<int64_t>{2}));
  GraphBuilder in;
  in.input("x", DType::kFloat, {N(2), N(3)})
      .initializer("axes", DType::kInt64, {1}, {0})
      .node("ReduceMean", {"x", "axes"}, {"y"}, {{"keepdims", N(0)}})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(in, 18), "y")), (std::vector<int64_t>{3}));
}

TEST(ImportReduction, EmptyAxesWithNoopIsTheIdentity) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(2), N(3)})
      .node("ReduceMax", {"x"}, {"y"}, {{"noop_with_empty_axes", N(1)}})
      .node("ReduceMax", {"x"}, {"z"})
      .output("y")
      .output("z");
  const ImportedModel m = import(g, 18);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);
  EXPECT_EQ(static_dims(output_value(m, "z")), (std::vector<int64_t>{1, 1}));
}

TEST(ImportReduction, ComputedAxesKeepTheRankWithKeepdims) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(2), N(3)})
      .input("axes", DType::kInt64, {N(1)})
      .node("ReduceSum", {"x", "axes"}, {"y"})
      .node("ReduceSum", {"x", "axes"}, {"z"}, {{"keepdims", N(0)}})
      .output("y")
      .output("z");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  ASSERT_TRUE(y.rank_known);
  EXPECT_EQ(y.rank(), 2);
  EXPECT_TRUE(y.axes[0].length.is_unknown());
  EXPECT_EQ(output_value(m, "z").rank(), 1);
}

TEST(ImportReduction, AnAxesInputOfLengthZeroIsKnownToBeEmpty) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(3), N(1), N(2)})
      .input("axes", DType::kInt64, {N(0)})
      .node("ReduceSum", {"x", "axes"}, {"y"}, {{"noop_with_empty_axes", N(1)}})
      .node("ReduceSum", {"x", "axes"}, {"z"})
      .output("y")
      .output("z");
  const ImportedModel m = import(g, 13);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);
  EXPECT_EQ(static_dims(output_value(m, "z")), (std::vector<int64_t>{1, 1, 1}));
}

TEST(ImportReduction, ComputedAxesLeaveLengthOneDimsAtOne) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(3), N(1)})
      .input("axes", DType::kInt64, {N(1)})
      .node("ReduceMin", {"x", "axes"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 18);
  const Value& y = output_value(m, "y");
  ASSERT_EQ(y.rank(), 2);
  EXPECT_TRUE(y.axes[0].length.is_unknown());
  EXPECT_EQ(y.axes[1].length, Length::known(1));
}

TEST(ImportReduction, RejectsAxesOutOfRangeOrRepeated) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(2), N(3)})
      .node("ReduceProd", {"x"}, {"y"}, {{"axes", std::vector<int64_t>{2}}})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 13, "axes entry 2 is out of range for rank 2");
  GraphBuilder twice;
  twice.input("x", DType::kFloat, {N(2), N(3)})
      .initializer("axes", DType::kInt64, {2}, {1, -1})
      .node("ReduceL2", {"x", "axes"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(twice, 18, "axes names dim 1 twice");
}

TEST(ImportReduction, ConstantInputsFold) {
  GraphBuilder g;
  g.initializer("x", DType::kInt64, {2, 3}, {1, 2, 3, 4, 5, 6})
      .initializer("axes", DType::kInt64, {1}, {1})
      .node("ReduceSum", {"x", "axes"}, {"y"}, {{"keepdims", N(0)}})
      .output("y");
  const ImportedModel m_y = import(g, 13);
  const Value& y = output_value(m_y, "y");
  ASSERT_TRUE(y.data);
  EXPECT_EQ(y.data->desc.shape, (Dims{2}));
  EXPECT_EQ(element_as_int(*y.data, 0), 6);
  EXPECT_EQ(element_as_int(*y.data, 1), 15);
}

TEST(ImportReduction, ReduceMaxAcceptsBoolFromOpset20) {
  GraphBuilder g;
  g.input("x", DType::kBool, {N(2), N(3)}).node("ReduceMax", {"x"}, {"y"}).output("y");
  EXPECT_IMPORT_ERROR(g, 18, "input 0 has dtype bool, which ReduceMax-18 does not accept");
  EXPECT_EQ(output_value(import(g, 20), "y").dtype(), DType::kBool);
}

// ---- ArgMax / ArgMin ----------------------------------------------------------------------

TEST(ImportReduction, ArgMaxGivesInt64AndDropsOrKeepsTheAxis) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(2), N(3), N(4)})
      .node("ArgMax", {"x"}, {"y"}, {{"axis", N(-2)}, {"keepdims", N(0)}})
      .node("ArgMin", {"x"}, {"z"}, {{"axis", N(1)}})
      .output("y")
      .output("z");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(y.dtype(), DType::kInt64);
  EXPECT_EQ(y.axes, Axes({output_value(m, "x").axes[0], output_value(m, "x").axes[2]}));
  EXPECT_EQ(static_dims(output_value(m, "z")), (std::vector<int64_t>{2, 1, 4}));
}

TEST(ImportReduction, ArgMaxSelectLastIndexNeedsOpset12) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(2)})
      .node("ArgMax", {"x"}, {"y"}, {{"select_last_index", N(1)}})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 11, "attribute 'select_last_index' needs opset 12 or later");
  EXPECT_EQ(import_error(g, 12), "");
}

// ---- CumSum, TopK -----------------------------------------------------------------------

TEST(ImportReduction, CumSumKeepsTheAxesAndChecksTheAxisInput) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(2), N(3)})
      .initializer("axis", DType::kInt32, {}, {-1})
      .node("CumSum", {"x", "axis"}, {"y"}, {{"reverse", N(1)}})
      .output("y");
  const ImportedModel m = import(g, 14);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);
  GraphBuilder bad;
  bad.input("x", DType::kFloat, {N(2), N(3)})
      .initializer("axis", DType::kInt64, {}, {2})
      .node("CumProd", {"x", "axis"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(bad, 26, "input 1 (axis) 2 is out of range for rank 2");
}

TEST(ImportReduction, CumSumTakesFloat16FromOpset14) {
  GraphBuilder g;
  g.input("x", DType::kFloat16, {N(2)})
      .initializer("axis", DType::kInt64, {}, {0})
      .node("CumSum", {"x", "axis"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 13, "input 0 has dtype float16, which CumSum-13 does not accept");
  EXPECT_EQ(import_error(g, 14), "");
}

TEST(ImportReduction, TopKValuesAndIndicesShareTheKAxis) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(3), N(10)})
      .initializer("k", DType::kInt64, {1}, {4})
      .node("TopK", {"x", "k"}, {"v", "i"})
      .output("v")
      .output("i");
  const ImportedModel m = import(g, 11);
  const Value& v = output_value(m, "v");
  const Value& i = output_value(m, "i");
  EXPECT_EQ(static_dims(v), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(i.dtype(), DType::kInt64);
  EXPECT_EQ(v.axes, i.axes);
  EXPECT_TRUE(same_axis(v.axes[0], output_value(m, "x").axes[0]));
}

TEST(ImportReduction, TopKTakesKAsAnAttributeBeforeOpset10) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(5), N(3)})
      .node("TopK", {"x"}, {"v", "i"}, {{"k", N(2)}, {"axis", N(0)}})
      .output("v");
  EXPECT_EQ(static_dims(output_value(import(g, 1), "v")), (std::vector<int64_t>{2, 3}));
  EXPECT_IMPORT_ERROR(g, 10, "input 1 is required but missing");
}

TEST(ImportReduction, TopKRejectsKAboveTheAxisLength) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(3)})
      .initializer("k", DType::kInt64, {1}, {4})
      .node("TopK", {"x", "k"}, {"v", "i"})
      .output("v");
  EXPECT_IMPORT_ERROR(g, 11, "k is 4, more than the 3 entries along axis 0");
}

TEST(ImportReduction, TopKOfAComputedKHasAnUnknownLength) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(3), N(8)})
      .input("k", DType::kInt64, {N(1)})
      .node("TopK", {"x", "k"}, {"v", "i"})
      .output("v");
  const ImportedModel m_v = import(g, 11);
  const Value& v = output_value(m_v, "v");
  ASSERT_EQ(v.rank(), 2);
  EXPECT_TRUE(v.axes[1].length.is_unknown());
}

// ---- Softmax family, LpNormalization ---------------------------------------------------

TEST(ImportReduction, SoftmaxKeepsTheAxes) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(2), N(3)})
      .node("Softmax", {"x"}, {"a"})
      .node("LogSoftmax", {"x"}, {"b"}, {{"axis", N(0)}})
      .node("Hardmax", {"x"}, {"c"})
      .output("a")
      .output("b")
      .output("c");
  const ImportedModel m = import(g, 13);
  for (const char* out : {"a", "b", "c"})
    EXPECT_EQ(output_value(m, out).axes, output_value(m, "x").axes) << out;
}

TEST(ImportReduction, SoftmaxAxisRangeFollowsTheOpset) {
  auto model = [](int64_t axis) {
    GraphBuilder g;
    g.input("x", DType::kFloat, {N(2), N(3)})
        .node("Softmax", {"x"}, {"y"}, {{"axis", axis}})
        .output("y");
    return g;
  };
  // Before 11 the 2-D coercion at axis == rank is well defined ([N] -> [N, 1]).
  EXPECT_EQ(import_error(model(2), 1), "");
  EXPECT_IMPORT_ERROR(model(2), 11, "attribute 'axis' 2 is out of range for rank 2");
  EXPECT_IMPORT_ERROR(model(-3), 13, "attribute 'axis' -3 is out of range for rank 2");
}

TEST(ImportReduction, SoftmaxRejectsIntegerInputs) {
  GraphBuilder g;
  g.input("x", DType::kInt32, {N(2)}).node("Softmax", {"x"}, {"y"}).output("y");
  EXPECT_IMPORT_ERROR(g, 13, "input 0 has dtype int32, which Softmax-13 does not accept");
}

TEST(ImportReduction, LpNormalizationAcceptsOnlyP1AndP2) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {N(2), N(3)})
      .node("LpNormalization", {"x"}, {"y"}, {{"p", N(3)}})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 22, "attribute 'p' is 3, must be 1 or 2");
}

}  // namespace
}  // namespace geon
