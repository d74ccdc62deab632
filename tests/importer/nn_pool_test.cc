// Import rules of the nn family: pooling (MaxPool, AveragePool, LpPool, the global pools,
// MaxUnpool, RoiAlign).
#include <gtest/gtest.h>

#include "tests/importer/nn_test_util.h"

namespace geon {
namespace {

using namespace nn_testing;

GraphBuilder pool(const std::string& op, const std::vector<Dim>& x, std::vector<Attr> attrs,
                  std::vector<std::string> outputs = {"y"}, DType t = DType::kFloat) {
  GraphBuilder g;
  g.input("x", t, x).node(op, {"x"}, outputs, std::move(attrs));
  for (const auto& o : outputs)
    if (!o.empty()) g.output(o);
  return g;
}

Ints pooled(const std::string& op, const std::vector<Dim>& x, std::vector<Attr> attrs,
            int opset = 22) {
  return static_dims(output_value(import_raw(pool(op, x, std::move(attrs)), opset), "y"));
}

TEST(ImportPool, CeilModeRoundsUpAndDropsAWindowStartingInThePadding) {
  const Attr k3{"kernel_shape", Ints{3, 3}};
  const Attr s2{"strides", Ints{2, 2}};
  EXPECT_EQ(pooled("MaxPool", dims({1, 1, 4, 4}), {k3, s2}), (Ints{1, 1, 1, 1}));
  EXPECT_EQ(pooled("MaxPool", dims({1, 1, 4, 4}), {k3, s2, {"ceil_mode", int64_t{1}}}),
            (Ints{1, 1, 2, 2}));
  // ceil((2 - 1) / 2) + 1 = 2, but the second window would start at 2 >= 2 + 0: dropped.
  EXPECT_EQ(pooled("MaxPool", dims({1, 1, 2, 2}),
                   {{"kernel_shape", Ints{1, 1}}, s2, {"ceil_mode", int64_t{1}}}),
            (Ints{1, 1, 1, 1}));
  EXPECT_EQ(
      pooled("AveragePool", dims({1, 3, 2, 2}),
             {k3, {"strides", Ints{3, 3}}, {"pads", Ints{1, 1, 1, 1}}, {"ceil_mode", int64_t{1}}}),
      (Ints{1, 3, 1, 1}));
}

TEST(ImportPool, DilationsWidenTheWindow) {
  EXPECT_EQ(pooled("MaxPool", dims({1, 1, 4, 4}),
                   {{"kernel_shape", Ints{2, 2}}, {"dilations", Ints{2, 2}}}),
            (Ints{1, 1, 2, 2}));
  // (1000 + 20 - (10 * 59 + 1)) / 10 + 1 = 43.
  EXPECT_EQ(pooled("MaxPool", dims({1, 1, 1000, 1000}),
                   {{"kernel_shape", Ints{60, 80}},
                    {"dilations", Ints{10, 10}},
                    {"pads", Ints{10, 20, 10, 20}},
                    {"strides", Ints{10, 10}}},
                   12),
            (Ints{1, 1, 43, 25}));
}

TEST(ImportPool, EachAutoPadMode) {
  const auto with = [](const std::string& mode) {
    return pooled("AveragePool", dims({1, 1, 5, 6}),
                  {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"auto_pad", mode}});
  };
  EXPECT_EQ(with("SAME_UPPER"), (Ints{1, 1, 3, 3}));
  EXPECT_EQ(with("SAME_LOWER"), (Ints{1, 1, 3, 3}));
  EXPECT_EQ(with("VALID"), (Ints{1, 1, 2, 2}));
  EXPECT_EQ(with("NOTSET"), (Ints{1, 1, 2, 2}));
}

TEST(ImportPool, BatchAndChannelAxesAreXsOwn) {
  const auto m = import_raw(pool("LpPool", {std::string("N"), std::string("C"), int64_t{8}},
                                 {{"kernel_shape", Ints{2}}, {"p", int64_t{3}}}),
                            22);
  const Value& x = output_value(m, "x");
  const Value& y = output_value(m, "y");
  EXPECT_TRUE(same_axis(y.axes[0], x.axes[0]));
  EXPECT_TRUE(same_axis(y.axes[1], x.axes[1]));
  EXPECT_EQ(y.axes[2].length, Length::known(7));
}

TEST(ImportMaxPool, IndicesAreInt64WithYsAxesFromOpset8) {
  const auto g = pool("MaxPool", dims({1, 3, 4, 4}),
                      {{"kernel_shape", Ints{2, 2}}, {"storage_order", int64_t{1}}}, {"y", "i"});
  const auto m = import_raw(g, 8);
  const Value& y = output_value(m, "y");
  const Value& i = output_value(m, "i");
  EXPECT_EQ(i.dtype(), DType::kInt64);
  EXPECT_EQ(i.axes, y.axes);
  EXPECT_IMPORT_ERROR(g, 7, "MaxPool before opset 8 has one output");
  EXPECT_IMPORT_ERROR(
      pool("AveragePool", dims({1, 3, 4, 4}), {{"kernel_shape", Ints{2, 2}}}, {"y", "i"}), 22,
      "AveragePool has one output, the node has 2");
}

TEST(ImportMaxPool, OpsetDifferences) {
  const auto dilated = pool("MaxPool", dims({1, 1, 4, 4}),
                            {{"kernel_shape", Ints{2, 2}}, {"dilations", Ints{2, 2}}});
  EXPECT_IMPORT_ERROR(dilated, 9, "attribute 'dilations' is not part of this op version");
  EXPECT_EQ(static_dims(output_value(import_raw(dilated, 10), "y")), (Ints{1, 1, 2, 2}));
  const auto bytes =
      pool("MaxPool", dims({1, 1, 4, 4}), {{"kernel_shape", Ints{2, 2}}}, {"y"}, DType::kUInt8);
  EXPECT_IMPORT_ERROR(bytes, 11, "input 0 (X) has dtype uint8");
  EXPECT_EQ(output_value(import_raw(bytes, 12), "y").dtype(), DType::kUInt8);
}

TEST(ImportAveragePool, CountIncludePadCameWithOpset7AndDilationsWith19) {
  const auto g = pool("AveragePool", dims({1, 1, 4, 4}),
                      {{"kernel_shape", Ints{3, 3}},
                       {"count_include_pad", int64_t{1}},
                       {"pads", Ints{1, 1, 1, 1}}});
  EXPECT_IMPORT_ERROR(g, 6, "attribute 'count_include_pad' is not part of this op version");
  EXPECT_EQ(static_dims(output_value(import_raw(g, 7), "y")), (Ints{1, 1, 4, 4}));
  const auto dilated = pool("AveragePool", dims({1, 1, 5, 5}),
                            {{"kernel_shape", Ints{2, 2}}, {"dilations", Ints{2, 2}}});
  EXPECT_IMPORT_ERROR(dilated, 18, "attribute 'dilations' is not part of this op version");
  EXPECT_EQ(static_dims(output_value(import_raw(dilated, 19), "y")), (Ints{1, 1, 3, 3}));
}

TEST(ImportLpPool, PIsAFloatAtOpset1AndAnIntFrom2) {
  const auto int_p =
      pool("LpPool", dims({1, 1, 4}), {{"kernel_shape", Ints{2}}, {"p", int64_t{2}}});
  EXPECT_IMPORT_ERROR(int_p, 1, "attribute 'p' must be float, got int");
  EXPECT_EQ(static_dims(output_value(import_raw(int_p, 2), "y")), (Ints{1, 1, 3}));
  const auto float_p = pool("LpPool", dims({1, 1, 4}), {{"kernel_shape", Ints{2}}, {"p", 2.0f}});
  EXPECT_EQ(static_dims(output_value(import_raw(float_p, 1), "y")), (Ints{1, 1, 3}));
  EXPECT_IMPORT_ERROR(
      pool("LpPool", dims({1, 1, 4}), {{"kernel_shape", Ints{2}}, {"p", int64_t{0}}}), 18,
      "attribute 'p' is 0; it must be at least 1");
}

TEST(ImportPool, MalformedWindowsAreRefused) {
  EXPECT_IMPORT_ERROR(pool("MaxPool", dims({1, 1, 4, 4}), {{"kernel_shape", Ints{2}}}), 22,
                      "attribute 'kernel_shape' has 1 values but X has 2 spatial dims");
  EXPECT_IMPORT_ERROR(pool("MaxPool", dims({1, 1, 4, 4}), {}), 22,
                      "attribute 'kernel_shape' is required but missing");
  EXPECT_IMPORT_ERROR(
      pool("MaxPool", dims({1, 1, 4, 4}), {{"kernel_shape", Ints{2, 2}}, {"pads", Ints{0, 0}}}), 22,
      "attribute 'pads' has 2 values; it needs 4");
  EXPECT_IMPORT_ERROR(pool("MaxPool", dims({1, 1, 4, 4}),
                           {{"kernel_shape", Ints{2, 2}}, {"ceil_mode", int64_t{2}}}),
                      22, "attribute 'ceil_mode' is 2; it must be 0 or 1");
  EXPECT_IMPORT_ERROR(pool("MaxPool", dims({1, 1, 4, 4}), {{"kernel_shape", Ints{5, 2}}}), 22,
                      "is larger than the padded input length 4");
}

TEST(ImportGlobalPool, SpatialDimsBecomeOne) {
  const auto m = import_raw(
      pool("GlobalAveragePool", {std::string("N"), int64_t{3}, int64_t{5}, int64_t{1}}, {}), 1);
  const Value& x = output_value(m, "x");
  const Value& y = output_value(m, "y");
  EXPECT_TRUE(same_axis(y.axes[0], x.axes[0]));
  EXPECT_TRUE(same_axis(y.axes[1], x.axes[1]));
  EXPECT_EQ(y.axes[2].length, Length::known(1));
  EXPECT_TRUE(same_axis(y.axes[3], x.axes[3]));  // already 1
  EXPECT_EQ(static_dims(output_value(
                import_raw(pool("GlobalLpPool", dims({2, 3, 4}), {{"p", int64_t{3}}}), 2), "y")),
            (Ints{2, 3, 1}));
  EXPECT_IMPORT_ERROR(pool("GlobalMaxPool", dims({3}), {}), 22, "input 0 (X) has rank 1");
}

TEST(ImportMaxUnpool, OutputLengthFromStridesOrFromOutputShape) {
  GraphBuilder g;
  g.input("x", DType::kFloat, dims({1, 1, 2, 2}))
      .input("i", DType::kInt64, dims({1, 1, 2, 2}))
      .node("MaxUnpool", {"x", "i"}, {"y"}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import_raw(g, 11), "y")), (Ints{1, 1, 4, 4}));

  GraphBuilder shaped;
  shaped.input("x", DType::kFloat, dims({1, 1, 2, 2}))
      .input("i", DType::kInt64, dims({1, 1, 2, 2}))
      .initializer("s", DType::kInt64, {4}, {1, 1, 5, 5})
      .node("MaxUnpool", {"x", "i", "s"}, {"y"},
            {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import_raw(shaped, 11), "y")), (Ints{1, 1, 5, 5}));

  GraphBuilder runtime;
  runtime.input("x", DType::kFloat, dims({1, 1, 2, 2}))
      .input("i", DType::kInt64, dims({1, 1, 2, 2}))
      .input("s", DType::kInt64, dims({4}))
      .node("MaxUnpool", {"x", "i", "s"}, {"y"}, {{"kernel_shape", Ints{2, 2}}})
      .output("y");
  const Value& y = output_value(import_raw(runtime, 22), "y");
  ASSERT_EQ(y.rank(), 4);
  EXPECT_EQ(y.axes[1].length, Length::known(1));
  EXPECT_TRUE(y.axes[2].length.is_unknown());

  GraphBuilder bad;
  bad.input("x", DType::kFloat, dims({1, 1, 2, 2}))
      .input("i", DType::kInt32, dims({1, 1, 2, 2}))
      .node("MaxUnpool", {"x", "i"}, {"y"}, {{"kernel_shape", Ints{2, 2}}})
      .output("y");
  EXPECT_IMPORT_ERROR(bad, 11, "input 1 (I) has dtype int32; it must be int64");
}

TEST(ImportRoiAlign, OutputIsRoisByChannelsByTheOutputSize) {
  GraphBuilder g;
  g.input("x", DType::kFloat, dims({1, 3, 10, 10}))
      .input("rois", DType::kFloat, {std::string("R"), int64_t{4}})
      .input("bi", DType::kInt64, {std::string("R")})
      .node("RoiAlign", {"x", "rois", "bi"}, {"y"},
            {{"output_height", int64_t{5}},
             {"output_width", int64_t{4}},
             {"coordinate_transformation_mode", std::string("output_half_pixel")}})
      .output("y");
  const auto m = import_raw(g, 16);
  const Value& y = output_value(m, "y");
  ASSERT_EQ(y.rank(), 4);
  EXPECT_TRUE(same_axis(y.axes[0], output_value(m, "rois").axes[0]));
  EXPECT_TRUE(same_axis(y.axes[1], output_value(m, "x").axes[1]));
  EXPECT_EQ(y.axes[2].length, Length::known(5));
  EXPECT_EQ(y.axes[3].length, Length::known(4));
  EXPECT_IMPORT_ERROR(g, 10, "attribute 'coordinate_transformation_mode' came with RoiAlign-16");
}

TEST(ImportMaxRoiPool, OutputIsRoisByChannelsByThePooledShape) {
  GraphBuilder g;
  g.input("x", DType::kFloat, dims({1, 3, 10, 10}))
      .input("rois", DType::kFloat, {std::string("R"), int64_t{5}})
      .node("MaxRoiPool", {"x", "rois"}, {"y"}, {{"pooled_shape", Ints{2, 3}}})
      .output("y");
  const auto m = import_raw(g, 1);
  const Value& y = output_value(m, "y");
  ASSERT_EQ(y.rank(), 4);
  EXPECT_TRUE(same_axis(y.axes[0], output_value(m, "rois").axes[0]));
  EXPECT_TRUE(same_axis(y.axes[1], output_value(m, "x").axes[1]));
  EXPECT_EQ(y.axes[2].length, Length::known(2));
  EXPECT_EQ(y.axes[3].length, Length::known(3));

  GraphBuilder bad;
  bad.input("x", DType::kFloat, dims({1, 3, 10, 10}))
      .input("rois", DType::kFloat, dims({2, 4}))
      .node("MaxRoiPool", {"x", "rois"}, {"y"}, {{"pooled_shape", Ints{2, 2}}})
      .output("y");
  EXPECT_IMPORT_ERROR(bad, 1, "input 1 (rois) dim 1");
}

}  // namespace
}  // namespace geon
