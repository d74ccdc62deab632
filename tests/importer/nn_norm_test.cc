// Import rules of the nn family: normalizations and Dropout.
#include <gtest/gtest.h>

#include "tests/importer/nn_test_util.h"

namespace geon {
namespace {

using namespace nn_testing;

GraphBuilder batch_norm(std::vector<Attr> attrs, std::vector<std::string> outputs,
                        const std::vector<Dim>& x = dims({2, 3, 4, 5}), int64_t channels = 3,
                        DType stats = DType::kFloat) {
  GraphBuilder g;
  g.input("x", DType::kFloat, x)
      .input("s", DType::kFloat, dims({channels}))
      .input("b", DType::kFloat, dims({channels}))
      .input("mean", stats, dims({channels}))
      .input("var", stats, dims({channels}))
      .node("BatchNormalization", {"x", "s", "b", "mean", "var"}, outputs, std::move(attrs));
  for (const auto& o : outputs)
    if (!o.empty()) g.output(o);
  return g;
}

TEST(ImportBatchNorm, TrainingOutputsArePerChannelOfXsChannelAxis) {
  const auto m = import_raw(batch_norm({{"training_mode", int64_t{1}}}, {"y", "rm", "rv"},
                                       dims({2, 3, 4, 5}), 3, DType::kDouble),
                            15);
  const Value& x = output_value(m, "x");
  EXPECT_EQ(output_value(m, "y").axes, x.axes);
  const Value& rm = output_value(m, "rm");
  EXPECT_EQ(rm.dtype(), DType::kDouble);  // T2, the type of the input mean
  ASSERT_EQ(rm.rank(), 1);
  EXPECT_TRUE(same_axis(rm.axes[0], x.axes[1]));
  EXPECT_EQ(output_value(m, "rv").axes, rm.axes);
}

TEST(ImportBatchNorm, OpsetDifferences) {
  // Mean and var of another float type: allowed from 14 (U), not before.
  const auto mixed = batch_norm({}, {"y"}, dims({2, 3, 4}), 3, DType::kDouble);
  EXPECT_IMPORT_ERROR(mixed, 9, "input 3 (mean) is double but X is float; they must match");
  EXPECT_EQ(output_value(import_raw(mixed, 14), "y").dtype(), DType::kFloat);
  // 'spatial' until 9, 'training_mode' from 14, 'is_test' until 7.
  EXPECT_EQ(
      static_dims(output_value(
          import_raw(batch_norm({{"spatial", int64_t{1}}, {"is_test", int64_t{1}}}, {"y"}), 6),
          "y")),
      (Ints{2, 3, 4, 5}));
  EXPECT_IMPORT_ERROR(batch_norm({{"spatial", int64_t{1}}}, {"y"}), 9,
                      "attribute 'spatial' was removed in BatchNormalization-9");
  EXPECT_IMPORT_ERROR(batch_norm({{"is_test", int64_t{1}}}, {"y"}), 7,
                      "attribute 'is_test' was removed in BatchNormalization-7");
  EXPECT_IMPORT_ERROR(batch_norm({{"training_mode", int64_t{1}}}, {"y"}), 9,
                      "attribute 'training_mode' came with BatchNormalization-14");
  // Before 14 the optional outputs are mean, var, saved_mean, saved_var.
  const auto m = import_raw(batch_norm({}, {"y", "m", "v", "sm", "sv"}), 9);
  EXPECT_EQ(static_dims(output_value(m, "sv")), (Ints{3}));
  EXPECT_IMPORT_ERROR(batch_norm({}, {"y", "m", "v", "sm", "sv"}), 15,
                      "BatchNormalization has at most 3 outputs, the node has 5");
}

TEST(ImportBatchNorm, MalformedNodesAreRefused) {
  EXPECT_IMPORT_ERROR(batch_norm({}, {"y"}, dims({2, 4, 5}), 3), 15,
                      "input 1 (scale) has 3 entries but X's channel count is 4");
  EXPECT_IMPORT_ERROR(batch_norm({}, {"y", "rm", "rv"}), 15,
                      "outputs running_mean and running_var exist only with training_mode = 1");
  EXPECT_IMPORT_ERROR(batch_norm({}, {"y"}, dims({3}), 3), 15, "input 0 (X) has rank 1");
}

TEST(ImportInstanceNorm, KeepsAxesAndChecksChannels) {
  GraphBuilder g;
  g.input("x", DType::kFloat, dims({2, 3, 4}))
      .input("s", DType::kFloat, dims({3}))
      .input("b", DType::kFloat, dims({2}))
      .node("InstanceNormalization", {"x", "s", "b"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 6, "input 2 (B) has 2 entries but X's channel count is 3");
}

TEST(ImportLayerNorm, MeanAndInvStdDevKeepLeadingAxesInTheStashType) {
  GraphBuilder g;
  g.input("x", DType::kFloat16, {std::string("N"), int64_t{3}, int64_t{4}, int64_t{5}})
      .input("w", DType::kFloat16, dims({4, 5}))
      .node("LayerNormalization", {"x", "w"}, {"y", "mean", "inv"}, {{"axis", int64_t{-2}}})
      .output("y")
      .output("mean")
      .output("inv");
  const auto m = import_raw(g, 17);
  const Value& x = output_value(m, "x");
  EXPECT_EQ(output_value(m, "y").axes, x.axes);
  EXPECT_EQ(output_value(m, "y").dtype(), DType::kFloat16);
  const Value& mean = output_value(m, "mean");
  EXPECT_EQ(mean.dtype(), DType::kFloat);
  ASSERT_EQ(mean.rank(), 4);
  EXPECT_TRUE(same_axis(mean.axes[0], x.axes[0]));
  EXPECT_TRUE(same_axis(mean.axes[1], x.axes[1]));
  EXPECT_EQ(mean.axes[2].length, Length::known(1));
  EXPECT_EQ(mean.axes[3].length, Length::known(1));
  EXPECT_EQ(output_value(m, "inv").axes, mean.axes);
}

TEST(ImportLayerNorm, MalformedNodesAreRefused) {
  GraphBuilder g;
  g.input("x", DType::kFloat, dims({2, 3, 4}))
      .input("w", DType::kFloat, dims({3, 5}))
      .node("LayerNormalization", {"x", "w"}, {"y"}, {{"axis", int64_t{1}}})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 17, "input 1 (Scale) dim 1 has length 5 but X's dim 2 has length 4");
  GraphBuilder axis;
  axis.input("x", DType::kFloat, dims({2, 3}))
      .input("w", DType::kFloat, dims({3}))
      .node("LayerNormalization", {"x", "w"}, {"y"}, {{"axis", int64_t{2}}})
      .output("y");
  EXPECT_IMPORT_ERROR(axis, 17, "axis 2 is out of range for rank 2");
}

TEST(ImportGroupNorm, ScaleIsPerGroupAt18AndPerChannelFrom21) {
  const auto g = [](int64_t scale_len) {
    GraphBuilder b;
    b.input("x", DType::kFloat, dims({3, 4, 2, 2}))
        .input("s", DType::kFloat, dims({scale_len}))
        .input("b", DType::kFloat, dims({scale_len}))
        .node("GroupNormalization", {"x", "s", "b"}, {"y"}, {{"num_groups", int64_t{2}}})
        .output("y");
    return b;
  };
  EXPECT_EQ(static_dims(output_value(import_raw(g(2), 18), "y")), (Ints{3, 4, 2, 2}));
  EXPECT_IMPORT_ERROR(g(2), 21, "input 1 (scale) has 2 entries but X's channel count is 4");
  EXPECT_EQ(static_dims(output_value(import_raw(g(4), 21), "y")), (Ints{3, 4, 2, 2}));
  EXPECT_IMPORT_ERROR(g(4), 18, "input 1 (scale) has 4 entries but attribute 'num_groups' is 2");
}

TEST(ImportRmsNorm, OutputHasXsShapeAndScalesType) {
  GraphBuilder g;
  g.input("x", DType::kFloat, dims({2, 3, 4}))
      .input("s", DType::kFloat16, dims({4}))
      .node("RMSNormalization", {"x", "s"}, {"y"})
      .output("y");
  const auto m = import_raw(g, 23);
  EXPECT_EQ(output_value(m, "y").dtype(), DType::kFloat16);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);
}

TEST(ImportNorm, LrnAndMvnCheckTheirAttributes) {
  const auto unary = [](const std::string& op, std::vector<Attr> attrs) {
    GraphBuilder g;
    g.input("x", DType::kFloat, dims({2, 3, 4, 5}))
        .node(op, {"x"}, {"y"}, std::move(attrs))
        .output("y");
    return g;
  };
  EXPECT_EQ(static_dims(output_value(import_raw(unary("LRN", {{"size", int64_t{3}}}), 13), "y")),
            (Ints{2, 3, 4, 5}));
  EXPECT_IMPORT_ERROR(unary("LRN", {}), 13, "attribute 'size' is required but missing");
  EXPECT_IMPORT_ERROR(unary("MeanVarianceNormalization", {{"axes", Ints{0, 4}}}), 13,
                      "attribute 'axes' entry 4 is out of range for rank 4");
}

// ---- Dropout ----

TEST(ImportDropout, MaskIsOfDataTypeBefore10AndBoolFrom10) {
  GraphBuilder g;
  g.input("x", DType::kFloat, dims({3, 4}))
      .node("Dropout", {"x"}, {"y", "mask"})
      .output("y")
      .output("mask");
  const auto old = import_raw(g, 7);
  EXPECT_EQ(output_value(old, "mask").dtype(), DType::kFloat);
  const auto m = import_raw(g, 10);
  EXPECT_EQ(output_value(m, "mask").dtype(), DType::kBool);
  EXPECT_EQ(output_value(m, "mask").axes, output_value(m, "x").axes);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);
}

TEST(ImportDropout, RatioAndTrainingModeBecameInputsAt12) {
  GraphBuilder g;
  g.input("x", DType::kFloat, dims({3, 4}))
      .initializer("r", DType::kFloat, {}, {0.25})
      .input("t", DType::kBool, {})
      .node("Dropout", {"x", "r", "t"}, {"y", "mask"})
      .output("y")
      .output("mask");
  EXPECT_EQ(static_dims(output_value(import_raw(g, 12), "mask")), (Ints{3, 4}));
  EXPECT_IMPORT_ERROR(g, 11, "Dropout before opset 12 has one input; ratio is an attribute");

  GraphBuilder attr;
  attr.input("x", DType::kFloat, dims({3}))
      .node("Dropout", {"x"}, {"y"}, {{"ratio", 0.5f}})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import_raw(attr, 11), "y")), (Ints{3}));
  EXPECT_IMPORT_ERROR(attr, 12, "attribute 'ratio' is not part of Dropout-12 and later");

  GraphBuilder bad;
  bad.input("x", DType::kFloat, dims({3}))
      .initializer("r", DType::kFloat, {}, {1.5})
      .input("t", DType::kInt32, {})
      .node("Dropout", {"x", "r"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(bad, 13, "input 1 (ratio) is 1.5");
  GraphBuilder mode;
  mode.input("x", DType::kFloat, dims({3}))
      .input("t", DType::kInt32, {})
      .node("Dropout", {"x", "", "t"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(mode, 13, "input 2 (training_mode) has dtype int32; it must be bool");
}

}  // namespace
}  // namespace geon
