// Import rules of the shape family, part 2: Concat, Split and Slice.
#include "tests/importer/shape_test_util.h"

namespace geon {
namespace {

using namespace shape_tests;

// ---- Concat ------------------------------------------------------------------------------------

TEST(ImportShapeConcat, SumsTheAxisAndKeepsTheOthers) {
  GraphBuilder g;
  g.input("a", DType::kFloat, {sym("N"), len(2)})
      .input("b", DType::kFloat, {sym("N"), len(3)})
      .node("Concat", {"a", "b"}, {"y"}, {i64("axis", -1)})
      .output("y");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(shape_of(y), "N,5");
  EXPECT_TRUE(same_axis(y.axes[0], output_value(m, "a").axes[0]));
  EXPECT_EQ(y.axes[1].cls, output_value(m, "a").axes[1].cls);
}

TEST(ImportShapeConcat, TakesTheBestKnownLengthOfTheOtherDims) {
  GraphBuilder g;
  g.input("a", DType::kFloat, {sym("N"), len(2)})
      .input("b", DType::kFloat, {len(4), len(2)})
      .node("Concat", {"a", "b"}, {"y"}, {i64("axis", 1)})
      .output("y");
  const ImportedModel m = import(g, 13);
  EXPECT_TRUE(same_axis(output_value(m, "y").axes[0], output_value(m, "b").axes[0]));
}

TEST(ImportShapeConcat, AxisDefaultsTo1AtOpset1AndIsRequiredFrom4) {
  GraphBuilder g;
  g.input("a", DType::kFloat, {len(2), len(2)})
      .input("b", DType::kFloat, {len(2), len(3)})
      .node("Concat", {"a", "b"}, {"y"})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(g, 1), "y")), (std::vector<int64_t>{2, 5}));
  EXPECT_IMPORT_ERROR(g, 4, "attribute 'axis' is required but missing");
  GraphBuilder neg;
  neg.input("a", DType::kFloat, {len(2)})
      .input("b", DType::kFloat, {len(3)})
      .node("Concat", {"a", "b"}, {"y"}, {i64("axis", -1)})
      .output("y");
  // Negative axes are documented from 11 but accepted before, as exported models use them.
  EXPECT_EQ(static_dims(output_value(import(neg, 4), "y")), (std::vector<int64_t>{5}));
}

TEST(ImportShapeConcat, MismatchedInputs) {
  GraphBuilder g;
  g.input("a", DType::kFloat, {len(2), len(2)})
      .input("b", DType::kFloat, {len(3), len(3)})
      .node("Concat", {"a", "b"}, {"y"}, {i64("axis", 1)})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 13, "input 1 has length 3 at dim 0 but an earlier input has 2");
  GraphBuilder r;
  r.input("a", DType::kFloat, {len(2), len(2)})
      .input("b", DType::kFloat, {len(2)})
      .node("Concat", {"a", "b"}, {"y"}, {i64("axis", 0)})
      .output("y");
  EXPECT_IMPORT_ERROR(r, 13, "input 1 has rank 1 but the earlier inputs have rank 2");
  GraphBuilder t;
  t.input("a", DType::kFloat, {len(2)})
      .input("b", DType::kInt64, {len(2)})
      .node("Concat", {"a", "b"}, {"y"}, {i64("axis", 0)})
      .output("y");
  EXPECT_IMPORT_ERROR(t, 13, "input 1 is int64 but input 0 is float");
  GraphBuilder ax;
  ax.input("a", DType::kFloat, {len(2)}).node("Concat", {"a"}, {"y"}, {i64("axis", 1)}).output("y");
  EXPECT_IMPORT_ERROR(ax, 13, "axis 1 is out of range for rank 1");
}

TEST(ImportShapeConcat, FoldsConstants) {
  GraphBuilder g;
  g.initializer("a", DType::kInt64, {2, 1}, {1, 2})
      .initializer("b", DType::kInt64, {2, 2}, {3, 4, 5, 6})
      .node("Concat", {"a", "b"}, {"y"}, {i64("axis", 1)})
      .output("y");
  EXPECT_EQ(ints_of(output_value(import(g, 13), "y")), (std::vector<int64_t>{1, 3, 4, 2, 5, 6}));
}

// ---- Split -------------------------------------------------------------------------------------

TEST(ImportShapeSplit, EqualPartsKeepTheOtherAxes) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {sym("N"), len(6)})
      .node("Split", {"x"}, {"a", "b", "c"}, {i64("axis", 1)})
      .output("a")
      .output("b")
      .output("c");
  const ImportedModel m = import(g, 13);
  EXPECT_EQ(shape_of(output_value(m, "c")), "N,2");
  EXPECT_TRUE(same_axis(output_value(m, "a").axes[0], output_value(m, "x").axes[0]));
  GraphBuilder uneven;
  uneven.input("x", DType::kFloat, {len(5)})
      .node("Split", {"x"}, {"a", "b"})
      .output("a")
      .output("b");
  EXPECT_IMPORT_ERROR(uneven, 13, "axis 0 of length 5 does not split evenly into 2 outputs");
}

TEST(ImportShapeSplit, SplitAttributeBefore13InputFrom13) {
  GraphBuilder attr_form;
  attr_form.input("x", DType::kFloat, {len(5)})
      .node("Split", {"x"}, {"a", "b"}, {ints("split", {2, 3})})
      .output("a")
      .output("b");
  const ImportedModel m = import(attr_form, 11);
  EXPECT_EQ(static_dims(output_value(m, "b")), (std::vector<int64_t>{3}));
  GraphBuilder input_form;
  input_form.input("x", DType::kFloat, {len(5)})
      .initializer("s", DType::kInt64, {2}, {4, 1})
      .node("Split", {"x", "s"}, {"a", "b"})
      .output("a")
      .output("b");
  EXPECT_EQ(static_dims(output_value(import(input_form, 13), "a")), (std::vector<int64_t>{4}));
  EXPECT_IMPORT_ERROR(input_form, 11, "input 1 (split) is an input only in opset 1 and from");
}

TEST(ImportShapeSplit, NumOutputsFromOpset18WithASmallerLastChunk) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(7)})
      .node("Split", {"x"}, {"a", "b", "c"}, {i64("num_outputs", 3)})
      .output("a")
      .output("b")
      .output("c");
  const ImportedModel m = import(g, 18);
  EXPECT_EQ(static_dims(output_value(m, "a")), (std::vector<int64_t>{3}));
  EXPECT_EQ(static_dims(output_value(m, "c")), (std::vector<int64_t>{1}));
  // 5 into 4 chunks of 2 leaves -1 for the last: the node cannot run, but it may sit in an If
  // branch never taken, so that is for run time; the lengths are unknown.
  GraphBuilder odd;
  odd.input("x", DType::kFloat, {len(5)})
      .node("Split", {"x"}, {"a", "b", "c", "d"}, {i64("num_outputs", 4)})
      .output("d");
  EXPECT_EQ(shape_of(output_value(import(odd, 18), "d")), "?");
  GraphBuilder none;
  none.input("x", DType::kFloat, {len(6)}).node("Split", {"x"}, {"a", "b"}).output("a").output("b");
  EXPECT_IMPORT_ERROR(none, 18, "either input 1 (split) or attribute 'num_outputs' is required");
  GraphBuilder wrong;
  wrong.input("x", DType::kFloat, {len(6)})
      .node("Split", {"x"}, {"a", "b"}, {i64("num_outputs", 3)})
      .output("a")
      .output("b");
  EXPECT_IMPORT_ERROR(wrong, 18, "attribute 'num_outputs' is 3 but the node has 2 outputs");
}

TEST(ImportShapeSplit, SizesMustMatchTheAxis) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(5)})
      .node("Split", {"x"}, {"a", "b"}, {ints("split", {2, 2})})
      .output("a")
      .output("b");
  EXPECT_IMPORT_ERROR(g, 11, "split [2, 2] sums to 4 but axis 0 has length 5");
  GraphBuilder n;
  n.input("x", DType::kFloat, {len(5)})
      .node("Split", {"x"}, {"a", "b"}, {ints("split", {5})})
      .output("a")
      .output("b");
  EXPECT_IMPORT_ERROR(n, 11, "split [5] has 1 entries for 2 outputs");
}

TEST(ImportShapeSplit, FoldsConstantsAndShapeEntries) {
  GraphBuilder g;
  g.initializer("x", DType::kInt64, {4}, {1, 2, 3, 4})
      .input("v", DType::kFloat, {sym("N"), len(3), len(4)})
      .node("Split", {"x"}, {"a", "b"}, {ints("split", {1, 3})})
      .node("Shape", {"v"}, {"s"})
      .node("Split", {"s"}, {"p", "q"}, {ints("split", {1, 2})})
      .output("a")
      .output("b")
      .output("p")
      .output("q");
  const ImportedModel m = import(g, 11);
  EXPECT_EQ(ints_of(output_value(m, "b")), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(contents_of(output_value(m, "p")), "N");
  EXPECT_EQ(ints_of(output_value(m, "q")), (std::vector<int64_t>{3, 4}));
}

// ---- Slice -------------------------------------------------------------------------------------

TEST(ImportShapeSlice, AttributesBefore10InputsFrom10) {
  GraphBuilder attr_form;
  attr_form.input("x", DType::kFloat, {len(4), len(10)})
      .node("Slice", {"x"}, {"y"}, {ints("starts", {1}), ints("ends", {1000}), ints("axes", {1})})
      .output("y");
  const ImportedModel m = import(attr_form, 9);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{4, 9}));
  EXPECT_TRUE(same_axis(y.axes[0], output_value(m, "x").axes[0]));
  GraphBuilder input_form;
  input_form.input("x", DType::kFloat, {len(4), len(10)})
      .initializer("b", DType::kInt64, {2}, {0, -3})
      .initializer("e", DType::kInt64, {2}, {2, 1000})
      .node("Slice", {"x", "b", "e"}, {"y"})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(input_form, 10), "y")), (std::vector<int64_t>{2, 3}));
}

TEST(ImportShapeSlice, NegativeStepsAndClamping) {
  GraphBuilder g;
  g.initializer("x", DType::kInt64, {5}, {0, 1, 2, 3, 4})
      .initializer("b", DType::kInt64, {1}, {100})
      .initializer("e", DType::kInt64, {1}, {-100})
      .initializer("a", DType::kInt64, {1}, {0})
      .initializer("s", DType::kInt64, {1}, {-2})
      .node("Slice", {"x", "b", "e", "a", "s"}, {"y"})
      .output("y");
  const ImportedModel m_y = import(g, 13);
  const Value& y = output_value(m_y, "y");
  EXPECT_EQ(ints_of(y), (std::vector<int64_t>{4, 2, 0}));
}

TEST(ImportShapeSlice, ExtremeStartsEndsAndStepsDoNotOverflow) {
  GraphBuilder g;
  g.initializer("x", DType::kInt64, {5}, {0, 1, 2, 3, 4})
      .initializer("b", DType::kInt64, {2}, {9.2e18, -9.2e18})
      .initializer("e", DType::kInt64, {2}, {-9.2e18, 9.2e18})
      .initializer("a", DType::kInt64, {2}, {0, 0})
      .initializer("s", DType::kInt64, {2}, {-9.2e18, 9.2e18})
      .node("Slice", {"x", "b", "e", "a"}, {"unused"})
      .initializer("b1", DType::kInt64, {1}, {9.2e18})
      .initializer("e1", DType::kInt64, {1}, {-9.2e18})
      .initializer("a1", DType::kInt64, {1}, {0})
      .initializer("s1", DType::kInt64, {1}, {-9.2e18})
      .node("Slice", {"x", "b1", "e1", "a1", "s1"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 13, "axes [0, 0] names axis 0 twice");
  GraphBuilder one;
  one.initializer("x", DType::kInt64, {5}, {0, 1, 2, 3, 4})
      .initializer("b1", DType::kInt64, {1}, {9.2e18})
      .initializer("e1", DType::kInt64, {1}, {-9.2e18})
      .initializer("a1", DType::kInt64, {1}, {0})
      .initializer("s1", DType::kInt64, {1}, {-9.2e18})
      .node("Slice", {"x", "b1", "e1", "a1", "s1"}, {"y"})
      .output("y");
  EXPECT_EQ(ints_of(output_value(import(one, 13), "y")), (std::vector<int64_t>{4}));
}

TEST(ImportShapeSlice, SymbolicLengthsSurviveAWholeRange) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {sym("N"), sym("T")})
      .initializer("b", DType::kInt64, {2}, {0, 1})
      .initializer("e", DType::kInt64, {2}, {2147483647, 2147483647})
      .node("Slice", {"x", "b", "e"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(shape_of(y), "N,?");
  EXPECT_TRUE(same_axis(y.axes[0], output_value(m, "x").axes[0]));
}

TEST(ImportShapeSlice, UnknownStartsGiveUnknownLengthsOnTheCutAxes) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(4), len(10)})
      .input("b", DType::kInt64, {len(1)})
      .input("e", DType::kInt64, {len(1)})
      .initializer("a", DType::kInt64, {1}, {1})
      .node("Slice", {"x", "b", "e", "a"}, {"y"})
      .output("y");
  EXPECT_EQ(shape_of(output_value(import(g, 13), "y")), "4,?");
}

TEST(ImportShapeSlice, MalformedParameters) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(4)})
      .initializer("b", DType::kInt64, {1}, {0})
      .initializer("e", DType::kInt64, {2}, {1, 2})
      .node("Slice", {"x", "b", "e"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 13, "ends has 2 entries but starts has 1");
  GraphBuilder z;
  z.input("x", DType::kFloat, {len(4)})
      .initializer("b", DType::kInt64, {1}, {0})
      .initializer("e", DType::kInt64, {1}, {2})
      .initializer("a", DType::kInt64, {1}, {0})
      .initializer("s", DType::kInt64, {1}, {0})
      .node("Slice", {"x", "b", "e", "a", "s"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(z, 13, "steps entry 0 is 0");
  GraphBuilder ax;
  ax.input("x", DType::kFloat, {len(4)})
      .initializer("b", DType::kInt64, {1}, {0})
      .initializer("e", DType::kInt64, {1}, {2})
      .initializer("a", DType::kInt64, {1}, {-1})
      .node("Slice", {"x", "b", "e", "a"}, {"y"})
      .output("y");
  EXPECT_EQ(import_error(ax, 10), "<no error>");
  GraphBuilder far;
  far.input("x", DType::kFloat, {len(4)})
      .initializer("b", DType::kInt64, {1}, {0})
      .initializer("e", DType::kInt64, {1}, {2})
      .initializer("a", DType::kInt64, {1}, {-2})
      .node("Slice", {"x", "b", "e", "a"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(far, 13, "axes [-2]: -2 is out of range for rank 1");
}

TEST(ImportShapeSlice, SlicesShapeEntries) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {sym("B"), sym("T"), len(8)})
      .node("Shape", {"x"}, {"s"})
      .node("Slice", {"s"}, {"y"}, {ints("starts", {0}), ints("ends", {2})})
      .output("y");
  const ImportedModel m_y = import(g, 9);
  const Value& y = output_value(m_y, "y");
  EXPECT_EQ(contents_of(y), "B,T");
}

}  // namespace
}  // namespace geon
