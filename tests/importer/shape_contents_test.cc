// Shape computations at import: Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains fold
// when every length is static and carry symbols (dim_param) through otherwise, so the final
// Reshape, Expand or ConstantOfShape gets the input's symbolic lengths. Folds are bounded.
#include "tests/importer/shape_test_util.h"

namespace geon {
namespace {

using namespace shape_tests;

// x[B, 3, 4] -> Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])) = [B, 12].
GraphBuilder batch_flatten(std::vector<Dim> dims) {
  GraphBuilder g;
  g.input("x", DType::kFloat, std::move(dims))
      .initializer("zero", DType::kInt64, {}, {0})
      .initializer("axes0", DType::kInt64, {1}, {0})
      .initializer("minus1", DType::kInt64, {1}, {-1})
      .node("Shape", {"x"}, {"s"})
      .node("Gather", {"s", "zero"}, {"b"}, {i64("axis", 0)})
      .node("Unsqueeze", {"b", "axes0"}, {"b1"})
      .node("Concat", {"b1", "minus1"}, {"shape"}, {i64("axis", 0)})
      .node("Reshape", {"x", "shape"}, {"y"})
      .output("y");
  return g;
}

TEST(ImportShapeContents, SymbolicBatchFlowsThroughGatherConcatReshape) {
  const ImportedModel m = import(batch_flatten({sym("B"), len(3), len(4)}), 13);
  EXPECT_EQ(contents_of(output_value(m, "b")), "B");
  EXPECT_EQ(contents_of(output_value(m, "shape")), "B,-1");
  EXPECT_FALSE(output_value(m, "shape").data);  // a symbol: stays a run-time value
  EXPECT_EQ(shape_of(output_value(m, "y")), "B,12");
}

TEST(ImportShapeContents, StaticChainsFoldToData) {
  const ImportedModel m = import(batch_flatten({len(2), len(3), len(4)}), 13);
  EXPECT_EQ(ints_of(output_value(m, "s")), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(ints_of(output_value(m, "shape")), (std::vector<int64_t>{2, -1}));
  EXPECT_EQ(static_dims(output_value(m, "y")), (std::vector<int64_t>{2, 12}));
}

TEST(ImportShapeContents, ReshapeToAnotherValuesShapeTakesItsSymbols) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {sym("B"), sym("T"), len(8)})
      .input("flat", DType::kFloat, {sym("BT8")})
      .node("Shape", {"x"}, {"s"})
      .node("Reshape", {"flat", "s"}, {"y"})
      .node("ConstantOfShape", {"s"}, {"z"})
      .output("y")
      .output("z");
  const ImportedModel m = import(g, 13);
  EXPECT_EQ(shape_of(output_value(m, "y")), "B,T,8");
  EXPECT_EQ(shape_of(output_value(m, "z")), "B,T,8");
  EXPECT_FALSE(output_value(m, "z").data);
}

TEST(ImportShapeContents, UnknownDimsStayUnknownButKeepTheRank) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {Dim(std::string()), len(3)})  // no dim_param: unknown
      .input("v", DType::kFloat, {len(6)})
      .node("Shape", {"x"}, {"s"})
      .node("Reshape", {"v", "s"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 13);
  EXPECT_EQ(contents_of(output_value(m, "s")), "?,3");
  EXPECT_EQ(shape_of(output_value(m, "y")), "?,3");
}

TEST(ImportShapeContents, IntegerCastsKeepTheEntries) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {sym("B"), len(3)})
      .node("Shape", {"x"}, {"s"})
      .node("Cast", {"s"}, {"s32"}, {i64("to", static_cast<int64_t>(DType::kInt32))})
      .node("Cast", {"s32"}, {"s64"}, {i64("to", static_cast<int64_t>(DType::kInt64))})
      .input("v", DType::kFloat, {len(1), len(3)})
      .node("Expand", {"v", "s64"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 13);
  EXPECT_EQ(contents_of(output_value(m, "s32")), "B,3");
  EXPECT_EQ(shape_of(output_value(m, "y")), "B,3");
}

TEST(ImportShapeContents, WithoutFoldingEntriesStillFlow) {
  ImportOptions opt;
  opt.fold_constants = false;
  const ImportedModel m = import(batch_flatten({len(2), len(3), len(4)}), 13, opt);
  EXPECT_FALSE(output_value(m, "s").data);
  EXPECT_EQ(contents_of(output_value(m, "s")), "2,3,4");
  EXPECT_EQ(static_dims(output_value(m, "y")), (std::vector<int64_t>{2, 12}));
}

TEST(ImportShapeContents, HugeOutputsAreNotFolded) {
  GraphBuilder g;
  g.initializer("one", DType::kFloat, {1}, {1})
      .initializer("big", DType::kInt64, {3}, {1 << 20, 1 << 20, 1 << 20})
      .initializer("rep", DType::kInt64, {1}, {1e12})
      .node("Expand", {"one", "big"}, {"e"})
      .node("Tile", {"one", "rep"}, {"t"})
      .node("ConstantOfShape", {"big"}, {"c"})
      .output("e")
      .output("t")
      .output("c");
  const ImportedModel m = import(g, 13);
  EXPECT_EQ(shape_of(output_value(m, "e")), "1048576,1048576,1048576");
  EXPECT_FALSE(output_value(m, "e").data);
  EXPECT_EQ(shape_of(output_value(m, "t")), "1000000000000");
  EXPECT_FALSE(output_value(m, "t").data);
  EXPECT_FALSE(output_value(m, "c").data);
}

TEST(ImportShapeContents, OverflowingShapesAreErrorsNotCrashes) {
  GraphBuilder g;
  g.initializer("big", DType::kInt64, {3}, {1 << 30, 1 << 30, 1 << 30})
      .node("ConstantOfShape", {"big"}, {"c"})
      .output("c");
  EXPECT_IMPORT_ERROR(g, 13, "has more elements than int64 counts");
}

}  // namespace
}  // namespace geon
