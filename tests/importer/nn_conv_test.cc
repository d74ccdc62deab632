// Import rules of the nn family: Conv, ConvTranspose, DeformConv, CausalConvWithState.
#include <gtest/gtest.h>

#include "tests/importer/nn_test_util.h"

namespace geon {
namespace {

using namespace nn_testing;

// Conv of x (dims) with weights w (dims) and the given attributes, imported at `opset`.
GraphBuilder conv(const std::vector<Dim>& x, const std::vector<Dim>& w, std::vector<Attr> attrs,
                  const std::string& op = "Conv", DType t = DType::kFloat) {
  GraphBuilder g;
  g.input("x", t, x).input("w", t, w).node(op, {"x", "w"}, {"y"}, std::move(attrs)).output("y");
  return g;
}

TEST(ImportConv, ExplicitPadsStridesAndDilationsFollowTheFloorFormula) {
  // H: (10 + 1 + 1 - ((3 - 1) * 2 + 1)) / 2 + 1 = 4; W: (12 + 2 + 0 - 3) / 3 + 1 = 4.
  const auto m = import_raw(
      conv(dims({1, 3, 10, 12}), dims({8, 3, 3, 3}),
           {{"pads", Ints{1, 2, 1, 0}}, {"strides", Ints{2, 3}}, {"dilations", Ints{2, 1}}}),
      22);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(y.dtype(), DType::kFloat);
  EXPECT_EQ(static_dims(y), (Ints{1, 8, 4, 4}));
}

TEST(ImportConv, EachAutoPadModeGivesOnnxsOutputLength) {
  const auto length = [](const std::string& mode) {
    const auto m = import_raw(
        conv(dims({1, 1, 7, 8}), dims({1, 1, 3, 3}), {{"auto_pad", mode}, {"strides", Ints{2, 2}}}),
        11);
    return static_dims(output_value(m, "y"));
  };
  EXPECT_EQ(length("SAME_UPPER"), (Ints{1, 1, 4, 4}));  // ceil(7 / 2), ceil(8 / 2)
  EXPECT_EQ(length("SAME_LOWER"), (Ints{1, 1, 4, 4}));
  EXPECT_EQ(length("VALID"), (Ints{1, 1, 3, 3}));   // floor((7 - 3) / 2) + 1, (8 - 3) / 2 + 1
  EXPECT_EQ(length("NOTSET"), (Ints{1, 1, 3, 3}));  // pads 0
}

TEST(ImportConv, BatchAxisIsXsAndChannelsAreANewAxis) {
  const auto m = import_raw(conv({std::string("N"), int64_t{3}, std::string("H"), int64_t{9}},
                                 dims({4, 3, 3, 3}), {{"pads", Ints{1, 1, 1, 1}}}),
                            17);
  const Value& x = output_value(m, "x");
  const Value& y = output_value(m, "y");
  ASSERT_EQ(y.rank(), 4);
  EXPECT_TRUE(same_axis(y.axes[0], x.axes[0]));
  EXPECT_EQ(y.axes[0].length, Length::symbolic("N"));
  EXPECT_FALSE(same_axis(y.axes[1], x.axes[1]));
  EXPECT_EQ(y.axes[1].length, Length::known(4));
  // Stride 1 with pads covering the window keeps the spatial axes themselves.
  EXPECT_TRUE(same_axis(y.axes[2], x.axes[2]));
  EXPECT_TRUE(same_axis(y.axes[3], x.axes[3]));
}

TEST(ImportConv, SymbolicSpatialLengthThroughAStrideIsUnknownOfTheSameClass) {
  const auto m = import_raw(conv({int64_t{1}, int64_t{3}, std::string("H"), int64_t{9}},
                                 dims({4, 3, 3, 3}), {{"strides", Ints{2, 2}}}),
                            17);
  const Value& x = output_value(m, "x");
  const Value& y = output_value(m, "y");
  EXPECT_TRUE(y.axes[2].length.is_unknown());
  EXPECT_FALSE(same_axis(y.axes[2], x.axes[2]));
  EXPECT_EQ(y.axes[2].cls, x.axes[2].cls);
  EXPECT_EQ(y.axes[3].length, Length::known(4));
}

TEST(ImportConv, KernelComesFromWeightsWithoutKernelShape) {
  const auto m = import_raw(conv(dims({2, 4, 9}), dims({6, 2, 5}), {{"group", int64_t{2}}}), 6);
  EXPECT_EQ(static_dims(output_value(m, "y")), (Ints{2, 6, 5}));
}

TEST(ImportConv, WeightChannelsNotMatchingGroupAreRefused) {
  EXPECT_IMPORT_ERROR(conv(dims({1, 8, 5, 5}), dims({4, 3, 3, 3}), {{"group", int64_t{2}}}), 17,
                      "input 0 (X) has 8 channels but W takes 3 per group x 2 groups = 6");
  EXPECT_IMPORT_ERROR(conv(dims({1, 6, 5, 5}), dims({5, 3, 3, 3}), {{"group", int64_t{2}}}), 17,
                      "W's output channel count (dim 0) is 5, which is not a multiple of "
                      "attribute 'group' 2");
  EXPECT_IMPORT_ERROR(conv(dims({1, 6, 5, 5}), dims({4, 3, 3, 3}), {{"group", int64_t{0}}}), 17,
                      "attribute 'group' is 0; it must be in [1, 2^31]");
}

TEST(ImportConv, KernelRankMismatchesAreRefused) {
  EXPECT_IMPORT_ERROR(conv(dims({1, 3, 5, 5}), dims({4, 3, 3}), {}), 17,
                      "input 1 (W) has rank 3 but X has rank 4; they must match");
  EXPECT_IMPORT_ERROR(conv(dims({1, 3, 5, 5}), dims({4, 3, 3, 3}), {{"kernel_shape", Ints{3}}}), 17,
                      "attribute 'kernel_shape' has 1 values; it needs 2");
  EXPECT_IMPORT_ERROR(
      conv(dims({1, 3, 5, 5}), dims({4, 3, 3, 3}), {{"kernel_shape", Ints{3, 2}}}), 17,
      "attribute 'kernel_shape' is [3, 2] but W's spatial dims say 3 in spatial dim 1");
  EXPECT_IMPORT_ERROR(conv(dims({1, 3}), dims({4, 3}), {}), 17,
                      "input 0 (X) has rank 2; it must be (N, C, D1, ...), rank 3 or more");
}

TEST(ImportConv, BadWindowAttributesAreRefused) {
  const auto x = dims({1, 3, 5, 5});
  const auto w = dims({4, 3, 3, 3});
  EXPECT_IMPORT_ERROR(conv(x, w, {{"pads", Ints{1, 1, 1}}}), 17,
                      "attribute 'pads' has 3 values; it needs 4");
  EXPECT_IMPORT_ERROR(conv(x, w, {{"pads", Ints{1, -1, 1, 1}}}), 17,
                      "attribute 'pads' has value -1");
  EXPECT_IMPORT_ERROR(conv(x, w, {{"strides", Ints{0, 1}}}), 17, "attribute 'strides' has value 0");
  EXPECT_IMPORT_ERROR(conv(x, w, {{"dilations", Ints{1}}}), 17,
                      "attribute 'dilations' has 1 values; it needs 2");
  EXPECT_IMPORT_ERROR(conv(x, w, {{"auto_pad", std::string("SAME")}}), 17,
                      "attribute 'auto_pad' is 'SAME'");
  EXPECT_IMPORT_ERROR(
      conv(x, w, {{"auto_pad", std::string("SAME_UPPER")}, {"pads", Ints{1, 1, 1, 1}}}), 17,
      "attribute 'pads' cannot be used together with auto_pad");
  EXPECT_IMPORT_ERROR(conv(x, w, {{"dilations", Ints{3, 3}}}), 17,
                      "the window of spatial dim 0 (kernel 3, dilation 3, extent 7) is larger "
                      "than the padded input length 5");
}

TEST(ImportConv, BiasMustHaveOneValuePerOutputChannel) {
  GraphBuilder g;
  g.input("x", DType::kFloat, dims({1, 3, 5, 5}))
      .input("w", DType::kFloat, dims({4, 3, 3, 3}))
      .input("b", DType::kFloat, dims({3}))
      .node("Conv", {"x", "w", "b"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 17, "input 2 (B) has 3 entries but the number of output channels is 4");
}

TEST(ImportConv, ExtraInputsOrOutputsAreRefused) {
  GraphBuilder g;
  g.input("x", DType::kFloat, dims({1, 3, 5, 5}))
      .input("w", DType::kFloat, dims({4, 3, 3, 3}))
      .node("Conv", {"x", "w"}, {"y", "z"})
      .output("y");
  EXPECT_IMPORT_ERROR(g, 17, "Conv has at most 1 output, the node has 2");
}

TEST(ImportConv, Bfloat16IsAcceptedFromOpset22) {
  const auto g = conv(dims({1, 3, 5, 5}), dims({4, 3, 3, 3}), {}, "Conv", DType::kBFloat16);
  EXPECT_IMPORT_ERROR(g, 21, "input 0 (X) has dtype bfloat16");
  EXPECT_EQ(output_value(import_raw(g, 22), "y").dtype(), DType::kBFloat16);
}

TEST(ImportConv, UnknownRankInputKeepsWhatTheWeightsTell) {
  GraphBuilder g;
  g.input_unranked("x", DType::kFloat)
      .input("w", DType::kFloat, dims({4, 3, 3, 3}))
      .node("Conv", {"x", "w"}, {"y"})
      .output("y");
  const Value& y = output_value(import_raw(g, 17), "y");
  EXPECT_EQ(y.dtype(), DType::kFloat);
  ASSERT_TRUE(y.rank_known);
  ASSERT_EQ(y.rank(), 4);
  EXPECT_EQ(y.axes[1].length, Length::known(4));
  EXPECT_TRUE(y.axes[2].length.is_unknown());

  GraphBuilder both;
  both.input_unranked("x", DType::kFloat)
      .input_unranked("w", DType::kFloat)
      .node("Conv", {"x", "w"}, {"y"})
      .output("y");
  EXPECT_FALSE(output_value(import_raw(both, 17), "y").rank_known);
}

// ---- ConvTranspose ----

TEST(ImportConvTranspose, DefaultFormulaWithStridesOutputPaddingAndPads) {
  // (in - 1) * stride + output_padding + ((k - 1) * dilation + 1) - pads.
  const auto x = dims({1, 1, 3, 3});
  const auto w = dims({1, 2, 3, 3});
  EXPECT_EQ(static_dims(output_value(import_raw(conv(x, w, {}, "ConvTranspose"), 22), "y")),
            (Ints{1, 2, 5, 5}));
  EXPECT_EQ(static_dims(output_value(
                import_raw(conv(x, w, {{"strides", Ints{3, 2}}, {"output_padding", Ints{1, 1}}},
                                "ConvTranspose"),
                           22),
                "y")),
            (Ints{1, 2, 10, 8}));
  EXPECT_EQ(static_dims(output_value(
                import_raw(conv(x, w, {{"strides", Ints{3, 2}}, {"pads", Ints{1, 2, 1, 2}}},
                                "ConvTranspose"),
                           22),
                "y")),
            (Ints{1, 2, 7, 3}));
  EXPECT_EQ(static_dims(output_value(
                import_raw(conv(x, w, {{"dilations", Ints{2, 2}}}, "ConvTranspose"), 22), "y")),
            (Ints{1, 2, 7, 7}));
}

TEST(ImportConvTranspose, OutputShapeAttributeSetsTheSpatialLengths) {
  const auto x = dims({1, 1, 3, 3});
  const auto w = dims({1, 2, 3, 3});
  const auto shape = [&](Ints output_shape) {
    return static_dims(output_value(
        import_raw(
            conv(x, w, {{"strides", Ints{3, 2}}, {"output_shape", output_shape}}, "ConvTranspose"),
            11),
        "y"));
  };
  EXPECT_EQ(shape({10, 8}), (Ints{1, 2, 10, 8}));
  EXPECT_EQ(shape({1, 2, 10, 8}), (Ints{1, 2, 10, 8}));  // the full shape, as some exporters write
  EXPECT_IMPORT_ERROR(conv(x, w, {{"output_shape", Ints{10, 8, 3}}}, "ConvTranspose"), 11,
                      "attribute 'output_shape' has 3 values; it needs 2");
}

TEST(ImportConvTranspose, SameAutoPadMultipliesByTheStride) {
  const auto m = import_raw(
      conv(dims({1, 1, 3, 4}), dims({1, 2, 3, 3}),
           {{"auto_pad", std::string("SAME_UPPER")}, {"strides", Ints{2, 2}}}, "ConvTranspose"),
      22);
  EXPECT_EQ(static_dims(output_value(m, "y")), (Ints{1, 2, 6, 8}));
}

TEST(ImportConvTranspose, GroupsMultiplyWeightsSecondDim) {
  const auto m = import_raw(
      conv(dims({1, 4, 3, 3}), dims({4, 3, 3, 3}), {{"group", int64_t{2}}}, "ConvTranspose"), 22);
  EXPECT_EQ(static_dims(output_value(m, "y")), (Ints{1, 6, 5, 5}));
}

TEST(ImportConvTranspose, MalformedNodesAreRefused) {
  EXPECT_IMPORT_ERROR(conv(dims({1, 3, 3, 3}), dims({2, 2, 3, 3}), {}, "ConvTranspose"), 22,
                      "input 1 (W) dim 0 has length 2 but X's channel count has length 3");
  EXPECT_IMPORT_ERROR(
      conv(dims({1, 1, 3, 3}), dims({1, 2, 3, 3}),
           {{"strides", Ints{2, 2}}, {"output_padding", Ints{2, 0}}}, "ConvTranspose"),
      22,
      "attribute 'output_padding' is 2 in spatial dim 0; it must be less than "
      "the stride (2) or the dilation (1)");
  EXPECT_IMPORT_ERROR(
      conv(dims({1, 1, 3, 3}), dims({1, 2, 3, 3}), {{"pads", Ints{4, 4, 4, 4}}}, "ConvTranspose"),
      22, "the output length of spatial dim 0 would be -3");
}

// ---- DeformConv, CausalConvWithState ----

TEST(ImportDeformConv, OutputFollowsConvAndAgreesWithOffset) {
  GraphBuilder g;
  g.input("x", DType::kFloat, dims({1, 1, 3, 3}))
      .input("w", DType::kFloat, dims({1, 1, 2, 2}))
      .input("offset", DType::kFloat, dims({1, 8, 2, 2}))
      .node("DeformConv", {"x", "w", "offset"}, {"y"}, {{"kernel_shape", Ints{2, 2}}})
      .output("y");
  const auto m = import_raw(g, 19);
  EXPECT_EQ(static_dims(output_value(m, "y")), (Ints{1, 1, 2, 2}));

  GraphBuilder bad;
  bad.input("x", DType::kFloat, dims({1, 1, 3, 3}))
      .input("w", DType::kFloat, dims({1, 1, 2, 2}))
      .input("offset", DType::kFloat, dims({1, 6, 2, 2}))
      .node("DeformConv", {"x", "w", "offset"}, {"y"})
      .output("y");
  EXPECT_IMPORT_ERROR(bad, 19,
                      "input 2 (offset) dim 1 has length 6 but offset_group x spatial dims x "
                      "kernel taps has length 8");
}

TEST(ImportCausalConvWithState, OutputKeepsInputAxesAndStateHoldsKernelMinusOne) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {std::string("B"), int64_t{4}, std::string("L")})
      .input("w", DType::kFloat, dims({4, 1, 4}))
      .node("CausalConvWithState", {"x", "w"}, {"y", "state"})
      .output("y")
      .output("state");
  const auto m = import_raw(g, 27);
  const Value& x = output_value(m, "x");
  EXPECT_EQ(output_value(m, "y").axes, x.axes);
  const Value& state = output_value(m, "state");
  ASSERT_EQ(state.rank(), 3);
  EXPECT_TRUE(same_axis(state.axes[0], x.axes[0]));
  EXPECT_EQ(state.axes[2].length, Length::known(3));

  GraphBuilder bad;
  bad.input("x", DType::kFloat, dims({2, 4, 8}))
      .input("w", DType::kFloat, dims({4, 2, 4}))
      .node("CausalConvWithState", {"x", "w"}, {"y", "state"})
      .output("y");
  EXPECT_IMPORT_ERROR(bad, 27, "input 1 (weight) dim 1 has length 2 but 1 (the op is depthwise)");
}

}  // namespace
}  // namespace geon
