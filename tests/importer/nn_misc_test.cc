// Import rules of the nn family: NonMaxSuppression, GridSample, AffineGrid and the losses.
#include <gtest/gtest.h>

#include "tests/importer/nn_test_util.h"

namespace geon {
namespace {

using namespace nn_testing;

TEST(ImportNonMaxSuppression, SelectedCountIsKnownOnlyAtRunTime) {
  GraphBuilder g;
  g.input("boxes", DType::kFloat, dims({2, 6, 4}))
      .input("scores", DType::kFloat, dims({2, 1, 6}))
      .input("max", DType::kInt64, dims({1}))
      .node("NonMaxSuppression", {"boxes", "scores", "max"}, {"sel"})
      .output("sel");
  const Value& sel = output_value(import_raw(g, 11), "sel");
  EXPECT_EQ(sel.dtype(), DType::kInt64);
  ASSERT_EQ(sel.rank(), 2);
  EXPECT_TRUE(sel.axes[0].length.is_unknown());
  EXPECT_EQ(sel.axes[1].length, Length::known(3));

  GraphBuilder bad;
  bad.input("boxes", DType::kFloat, dims({2, 6, 4}))
      .input("scores", DType::kFloat, dims({2, 1, 5}))
      .node("NonMaxSuppression", {"boxes", "scores"}, {"sel"})
      .output("sel");
  EXPECT_IMPORT_ERROR(bad, 10, "scores' box count (dim 2) has length 5 but boxes' (dim 1)");
}

GraphBuilder grid_sample(const std::vector<Dim>& x, const std::vector<Dim>& grid,
                         std::vector<Attr> attrs = {}) {
  GraphBuilder g;
  g.input("x", DType::kFloat, x)
      .input("grid", DType::kFloat, grid)
      .node("GridSample", {"x", "grid"}, {"y"}, std::move(attrs))
      .output("y");
  return g;
}

TEST(ImportGridSample, OutputSpatialAxesAreTheGrids) {
  const auto m = import_raw(grid_sample(dims({1, 3, 4, 4}), dims({1, 6, 5, 2})), 16);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(static_dims(y), (Ints{1, 3, 6, 5}));
  EXPECT_TRUE(same_axis(y.axes[1], output_value(m, "x").axes[1]));
  EXPECT_TRUE(same_axis(y.axes[2], output_value(m, "grid").axes[1]));
}

TEST(ImportGridSample, VolumetricInputsAndLinearModeCameWithOpset20) {
  const auto volume = grid_sample(dims({1, 3, 4, 4, 4}), dims({1, 2, 3, 5, 3}));
  EXPECT_IMPORT_ERROR(volume, 16, "input 0 (X) has rank 5; it must have rank 4");
  EXPECT_EQ(static_dims(output_value(import_raw(volume, 20), "y")), (Ints{1, 3, 2, 3, 5}));
  const auto linear =
      grid_sample(dims({1, 3, 4, 4}), dims({1, 6, 5, 2}), {{"mode", std::string("linear")}});
  EXPECT_IMPORT_ERROR(linear, 16, "attribute 'mode' is 'linear'; it must be bilinear");
  EXPECT_EQ(static_dims(output_value(import_raw(linear, 20), "y")), (Ints{1, 3, 6, 5}));
  EXPECT_IMPORT_ERROR(grid_sample(dims({1, 3, 4, 4}), dims({1, 6, 5, 3})), 20,
                      "input 1 (grid) last dim has length 3 but the number of spatial dims has "
                      "length 2");
}

TEST(ImportAffineGrid, ConstantSizeGivesTheGridShape) {
  GraphBuilder g;
  g.input("theta", DType::kFloat, dims({2, 2, 3}))
      .initializer("size", DType::kInt64, {4}, {2, 3, 5, 6})
      .node("AffineGrid", {"theta", "size"}, {"grid"})
      .output("grid");
  const auto m = import_raw(g, 20);
  const Value& grid = output_value(m, "grid");
  EXPECT_EQ(static_dims(grid), (Ints{2, 5, 6, 2}));
  EXPECT_TRUE(same_axis(grid.axes[0], output_value(m, "theta").axes[0]));

  GraphBuilder runtime;
  runtime.input("theta", DType::kFloat, dims({2, 3, 4}))
      .input("size", DType::kInt64, dims({5}))
      .node("AffineGrid", {"theta", "size"}, {"grid"})
      .output("grid");
  const Value& g3 = output_value(import_raw(runtime, 20), "grid");
  ASSERT_EQ(g3.rank(), 5);
  EXPECT_EQ(g3.axes[4].length, Length::known(3));

  GraphBuilder bad;
  bad.input("theta", DType::kFloat, dims({2, 2, 3}))
      .input("size", DType::kInt64, dims({5}))
      .node("AffineGrid", {"theta", "size"}, {"grid"})
      .output("grid");
  EXPECT_IMPORT_ERROR(bad, 20,
                      "input 0 (theta) dim 1 has length 2 but the number of spatial dims "
                      "has length 3");
}

GraphBuilder loss(const std::string& op, const std::vector<Dim>& x, const std::vector<Dim>& t,
                  std::vector<Attr> attrs, std::vector<std::string> outputs = {"loss"},
                  DType target = DType::kInt64) {
  GraphBuilder g;
  g.input("x", DType::kFloat, x)
      .input("t", target, t)
      .node(op, {"x", "t"}, outputs, std::move(attrs));
  for (const auto& o : outputs) g.output(o);
  return g;
}

TEST(ImportLoss, ReductionNoneKeepsTheTargetsAxesOthersGiveAScalar) {
  const auto m = import_raw(loss("NegativeLogLikelihoodLoss", dims({3, 5, 2}), dims({3, 2}),
                                 {{"reduction", std::string("none")}}),
                            13);
  EXPECT_EQ(output_value(m, "loss").axes, output_value(m, "t").axes);
  const Value& mean = output_value(
      import_raw(loss("NegativeLogLikelihoodLoss", dims({3, 5}), dims({3}), {}), 22), "loss");
  EXPECT_EQ(mean.rank(), 0);
  EXPECT_TRUE(mean.rank_known);
}

TEST(ImportLoss, SoftmaxCrossEntropyLogProbHasTheScoresAxes) {
  const auto m = import_raw(loss("SoftmaxCrossEntropyLoss", dims({3, 5, 2, 7}), dims({3, 2, 7}),
                                 {{"reduction", std::string("sum")}}, {"loss", "log_prob"}),
                            13);
  EXPECT_EQ(output_value(m, "loss").rank(), 0);
  EXPECT_EQ(output_value(m, "log_prob").axes, output_value(m, "x").axes);
}

TEST(ImportLoss, MalformedNodesAreRefused) {
  EXPECT_IMPORT_ERROR(loss("NegativeLogLikelihoodLoss", dims({3, 5, 2}), dims({3}), {}), 13,
                      "input 1 (target) has rank 1 but input has rank 3; it must be one less");
  EXPECT_IMPORT_ERROR(loss("NegativeLogLikelihoodLoss", dims({3, 5, 2}), dims({3, 4}), {}), 13,
                      "input 1 (target) dim 1 has length 4 but dim 2 of input has length 2");
  EXPECT_IMPORT_ERROR(
      loss("SoftmaxCrossEntropyLoss", dims({3, 5}), dims({3}), {{"reduction", std::string("max")}}),
      13, "attribute 'reduction' is 'max'");
  EXPECT_IMPORT_ERROR(
      loss("SoftmaxCrossEntropyLoss", dims({3, 5}), dims({3}), {}, {"loss"}, DType::kFloat), 13,
      "input 1 (labels) has dtype float; it must be int32 or int64");
}

}  // namespace
}  // namespace geon
