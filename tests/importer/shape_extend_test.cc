// Import rules of the shape family, part 3: Pad, Tile, Expand, ConstantOfShape, Range,
// EyeLike, Trilu, CenterCropPad, DepthToSpace, SpaceToDepth and Col2Im.
#include "tests/importer/shape_test_util.h"

namespace geon {
namespace {

using namespace shape_tests;

// ---- Pad ---------------------------------------------------------------------------------------

TEST(ImportShapePad, AttributesBefore11InputsFrom11) {
  GraphBuilder v2;
  v2.input("x", DType::kFloat, {len(2), len(3)})
      .node("Pad", {"x"}, {"y"}, {ints("pads", {0, 1, 0, 2})})
      .output("y");
  const ImportedModel m = import(v2, 2);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{2, 6}));
  EXPECT_TRUE(same_axis(y.axes[0], output_value(m, "x").axes[0]));  // not padded
  GraphBuilder v1;
  v1.input("x", DType::kFloat, {len(2), len(3)})
      .node("Pad", {"x"}, {"y"}, {ints("paddings", {1, 0, 1, 0})})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(v1, 1), "y")), (std::vector<int64_t>{4, 3}));
  EXPECT_IMPORT_ERROR(v1, 2, "attribute 'pads' is required but missing");
  GraphBuilder v11;
  v11.input("x", DType::kFloat, {len(2), len(3)})
      .initializer("p", DType::kInt64, {4}, {1, 1, 1, 1})
      .node("Pad", {"x", "p"}, {"y"}, {str("mode", "reflect")})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(v11, 11), "y")), (std::vector<int64_t>{4, 5}));
}

TEST(ImportShapePad, AxesFrom18WrapFrom19) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(2), len(3), len(4)})
      .initializer("p", DType::kInt64, {2}, {2, 3})
      .initializer("a", DType::kInt64, {1}, {-1})
      .node("Pad", {"x", "p", "", "a"}, {"y"}, {str("mode", "wrap")})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(g, 19), "y")), (std::vector<int64_t>{2, 3, 9}));
  EXPECT_IMPORT_ERROR(g, 18, "attribute 'mode' is 'wrap'; expected constant, reflect, edge");
}

TEST(ImportShapePad, FoldsConstantModeWithNegativePads) {
  GraphBuilder g;
  g.initializer("x", DType::kInt64, {3}, {1, 2, 3})
      .initializer("p", DType::kInt64, {2}, {-1, 2})
      .initializer("v", DType::kInt64, {}, {9})
      .node("Pad", {"x", "p", "v"}, {"y"})
      .output("y");
  EXPECT_EQ(ints_of(output_value(import(g, 13), "y")), (std::vector<int64_t>{2, 3, 9, 9}));
}

TEST(ImportShapePad, MalformedPads) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(2), len(3)})
      .initializer("p", DType::kInt64, {2}, {1, 1})
      .node("Pad", {"x", "p"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 13, "pads [1, 1] has 2 entries; expected 2 * 2");
  GraphBuilder neg;
  neg.input("x", DType::kFloat, {len(2)})
      .initializer("p", DType::kInt64, {2}, {-2, -1})
      .node("Pad", {"x", "p"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(neg, 13, "make axis 0 of length 2 negative (-1)");
  GraphBuilder mode;
  mode.input("x", DType::kFloat, {len(2)})
      .initializer("p", DType::kInt64, {2}, {1, 1})
      .node("Pad", {"x", "p"}, {"y"}, {str("mode", "mirror")})
      .output("y");
  EXPECT_IMPORT_ERROR(mode, 13, "attribute 'mode' is 'mirror'");
  GraphBuilder value;
  value.input("x", DType::kFloat, {len(2)})
      .initializer("p", DType::kInt64, {2}, {1, 1})
      .initializer("v", DType::kInt64, {}, {1})
      .node("Pad", {"x", "p", "v"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(value, 13, "input 2 (constant_value) is int64 but input 0 is float");
}

// ---- Tile, Expand ------------------------------------------------------------------------------

TEST(ImportShapeTile, RepeatsInputFrom6AxisFormAt1) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {sym("N"), len(3)})
      .initializer("r", DType::kInt64, {2}, {1, 4})
      .node("Tile", {"x", "r"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(shape_of(y), "N,12");
  EXPECT_TRUE(same_axis(y.axes[0], output_value(m, "x").axes[0]));
  GraphBuilder v1;
  v1.input("x", DType::kFloat, {len(2), len(3)})
      .initializer("t", DType::kInt64, {}, {3})
      .initializer("a", DType::kInt64, {}, {0})
      .node("Tile", {"x", "t", "a"}, {"y"})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(v1, 5), "y")), (std::vector<int64_t>{6, 3}));
  GraphBuilder bad;
  bad.input("x", DType::kFloat, {len(2), len(3)})
      .initializer("r", DType::kInt64, {1}, {2})
      .node("Tile", {"x", "r"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(bad, 13, "input 1 (repeats) has 1 entries for an input of rank 2");
}

TEST(ImportShapeTile, FoldsConstants) {
  GraphBuilder g;
  g.initializer("x", DType::kInt64, {2}, {1, 2})
      .initializer("r", DType::kInt64, {1}, {3})
      .node("Tile", {"x", "r"}, {"y"})
      .output("y");
  EXPECT_EQ(ints_of(output_value(import(g, 13), "y")), (std::vector<int64_t>{1, 2, 1, 2, 1, 2}));
}

TEST(ImportShapeExpand, BroadcastsAgainstTheShapeEntries) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(3), len(1)})
      .initializer("s", DType::kInt64, {3}, {2, 1, 6})
      .node("Expand", {"x", "s"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{2, 3, 6}));
  EXPECT_TRUE(same_axis(y.axes[1], output_value(m, "x").axes[0]));
  GraphBuilder bad;
  bad.input("x", DType::kFloat, {len(3)})
      .initializer("s", DType::kInt64, {1}, {4})
      .node("Expand", {"x", "s"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(bad, 13, "cannot be expanded to shape");
}

TEST(ImportShapeExpand, SymbolicShapeEntriesReachTheOutput) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {sym("B"), len(4)})
      .input("v", DType::kFloat, {len(1)})
      .node("Shape", {"x"}, {"s"})
      .node("Expand", {"v", "s"}, {"y"})
      .output("y");
  EXPECT_EQ(shape_of(output_value(import(g, 13), "y")), "B,4");
}

// ---- ConstantOfShape, Range ------------------------------------------------------------------

TEST(ImportShapeConstantOfShape, FillsWithTheValueAndFolds) {
  GraphBuilder g;
  g.initializer("s", DType::kInt64, {2}, {2, 3})
      .node("ConstantOfShape", {"s"}, {"y"}, {Attr::tensor("value", DType::kInt32, {1}, {7})})
      .node("ConstantOfShape", {"s"}, {"z"})
      .output("y")
      .output("z");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(y.dtype(), DType::kInt32);
  EXPECT_EQ(ints_of(y), (std::vector<int64_t>(6, 7)));
  EXPECT_EQ(output_value(m, "z").dtype(), DType::kFloat);
  EXPECT_EQ(doubles_of(output_value(m, "z")), (std::vector<double>(6, 0.0)));
}

TEST(ImportShapeConstantOfShape, HugeShapesAreNotAllocated) {
  GraphBuilder g;
  g.initializer("s", DType::kInt64, {2}, {1 << 30, 1 << 30})
      .node("ConstantOfShape", {"s"}, {"y"})
      .output("y");
  const ImportedModel m_y = import(g, 13);
  const Value& y = output_value(m_y, "y");
  EXPECT_EQ(shape_of(y), "1073741824,1073741824");
  EXPECT_FALSE(y.data);
  GraphBuilder neg;
  neg.initializer("s", DType::kInt64, {1}, {-3}).node("ConstantOfShape", {"s"}, {"y"}).output("y");
  EXPECT_IMPORT_ERROR(neg, 13, "input 0 (shape) has the negative entry -3");
  GraphBuilder two;
  two.initializer("s", DType::kInt64, {1}, {3})
      .node("ConstantOfShape", {"s"}, {"y"}, {Attr::tensor("value", DType::kFloat, {2}, {1, 2})})
      .output("y");
  EXPECT_IMPORT_ERROR(two, 13, "attribute 'value' must hold one element, got 2");
}

TEST(ImportShapeRange, LengthFromConstantsAndSymbolicLimit) {
  GraphBuilder g;
  g.initializer("a", DType::kInt32, {}, {10})
      .initializer("b", DType::kInt32, {}, {4})
      .initializer("d", DType::kInt32, {}, {-2})
      .node("Range", {"a", "b", "d"}, {"y"})
      .output("y");
  const ImportedModel m_y = import(g, 11);
  const Value& y = output_value(m_y, "y");
  EXPECT_EQ(y.dtype(), DType::kInt32);
  EXPECT_EQ(ints_of(y), (std::vector<int64_t>{10, 8, 6}));
  GraphBuilder s;
  s.input("x", DType::kFloat, {sym("T")})
      .node("Shape", {"x"}, {"sx"})
      .initializer("i", DType::kInt64, {}, {0})
      .node("Squeeze", {"sx", "i"}, {"t"})
      .initializer("z", DType::kInt64, {}, {0})
      .initializer("o", DType::kInt64, {}, {1})
      .node("Range", {"z", "t", "o"}, {"y"})
      .output("y");
  // Squeeze with an index input is the Squeeze-13 form.
  EXPECT_EQ(shape_of(output_value(import(s, 13), "y")), "T");
}

TEST(ImportShapeRange, MalformedInputsAndHugeLengths) {
  GraphBuilder z;
  z.initializer("a", DType::kFloat, {}, {0})
      .initializer("b", DType::kFloat, {}, {4})
      .initializer("d", DType::kFloat, {}, {0})
      .node("Range", {"a", "b", "d"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(z, 11, "input 2 (delta) is 0");
  GraphBuilder h;
  h.initializer("a", DType::kInt64, {}, {0})
      .initializer("b", DType::kInt64, {}, {1e15})
      .initializer("d", DType::kInt64, {}, {1})
      .node("Range", {"a", "b", "d"}, {"y"})
      .output("y");
  const ImportedModel m_y = import(h, 11);
  const Value& y = output_value(m_y, "y");
  EXPECT_EQ(shape_of(y), "1000000000000000");
  EXPECT_FALSE(y.data);
  GraphBuilder f16;
  f16.input("a", DType::kFloat16, {})
      .input("b", DType::kFloat16, {})
      .input("d", DType::kFloat16, {})
      .node("Range", {"a", "b", "d"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(f16, 26, "input 0 has dtype float16");
  EXPECT_EQ(output_value(import(f16, 27), "y").dtype(), DType::kFloat16);
  GraphBuilder v;
  v.input("a", DType::kInt64, {len(2)})
      .input("b", DType::kInt64, {})
      .input("d", DType::kInt64, {})
      .node("Range", {"a", "b", "d"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(v, 11, "input 0 (start) must be a scalar");
  // One-element vectors pass, as exporters write them.
  GraphBuilder one;
  one.initializer("a", DType::kInt64, {1}, {0})
      .initializer("b", DType::kInt64, {1}, {3})
      .initializer("d", DType::kInt64, {1}, {1})
      .node("Range", {"a", "b", "d"}, {"y"})
      .output("y");
  EXPECT_EQ(ints_of(output_value(import(one, 11), "y")), (std::vector<int64_t>{0, 1, 2}));
}

// ---- EyeLike, Trilu, CenterCropPad -----------------------------------------------------------

TEST(ImportShapeEyeLike, SameAxesDtypeAttribute) {
  GraphBuilder g;
  g.input("x", DType::kInt32, {len(3), len(4)})
      .node("EyeLike", {"x"}, {"y"}, {i64("dtype", 1), i64("k", 1)})
      .output("y");
  const ImportedModel m = import(g, 9);
  EXPECT_EQ(output_value(m, "y").dtype(), DType::kFloat);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);
  GraphBuilder bad;
  bad.input("x", DType::kInt32, {len(3)}).node("EyeLike", {"x"}, {"y"}).output("y");
  EXPECT_IMPORT_ERROR(bad, 9, "input 0 must be 2-D, got rank 1");
}

TEST(ImportShapeTrilu, FoldsTheLowerTriangle) {
  GraphBuilder g;
  g.initializer("x", DType::kInt64, {2, 3}, {1, 2, 3, 4, 5, 6})
      .node("Trilu", {"x"}, {"y"}, {i64("upper", 0)})
      .output("y");
  EXPECT_EQ(ints_of(output_value(import(g, 14), "y")), (std::vector<int64_t>{1, 0, 0, 4, 5, 0}));
  GraphBuilder bad;
  bad.input("x", DType::kFloat, {len(3)}).node("Trilu", {"x"}, {"y"}).output("y");
  EXPECT_IMPORT_ERROR(bad, 14, "input 0 must have rank >= 2, got 1");
}

TEST(ImportShapeCenterCropPad, CropsAndPadsTheListedAxes) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(5), len(4), len(3)})
      .initializer("s", DType::kInt64, {2}, {3, 6})
      .node("CenterCropPad", {"x", "s"}, {"y"}, {ints("axes", {0, 1})})
      .output("y");
  const ImportedModel m = import(g, 18);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{3, 6, 3}));
  EXPECT_TRUE(same_axis(y.axes[2], output_value(m, "x").axes[2]));
  GraphBuilder bad;
  bad.input("x", DType::kFloat, {len(5), len(4)})
      .initializer("s", DType::kInt64, {1}, {3})
      .node("CenterCropPad", {"x", "s"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(bad, 18, "input 1 (shape) has 1 entries for 2 axes");
}

TEST(ImportShapeCenterCropPad, FoldsAWindow) {
  GraphBuilder g;
  g.initializer("x", DType::kInt64, {4}, {1, 2, 3, 4})
      .initializer("s", DType::kInt64, {1}, {2})
      .initializer("t", DType::kInt64, {1}, {7})
      .node("CenterCropPad", {"x", "s"}, {"y"})
      .node("CenterCropPad", {"x", "t"}, {"z"})
      .output("y")
      .output("z");
  const ImportedModel m = import(g, 18);
  EXPECT_EQ(ints_of(output_value(m, "y")), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(ints_of(output_value(m, "z")), (std::vector<int64_t>{0, 1, 2, 3, 4, 0, 0}));
}

// ---- DepthToSpace, SpaceToDepth, Col2Im ------------------------------------------------------

TEST(ImportShapeDepthToSpace, ShapesModesAndFolding) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {sym("N"), len(8), len(2), len(3)})
      .node("DepthToSpace", {"x"}, {"y"}, {i64("blocksize", 2), str("mode", "CRD")})
      .output("y");
  const ImportedModel m = import(g, 13);
  EXPECT_EQ(shape_of(output_value(m, "y")), "N,2,4,6");
  EXPECT_TRUE(same_axis(output_value(m, "y").axes[0], output_value(m, "x").axes[0]));
}

TEST(ImportShapeDepthToSpace, ModeFrom11AndBadChannels) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(1), len(8), len(2), len(3)})
      .node("DepthToSpace", {"x"}, {"y"}, {i64("blocksize", 2), str("mode", "XYZ")})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 11, "attribute 'mode' is 'XYZ'; expected DCR or CRD");
  EXPECT_EQ(import_error(g, 1), "<no error>");  // no mode before 11: DCR
  GraphBuilder c;
  c.input("x", DType::kFloat, {len(1), len(6), len(2), len(3)})
      .node("DepthToSpace", {"x"}, {"y"}, {i64("blocksize", 2)})
      .output("y");
  EXPECT_IMPORT_ERROR(c, 13, "input 0 has 6 channels, not a multiple of blocksize^2 = 4");
  // DCR on constants: depth-column-row order.
  GraphBuilder f;
  f.initializer("x", DType::kInt64, {1, 4, 1, 1}, {1, 2, 3, 4})
      .node("DepthToSpace", {"x"}, {"y"}, {i64("blocksize", 2)})
      .output("y");
  const ImportedModel m_y = import(f, 13);
  const Value& y = output_value(m_y, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(ints_of(y), (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(ImportShapeSpaceToDepth, ShapesAndErrors) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(1), len(3), len(4), len(6)})
      .node("SpaceToDepth", {"x"}, {"y"}, {i64("blocksize", 2)})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(g, 13), "y")), (std::vector<int64_t>{1, 12, 2, 3}));
  GraphBuilder bad;
  bad.input("x", DType::kFloat, {len(1), len(3), len(5), len(6)})
      .node("SpaceToDepth", {"x"}, {"y"}, {i64("blocksize", 2)})
      .output("y");
  EXPECT_IMPORT_ERROR(bad, 13, "input 0 dim 2 has length 5, not a multiple of blocksize 2");
  GraphBuilder r;
  r.input("x", DType::kFloat, {len(3), len(4), len(6)})
      .node("SpaceToDepth", {"x"}, {"y"}, {i64("blocksize", 2)})
      .output("y");
  EXPECT_IMPORT_ERROR(r, 13, "input 0 must be 4-D (N, C, H, W), got rank 3");
}

TEST(ImportShapeCol2Im, ImageShapeAndBlockCount) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(1), len(5), len(5)})
      .initializer("img", DType::kInt64, {2}, {5, 5})
      .initializer("blk", DType::kInt64, {2}, {1, 5})
      .node("Col2Im", {"x", "img", "blk"}, {"y"})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(g, 18), "y")), (std::vector<int64_t>{1, 1, 5, 5}));
  GraphBuilder bad;
  bad.input("x", DType::kFloat, {len(1), len(5), len(6)})
      .initializer("img", DType::kInt64, {2}, {5, 5})
      .initializer("blk", DType::kInt64, {2}, {1, 5})
      .node("Col2Im", {"x", "img", "blk"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(bad, 18, "input 0 has 6 blocks (dim 2) but image_shape");
  GraphBuilder ch;
  ch.input("x", DType::kFloat, {len(1), len(6), len(5)})
      .initializer("img", DType::kInt64, {2}, {5, 5})
      .initializer("blk", DType::kInt64, {2}, {1, 5})
      .node("Col2Im", {"x", "img", "blk"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(ch, 18, "not a multiple of prod(block_shape) = 5");
  GraphBuilder huge;
  huge.input("x", DType::kFloat, {len(1), len(1), len(5)})
      .initializer("img", DType::kInt64, {2}, {9e18, 9e18})
      .initializer("blk", DType::kInt64, {2}, {1, 1})
      .node("Col2Im", {"x", "img", "blk"}, {"y"}, {ints("dilations", {int64_t{1} << 62, 1})})
      .output("y");
  EXPECT_IMPORT_ERROR(huge, 18, "the number of blocks overflows");
}

}  // namespace
}  // namespace geon
