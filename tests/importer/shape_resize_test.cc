// Import rules of the shape family, part 4: Resize (10, 11, 13, 18, 19) and Upsample (1, 7, 9).
#include "tests/importer/shape_test_util.h"

namespace geon {
namespace {

using namespace shape_tests;

TEST(ImportShapeResize, ScalesGiveFloorOfLengthTimesScale) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {sym("N"), len(3), len(5), len(7)})
      .initializer("s", DType::kFloat, {4}, {1, 1, 0.6, 2.5})
      .node("Resize", {"x", "", "s"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 13);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(shape_of(y), "N,3,3,17");
  // Unscaled axes keep their Axis objects; resized ones are new axes of the same class.
  EXPECT_TRUE(same_axis(y.axes[0], output_value(m, "x").axes[0]));
  EXPECT_TRUE(same_axis(y.axes[1], output_value(m, "x").axes[1]));
  EXPECT_EQ(y.axes[2].cls, output_value(m, "x").axes[2].cls);
}

TEST(ImportShapeResize, Opset10TakesScalesAsInput1) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(1), len(1), len(2), len(2)})
      .initializer("s", DType::kFloat, {4}, {1, 1, 2, 3})
      .node("Resize", {"x", "s"}, {"y"})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(g, 10), "y")), (std::vector<int64_t>{1, 1, 4, 6}));
  GraphBuilder cubic;
  cubic.input("x", DType::kFloat, {len(1), len(1), len(2), len(2)})
      .initializer("s", DType::kFloat, {4}, {1, 1, 2, 3})
      .node("Resize", {"x", "s"}, {"y"}, {str("mode", "cubic")})
      .output("y");
  EXPECT_IMPORT_ERROR(cubic, 10, "attribute 'mode' is 'cubic'; expected one of nearest, linear");
}

TEST(ImportShapeResize, SizesFrom11IncludingSymbolicOnes) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(1), len(3), len(4), len(4)})
      .input("like", DType::kFloat, {len(1), len(3), sym("H"), sym("W")})
      .node("Shape", {"like"}, {"sz"})
      .node("Resize", {"x", "", "", "sz"}, {"y"})
      .output("y");
  EXPECT_EQ(shape_of(output_value(import(g, 13), "y")), "1,3,H,W");
  // At 11 roi and scales are required inputs; empty scales with sizes is the usual form.
  GraphBuilder v11;
  v11.input("x", DType::kFloat, {len(1), len(3), len(4), len(4)})
      .initializer("roi", DType::kFloat, {0}, {})
      .initializer("sc", DType::kFloat, {0}, {})
      .initializer("sz", DType::kInt64, {4}, {1, 3, 8, 2})
      .node("Resize", {"x", "roi", "sc", "sz"}, {"y"})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(v11, 11), "y")), (std::vector<int64_t>{1, 3, 8, 2}));
}

TEST(ImportShapeResize, AxesAndKeepAspectRatioFrom18) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(1), len(1), len(4), len(6)})
      .initializer("sz", DType::kInt64, {2}, {2, 2})
      .node("Resize", {"x", "", "", "sz"}, {"y"},
            {ints("axes", {2, 3}), str("keep_aspect_ratio_policy", "not_larger")})
      .node("Resize", {"x", "", "", "sz"}, {"z"},
            {ints("axes", {2, 3}), str("keep_aspect_ratio_policy", "not_smaller")})
      .output("y")
      .output("z");
  const ImportedModel m = import(g, 18);
  // not_larger: scale = min(2/4, 2/6) = 1/3: 4/3 -> 1, 6/3 -> 2.
  EXPECT_EQ(static_dims(output_value(m, "y")), (std::vector<int64_t>{1, 1, 1, 2}));
  // not_smaller: scale = 1/2: 2, 3.
  EXPECT_EQ(static_dims(output_value(m, "z")), (std::vector<int64_t>{1, 1, 2, 3}));
  // Before 18 there are no axes: two sizes for a 4-D input are an error.
  GraphBuilder plain;
  plain.input("x", DType::kFloat, {len(1), len(1), len(4), len(6)})
      .initializer("sz", DType::kInt64, {2}, {2, 2})
      .node("Resize", {"x", "", "", "sz"}, {"y"}, {ints("axes", {2, 3})})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(plain, 18), "y")), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_IMPORT_ERROR(plain, 13, "sizes has 2 entries; expected 4");
}

TEST(ImportShapeResize, HalfPixelSymmetricFrom19) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(1), len(4)})
      .initializer("s", DType::kFloat, {2}, {1, 2})
      .node("Resize", {"x", "", "s"}, {"y"},
            {str("coordinate_transformation_mode", "half_pixel_symmetric")})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(g, 19), "y")), (std::vector<int64_t>{1, 8}));
  EXPECT_IMPORT_ERROR(g, 18,
                      "attribute 'coordinate_transformation_mode' is 'half_pixel_symmetric'");
}

TEST(ImportShapeResize, MalformedTargets) {
  GraphBuilder both;
  both.input("x", DType::kFloat, {len(2)})
      .initializer("s", DType::kFloat, {1}, {2})
      .initializer("z", DType::kInt64, {1}, {4})
      .node("Resize", {"x", "", "s", "z"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(both, 13, "input 2 (scales) and input 3 (sizes) are both given");
  GraphBuilder none;
  none.input("x", DType::kFloat, {len(2)}).node("Resize", {"x"}, {"y"}).output("y");
  EXPECT_IMPORT_ERROR(none, 13, "one of input 2 (scales) and input 3 (sizes) must be given");
  GraphBuilder neg;
  neg.input("x", DType::kFloat, {len(2)})
      .initializer("s", DType::kFloat, {1}, {-1})
      .node("Resize", {"x", "", "s"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(neg, 13, "scales entry 0 is -1.000000; scales must be positive");
  GraphBuilder n;
  n.input("x", DType::kFloat, {len(2), len(2)})
      .initializer("s", DType::kFloat, {1}, {2})
      .node("Resize", {"x", "", "s"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(n, 13, "scales has 1 entries; expected 2");
}

TEST(ImportShapeUpsample, ScalesAttributeAt7InputAt9) {
  GraphBuilder v7;
  v7.input("x", DType::kFloat, {len(1), len(1), len(2), len(3)})
      .node("Upsample", {"x"}, {"y"}, {attr("scales", std::vector<float>{1, 1, 2, 2})})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(v7, 7), "y")), (std::vector<int64_t>{1, 1, 4, 6}));
  GraphBuilder v9;
  v9.input("x", DType::kFloat, {len(1), len(1), len(2), len(3)})
      .initializer("s", DType::kFloat, {4}, {1, 1, 2, 3})
      .node("Upsample", {"x", "s"}, {"y"})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(v9, 9), "y")), (std::vector<int64_t>{1, 1, 4, 9}));
  EXPECT_IMPORT_ERROR(v9, 7, "attribute 'scales' is required but missing");
  GraphBuilder small;
  small.input("x", DType::kFloat, {len(2)})
      .node("Upsample", {"x"}, {"y"}, {attr("scales", std::vector<float>{0.5f})})
      .output("y");
  EXPECT_IMPORT_ERROR(small, 7, "is below 1; Upsample only enlarges");
}

TEST(ImportShapeUpsample, HeightAndWidthScalesAtOpset1) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {len(1), len(1), len(2), len(3)})
      .node("Upsample", {"x"}, {"y"}, {attr("height_scale", 2.0f), attr("width_scale", 3.0f)})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(g, 1), "y")), (std::vector<int64_t>{1, 1, 4, 9}));
}

}  // namespace
}  // namespace geon
