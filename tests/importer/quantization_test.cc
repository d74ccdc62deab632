// Import rules of the quantization family.
#include <gtest/gtest.h>

#include "core/base/error.h"
#include "tests/importer/model_builder.h"

namespace geon {
namespace {

using namespace testing_models;

// An attribute for GraphBuilder::node.
template <class V>
Attr at(std::string name, V value) {
  Attr a;
  a.name = std::move(name);
  a.value = std::move(value);
  return a;
}

void expect_error(const GraphBuilder& g, int opset, const std::string& part) {
  try {
    import(g, opset);
    ADD_FAILURE() << "imported, expected an error containing: " << part;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

// ---- QuantizeLinear ---------------------------------------------------------------------------

TEST(ImportQuantization, QuantizeLinearTakesTheZeroPointsDtypeElseUint8) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {std::string("N"), int64_t{4}})
      .initializer("s", DType::kFloat, {}, {0.5})
      .initializer("z", DType::kInt8, {}, {0})
      .node("QuantizeLinear", {"x", "s"}, {"u"})
      .node("QuantizeLinear", {"x", "s", "z"}, {"i"})
      .output("u")
      .output("i");
  const ImportedModel m = import(g, 13);
  EXPECT_EQ(output_value(m, "u").dtype(), DType::kUInt8);
  EXPECT_EQ(output_value(m, "i").dtype(), DType::kInt8);
  EXPECT_EQ(output_value(m, "i").axes, output_value(m, "x").axes);
}

TEST(ImportQuantization, QuantizeLinearOutputDtypeAttributeFromOpset21) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{4}})
      .initializer("s", DType::kFloat, {}, {0.5})
      .node("QuantizeLinear", {"x", "s"}, {"y"}, {at("output_dtype", int64_t{22})})  // int4
      .output("y");
  EXPECT_EQ(output_value(import(g, 21), "y").dtype(), DType::kInt4);

  GraphBuilder clash;
  clash.input("x", DType::kFloat, {int64_t{4}})
      .initializer("s", DType::kFloat, {}, {0.5})
      .initializer("z", DType::kUInt8, {}, {0})
      .node("QuantizeLinear", {"x", "s", "z"}, {"y"}, {at("output_dtype", int64_t{3})})
      .output("y");
  expect_error(clash, 21, "attribute 'output_dtype' is int8 but input 2 (y_zero_point) is uint8");
}

TEST(ImportQuantization, PerAxisScalesNeedOpset13AndTheAxisLength) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{2}, int64_t{3}})
      .initializer("s", DType::kFloat, {3}, {1, 2, 3})
      .node("QuantizeLinear", {"x", "s"}, {"y"})
      .output("y");
  EXPECT_EQ(output_value(import(g, 13), "y").dtype(), DType::kUInt8);  // axis defaults to 1
  expect_error(g, 10, "before opset 13 it must be a scalar");

  GraphBuilder wrong_axis;
  wrong_axis.input("x", DType::kFloat, {int64_t{2}, int64_t{3}})
      .initializer("s", DType::kFloat, {3}, {1, 2, 3})
      .node("QuantizeLinear", {"x", "s"}, {"y"}, {at("axis", int64_t{0})})
      .output("y");
  expect_error(wrong_axis, 13,
               "input 1 (scale) has length 3 but input 0 has length 2 along axis 0");
}

TEST(ImportQuantization, BlockedScalesDivideTheAxisIntoBlocks) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{4}, int64_t{6}})
      .input("s", DType::kFloat, {int64_t{4}, int64_t{2}})
      .node("QuantizeLinear", {"x", "s"}, {"y"},
            {at("axis", int64_t{1}), at("block_size", int64_t{3})})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(g, 21), "y")), (std::vector<int64_t>{4, 6}));

  GraphBuilder bad;
  bad.input("x", DType::kFloat, {int64_t{4}, int64_t{6}})
      .input("s", DType::kFloat, {int64_t{4}, int64_t{2}})
      .node("DequantizeLinear", {"x", "s"}, {"y"},
            {at("axis", int64_t{1}), at("block_size", int64_t{2})})
      .output("y");
  expect_error(bad, 21, "input 0 (x) has dtype float");  // x must be quantized

  GraphBuilder blocks;
  blocks.input("x", DType::kInt8, {int64_t{4}, int64_t{6}})
      .input("s", DType::kFloat, {int64_t{4}, int64_t{2}})
      .node("DequantizeLinear", {"x", "s"}, {"y"},
            {at("axis", int64_t{1}), at("block_size", int64_t{2})})
      .output("y");
  expect_error(blocks, 21, "input 0's length 6 in blocks of 2 needs 3");
}

// ---- DequantizeLinear -------------------------------------------------------------------------

TEST(ImportQuantization, DequantizeLinearOutputDtypeByVersion) {
  const auto model = [](DType scale, int64_t output_dtype) {
    GraphBuilder g;
    std::vector<Attr> attrs;
    if (output_dtype) attrs.push_back(at("output_dtype", output_dtype));
    g.input("x", DType::kUInt8, {int64_t{3}})
        .input("s", scale, {})
        .node("DequantizeLinear", {"x", "s"}, {"y"}, attrs)
        .output("y");
    return g;
  };
  EXPECT_EQ(output_value(import(model(DType::kFloat, 0), 10), "y").dtype(), DType::kFloat);
  expect_error(model(DType::kFloat16, 0), 13, "input 1 (x_scale) has dtype float16");
  EXPECT_EQ(output_value(import(model(DType::kFloat16, 0), 19), "y").dtype(), DType::kFloat16);
  EXPECT_EQ(output_value(import(model(DType::kFloat16, 16), 23), "y").dtype(), DType::kBFloat16);
}

TEST(ImportQuantization, DequantizeZeroPointMustHaveTheInputsDtype) {
  GraphBuilder g;
  g.input("x", DType::kUInt8, {int64_t{3}})
      .initializer("s", DType::kFloat, {}, {1})
      .initializer("z", DType::kInt8, {}, {0})
      .node("DequantizeLinear", {"x", "s", "z"}, {"y"})
      .output("y");
  expect_error(g, 13, "input 2 (x_zero_point) is int8 but input 0 (x) is uint8");
}

TEST(ImportQuantization, DynamicQuantizeLinearGivesScalarScaleAndZeroPoint) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{2}, std::string("T")})
      .node("DynamicQuantizeLinear", {"x"}, {"y", "s", "z"})
      .output("y")
      .output("s")
      .output("z");
  const ImportedModel m = import(g, 11);
  EXPECT_EQ(output_value(m, "y").dtype(), DType::kUInt8);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);
  EXPECT_EQ(output_value(m, "s").dtype(), DType::kFloat);
  EXPECT_EQ(output_value(m, "s").rank(), 0);
  EXPECT_EQ(output_value(m, "z").dtype(), DType::kUInt8);
  EXPECT_EQ(output_value(m, "z").rank(), 0);
}

TEST(ImportQuantization, QLinearMatMulTakesFloat16ScalesFromOpset21) {
  GraphBuilder g;
  g.input("a", DType::kInt8, {int64_t{2}, int64_t{4}})
      .input("b", DType::kInt8, {int64_t{4}, int64_t{3}})
      .input("s", DType::kFloat16, {})
      .input("z", DType::kInt8, {})
      .node("QLinearMatMul", {"a", "s", "z", "b", "s", "z", "s", "z"}, {"y"})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(g, 21), "y")), (std::vector<int64_t>{2, 3}));
  expect_error(g, 20, "input 1 (scale) has dtype float16");
}

TEST(ImportQuantization, DequantizeWithE8M0ScalesNeedsAnOutputDtype) {
  GraphBuilder g;
  g.input("x", DType::kInt8, {int64_t{4}})
      .input("s", DType::kFloat8E8M0, {})
      .node("DequantizeLinear", {"x", "s"}, {"y"})
      .output("y");
  expect_error(g, 24, "attribute 'output_dtype' must then name the output dtype");
}

// ---- matrix products --------------------------------------------------------------------------

TEST(ImportQuantization, QLinearMatMulShapesAndDtypeFromTheOutputZeroPoint) {
  GraphBuilder g;
  g.input("a", DType::kUInt8, {int64_t{2}, int64_t{3}, int64_t{4}})
      .input("b", DType::kInt8, {int64_t{4}, int64_t{5}})
      .initializer("sa", DType::kFloat, {}, {1})
      .initializer("za", DType::kUInt8, {}, {0})
      .initializer("sb", DType::kFloat, {5}, {1, 1, 1, 1, 1})
      .initializer("zb", DType::kInt8, {5}, {0, 0, 0, 0, 0})
      .initializer("sy", DType::kFloat, {}, {1})
      .initializer("zy", DType::kInt8, {}, {0})
      .node("QLinearMatMul", {"a", "sa", "za", "b", "sb", "zb", "sy", "zy"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 10);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(y.dtype(), DType::kInt8);
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{2, 3, 5}));
  EXPECT_TRUE(same_axis(y.axes[1], output_value(m, "a").axes[1]));  // M of a
  EXPECT_TRUE(same_axis(y.axes[2], output_value(m, "b").axes[1]));  // N of b
}

TEST(ImportQuantization, MatMulIntegerGivesInt32AndChecksTheContractedLength) {
  GraphBuilder g;
  g.input("a", DType::kUInt8, {std::string("M"), int64_t{4}})
      .input("b", DType::kUInt8, {int64_t{4}})
      .node("MatMulInteger", {"a", "b"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 10);
  EXPECT_EQ(output_value(m, "y").dtype(), DType::kInt32);
  EXPECT_EQ(output_value(m, "y").rank(), 1);  // b is a vector: N is dropped

  GraphBuilder bad;
  bad.input("a", DType::kUInt8, {int64_t{2}, int64_t{4}})
      .input("b", DType::kUInt8, {int64_t{3}, int64_t{2}})
      .node("MatMulInteger", {"a", "b"}, {"y"})
      .output("y");
  expect_error(bad, 10, "input 0 has 4 columns but input 1 has 3 rows");
}

// ---- convolutions -----------------------------------------------------------------------------

TEST(ImportQuantization, ConvIntegerShapesFollowPadsStridesAndDilations) {
  GraphBuilder g;
  g.input("x", DType::kUInt8, {std::string("N"), int64_t{3}, int64_t{7}, int64_t{7}})
      .input("w", DType::kUInt8, {int64_t{2}, int64_t{3}, int64_t{3}, int64_t{3}})
      .node(
          "ConvInteger", {"x", "w"}, {"y"},
          {at("pads", std::vector<int64_t>{1, 1, 1, 1}), at("strides", std::vector<int64_t>{2, 1}),
           at("dilations", std::vector<int64_t>{1, 2})})
      .output("y");
  const ImportedModel m = import(g, 10);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(y.dtype(), DType::kInt32);
  ASSERT_EQ(y.rank(), 4);
  EXPECT_TRUE(same_axis(y.axes[0], output_value(m, "x").axes[0]));
  EXPECT_TRUE(same_axis(y.axes[1], output_value(m, "w").axes[0]));
  EXPECT_EQ(y.axes[2].length, Length::known(4));  // (7 + 2 - 3) / 2 + 1
  EXPECT_EQ(y.axes[3].length, Length::known(5));  // (7 + 2 - 5) / 1 + 1
}

TEST(ImportQuantization, QLinearConvSameUpperPaddingAndBiasLength) {
  const auto model = [](int64_t bias_len) {
    GraphBuilder g;
    g.input("x", DType::kUInt8, {int64_t{1}, int64_t{4}, int64_t{5}, int64_t{5}})
        .input("w", DType::kInt8, {int64_t{6}, int64_t{2}, int64_t{3}, int64_t{3}})
        .input("b", DType::kInt32, {bias_len})
        .initializer("s", DType::kFloat, {}, {1})
        .initializer("zx", DType::kUInt8, {}, {0})
        .initializer("zw", DType::kInt8, {}, {0})
        .initializer("zy", DType::kUInt8, {}, {0})
        .node("QLinearConv", {"x", "s", "zx", "w", "s", "zw", "s", "zy", "b"}, {"y"},
              {at("auto_pad", std::string("SAME_UPPER")), at("strides", std::vector<int64_t>{2, 2}),
               at("group", int64_t{2})})
        .output("y");
    return g;
  };
  const ImportedModel m = import(model(6), 10);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(y.dtype(), DType::kUInt8);
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{1, 6, 3, 3}));
  expect_error(model(4), 10, "input 8 (B) has shape");
}

TEST(ImportQuantization, ConvChannelsMustMatchTheGroups) {
  GraphBuilder g;
  g.input("x", DType::kUInt8, {int64_t{1}, int64_t{4}, int64_t{5}, int64_t{5}})
      .input("w", DType::kUInt8, {int64_t{2}, int64_t{3}, int64_t{3}, int64_t{3}})
      .node("ConvInteger", {"x", "w"}, {"y"})
      .output("y");
  expect_error(g, 10, "input 0 (x) has 4 channels but input 1 (w) has 3 per group");
}

TEST(ImportQuantization, ConvAttributesAreChecked) {
  const auto model = [](Attr attr) {
    GraphBuilder g;
    g.input("x", DType::kUInt8, {int64_t{1}, int64_t{3}, int64_t{5}, int64_t{5}})
        .input("w", DType::kUInt8, {int64_t{2}, int64_t{3}, int64_t{3}, int64_t{3}})
        .node("ConvInteger", {"x", "w"}, {"y"}, {attr})
        .output("y");
    return g;
  };
  expect_error(
      model(at("auto_pad", std::string("SAME"))), 10,
      "attribute 'auto_pad' is 'SAME'; it must be NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  expect_error(model(at("kernel_shape", std::vector<int64_t>{2, 2})), 10,
               "attribute 'kernel_shape' says 2 at dim 0 but input 1 (w) has 3");
  expect_error(model(at("strides", std::vector<int64_t>{1})), 10,
               "attribute 'strides' has 1 entries; it must have 2");
  expect_error(model(at("pads", std::vector<int64_t>{0, 0, -1, 0})), 10,
               "attribute 'pads' must not be negative");
}

}  // namespace
}  // namespace geon
