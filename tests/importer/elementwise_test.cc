// Import rules of the elementwise family.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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

// Imports g and expects an error whose message contains `part`.
void expect_error(const GraphBuilder& g, int opset, const std::string& part) {
  try {
    import(g, opset);
    ADD_FAILURE() << "imported, expected an error containing: " << part;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

std::vector<double> folded(const Value& v) {
  std::vector<double> out;
  if (!v.data) return out;
  for (int64_t i = 0; i < v.data->elements(); ++i) out.push_back(element_as_double(*v.data, i));
  return out;
}

TEST(ImportElementwise, AddBroadcastsNumpyStyleAndSharesUnifiedAxes) {
  GraphBuilder g;
  g.input("a", DType::kFloat, {int64_t{2}, int64_t{1}, int64_t{4}})
      .input("b", DType::kFloat, {int64_t{3}, int64_t{1}})
      .node("Add", {"a", "b"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 17);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(y.dtype(), DType::kFloat);
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{2, 3, 4}));
  // The last dim is the same axis as a's: broadcasting unifies it rather than making a new one.
  EXPECT_TRUE(same_axis(y.axes[2], output_value(m, "a").axes[2]));
}

TEST(ImportElementwise, MismatchedDtypesNameBothInputs) {
  GraphBuilder g;
  g.input("a", DType::kFloat, {int64_t{2}})
      .input("b", DType::kInt32, {int64_t{2}})
      .node("Add", {"a", "b"}, {"y"})
      .output("y");
  try {
    import(g, 17);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("input 1 is int32 but input 0 is float"),
              std::string::npos)
        << e.what();
  }
}

TEST(ImportElementwise, ConstantInputsFoldThroughTheEngine) {
  GraphBuilder g;
  g.initializer("a", DType::kInt64, {2}, {3, 4})
      .initializer("b", DType::kInt64, {2}, {10, 20})
      .node("Add", {"a", "b"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 17);
  const Value& y = output_value(m, "y");
  ASSERT_TRUE(y.data);
  EXPECT_EQ(element_as_int(*y.data, 0), 13);
  EXPECT_EQ(element_as_int(*y.data, 1), 24);
}

// ---- unary ----------------------------------------------------------------------------------

TEST(ImportElementwise, UnaryOutputKeepsTheInputsAxesObjectForObject) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {std::string("N"), int64_t{3}})
      .node("Exp", {"x"}, {"y"})
      .node("IsNaN", {"y"}, {"z"})
      .output("y")
      .output("z");
  const ImportedModel m = import(g, 20);
  const Value& x = output_value(m, "x");
  const Value& y = output_value(m, "y");
  const Value& z = output_value(m, "z");
  EXPECT_EQ(y.axes, x.axes);
  EXPECT_EQ(z.axes, x.axes);
  EXPECT_EQ(z.dtype(), DType::kBool);
  EXPECT_TRUE(y.axes[0].length.is_symbol());
}

TEST(ImportElementwise, UnaryDtypesFollowTheOpsetOfTheSchema) {
  // Abs accepts integers from opset 6, Relu from 14.
  for (auto [op, int_from] : {std::pair{"Abs", 6}, std::pair{"Relu", 14}}) {
    GraphBuilder g;
    g.input("x", DType::kInt32, {int64_t{2}}).node(op, {"x"}, {"y"}).output("y");
    expect_error(g, int_from - 1,
                 "input 0 has dtype int32, which this op does not accept at this opset");
    EXPECT_EQ(output_value(import(g, int_from), "y").dtype(), DType::kInt32) << op;
  }
}

TEST(ImportElementwise, UnknownRankPropagates) {
  GraphBuilder g;
  g.input_unranked("x", DType::kFloat)
      .input("b", DType::kFloat, {int64_t{3}})
      .node("Sqrt", {"x"}, {"s"})
      .node("Mul", {"s", "b"}, {"y"})
      .output("s")
      .output("y");
  const ImportedModel m = import(g, 17);
  EXPECT_FALSE(output_value(m, "s").rank_known);
  EXPECT_FALSE(output_value(m, "y").rank_known);
  EXPECT_EQ(output_value(m, "y").dtype(), DType::kFloat);
}

TEST(ImportElementwise, IsInfFoldsWithTheDetectedSide) {
  const double inf = std::numeric_limits<double>::infinity();
  GraphBuilder g;
  g.initializer("x", DType::kFloat, {3}, {inf, -inf, 1})
      .node("IsInf", {"x"}, {"y"}, {at("detect_negative", int64_t{0})})
      .output("y");
  const ImportedModel m_y = import(g, 20);
  const Value& y = output_value(m_y, "y");
  EXPECT_EQ(y.dtype(), DType::kBool);
  EXPECT_EQ(folded(y), (std::vector<double>{1, 0, 0}));
}

TEST(ImportElementwise, UnaryWithTwoInputsIsRejected) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{2}}).node("Neg", {"x", "x"}, {"y"}).output("y");
  expect_error(g, 13, "takes 1 inputs, got 2");
}

// ---- activations ------------------------------------------------------------------------------

TEST(ImportElementwise, ActivationsWithParametersFold) {
  GraphBuilder g;
  g.initializer("x", DType::kFloat, {3}, {-10, 0.5, 10})
      .node("HardSigmoid", {"x"}, {"hs"}, {at("alpha", 0.5f)})
      .node("ThresholdedRelu", {"x"}, {"tr"}, {at("alpha", 1.0f)})
      .node("Shrink", {"x"}, {"sh"}, {at("lambd", 1.0f), at("bias", 2.0f)})
      .node("Selu", {"x"}, {"se"}, {at("alpha", 2.0f), at("gamma", 3.0f)})
      .output("hs")
      .output("tr")
      .output("sh")
      .output("se");
  const ImportedModel m = import(g, 22);
  EXPECT_EQ(folded(output_value(m, "hs")), (std::vector<double>{0, 0.75, 1}));
  EXPECT_EQ(folded(output_value(m, "tr")), (std::vector<double>{0, 0, 10}));
  EXPECT_EQ(folded(output_value(m, "sh")), (std::vector<double>{-8, 0, 8}));
  const auto se = folded(output_value(m, "se"));
  ASSERT_EQ(se.size(), 3u);
  EXPECT_NEAR(se[0], 3 * 2 * (std::exp(-10.0) - 1), 1e-4);
  EXPECT_NEAR(se[2], 30, 1e-4);
}

TEST(ImportElementwise, GeluFoldsBothApproximations) {
  GraphBuilder g;
  g.initializer("x", DType::kFloat, {1}, {1})
      .node("Gelu", {"x"}, {"exact"})
      .node("Gelu", {"x"}, {"approx"}, {at("approximate", std::string("tanh"))})
      .output("exact")
      .output("approx");
  const ImportedModel m = import(g, 20);
  EXPECT_NEAR(folded(output_value(m, "exact")).at(0), 0.841345, 1e-5);
  EXPECT_NEAR(folded(output_value(m, "approx")).at(0), 0.841192, 1e-5);
}

TEST(ImportElementwise, GeluRejectsAnUnknownApproximation) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{2}})
      .node("Gelu", {"x"}, {"y"}, {at("approximate", std::string("fast"))})
      .output("y");
  expect_error(g, 20, "attribute 'approximate' is 'fast'; it must be 'none' or 'tanh'");
}

TEST(ImportElementwise, PReluSlopeBroadcastsOntoTheInputAndKeepsItsAxes) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{2}, int64_t{3}, int64_t{4}})
      .input("s", DType::kFloat, {int64_t{3}, int64_t{1}})
      .node("PRelu", {"x", "s"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 16);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);

  GraphBuilder bad;
  bad.input("x", DType::kFloat, {int64_t{2}, int64_t{3}})
      .input("s", DType::kFloat, {int64_t{2}})
      .node("PRelu", {"x", "s"}, {"y"})
      .output("y");
  expect_error(bad, 16, "input 1 (slope) has length 2 at dim 0 but input 0 has 3");
  // Before opset 7 the slope was per channel, not right-aligned: accepted as it is.
  EXPECT_EQ(static_dims(output_value(import(bad, 6), "y")), (std::vector<int64_t>{2, 3}));
}

TEST(ImportElementwise, PredicatesAcceptFloat8FromOpset20) {
  GraphBuilder g;
  g.input("x", DType::kFloat8E5M2, {int64_t{3}}).node("IsNaN", {"x"}, {"y"}).output("y");
  expect_error(g, 19, "input 0 has dtype float8e5m2");
  EXPECT_EQ(output_value(import(g, 20), "y").dtype(), DType::kBool);
}

TEST(ImportElementwise, MalformedAttributesAreNamed) {
  struct Case {
    const char* op;
    Attr attr;
    int opset;
    const char* message;
  };
  const Case cases[] = {
      {"Celu", at("alpha", 0.0f), 12, "attribute 'alpha' must not be 0"},
      {"Mod", at("fmod", int64_t{2}), 13, "attribute 'fmod' must be 0 or 1, got 2"},
      {"Add", at("axis", int64_t{0}), 6, "attribute 'axis' is only meaningful with broadcast=1"},
      {"Cast", at("saturate", int64_t{3}), 19, "attribute 'saturate' must be 0 or 1, got 3"},
      {"IsInf", at("detect_positive", int64_t{-1}), 20,
       "attributes 'detect_negative' and 'detect_positive' must be 0 or 1"},
      {"Selu", at("alpha", int64_t{1}), 6, "attribute 'alpha' must be float, got int"},
  };
  for (const Case& k : cases) {
    GraphBuilder g;
    std::vector<Attr> attrs = {k.attr};
    if (std::string(k.op) == "Cast") attrs.push_back(at("to", int64_t{1}));
    const bool binary = std::string(k.op) == "Mod" || std::string(k.op) == "Add";
    g.input("x", DType::kFloat, {int64_t{2}})
        .node(k.op, binary ? std::vector<std::string>{"x", "x"} : std::vector<std::string>{"x"},
              {"y"}, attrs)
        .output("y");
    expect_error(g, k.opset, k.message);
  }
}

// ---- binary -----------------------------------------------------------------------------------

TEST(ImportElementwise, LegacyBroadcastPlacesBOntoAFromAxis) {
  GraphBuilder g;
  g.input("a", DType::kFloat, {int64_t{2}, int64_t{3}, int64_t{4}, int64_t{5}})
      .input("b", DType::kFloat, {int64_t{3}, int64_t{4}})
      .node("Mul", {"a", "b"}, {"y"}, {at("broadcast", int64_t{1}), at("axis", int64_t{1})})
      .output("y");
  const ImportedModel m = import(g, 6);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "a").axes);

  GraphBuilder suffix;  // no axis: B is A's suffix
  suffix.input("a", DType::kFloat, {int64_t{2}, int64_t{3}, int64_t{4}})
      .input("b", DType::kFloat, {int64_t{5}})
      .node("Add", {"a", "b"}, {"y"}, {at("broadcast", int64_t{1})})
      .output("y");
  expect_error(suffix, 6, "input 1's dim 0 has length 5 but input 0's dim 2 has length 4");
}

TEST(ImportElementwise, LegacyBinaryOpsNeedTheBroadcastFlagForDifferentShapes) {
  GraphBuilder g;
  g.input("a", DType::kFloat, {int64_t{2}, int64_t{3}})
      .input("b", DType::kFloat, {int64_t{3}})
      .node("Sub", {"a", "b"}, {"y"})
      .output("y");
  expect_error(g, 6, "without broadcast=1 their shapes must be equal");
  // From opset 7 the same model broadcasts numpy-style.
  EXPECT_EQ(static_dims(output_value(import(g, 7), "y")), (std::vector<int64_t>{2, 3}));
}

TEST(ImportElementwise, LegacyBroadcastFoldsASuffixOperand) {
  GraphBuilder g;
  g.initializer("a", DType::kFloat, {2, 2}, {1, 2, 3, 4})
      .initializer("b", DType::kFloat, {2}, {10, 20})
      .node("Add", {"a", "b"}, {"y"}, {at("broadcast", int64_t{1})})
      .output("y");
  EXPECT_EQ(folded(output_value(import(g, 6), "y")), (std::vector<double>{11, 22, 13, 24}));
}

TEST(ImportElementwise, ComparisonsAndLogicGiveBool) {
  GraphBuilder g;
  g.input("a", DType::kInt64, {int64_t{2}, int64_t{1}})
      .input("b", DType::kInt64, {int64_t{3}})
      .node("LessOrEqual", {"a", "b"}, {"le"})
      .node("Equal", {"a", "b"}, {"eq"})
      .node("Xor", {"le", "eq"}, {"x"})
      .output("x");
  const ImportedModel m_x = import(g, 16);
  const Value& x = output_value(m_x, "x");
  EXPECT_EQ(x.dtype(), DType::kBool);
  EXPECT_EQ(static_dims(x), (std::vector<int64_t>{2, 3}));
}

TEST(ImportElementwise, PowDecouplesExponentDtypeFromOpset12) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{2}})
      .input("e", DType::kInt64, {int64_t{1}})
      .node("Pow", {"x", "e"}, {"y"})
      .output("y");
  EXPECT_EQ(output_value(import(g, 12), "y").dtype(), DType::kFloat);
  expect_error(g, 11, "input 1 is int64 but input 0 is float");
}

TEST(ImportElementwise, ModFollowsTheDivisorsSignAndFloatsNeedFmod) {
  GraphBuilder g;
  g.initializer("a", DType::kInt32, {2}, {-4, 7})
      .initializer("b", DType::kInt32, {2}, {3, -3})
      .node("Mod", {"a", "b"}, {"m"})
      .node("Mod", {"a", "b"}, {"f"}, {at("fmod", int64_t{1})})
      .output("m")
      .output("f");
  const ImportedModel m = import(g, 13);
  EXPECT_EQ(folded(output_value(m, "m")), (std::vector<double>{2, -2}));
  EXPECT_EQ(folded(output_value(m, "f")), (std::vector<double>{-1, 1}));

  GraphBuilder bad;
  bad.input("a", DType::kFloat, {int64_t{2}}).node("Mod", {"a", "a"}, {"y"}).output("y");
  expect_error(bad, 13, "attribute 'fmod' is 0 but the inputs are float");
}

TEST(ImportElementwise, BitShiftFoldsAndChecksItsDirection) {
  GraphBuilder g;
  g.initializer("a", DType::kUInt8, {2}, {1, 16})
      .initializer("s", DType::kUInt8, {2}, {2, 3})
      .node("BitShift", {"a", "s"}, {"l"}, {at("direction", std::string("LEFT"))})
      .node("BitShift", {"a", "s"}, {"r"}, {at("direction", std::string("RIGHT"))})
      .output("l")
      .output("r");
  const ImportedModel m = import(g, 11);
  EXPECT_EQ(folded(output_value(m, "l")), (std::vector<double>{4, 128}));
  EXPECT_EQ(folded(output_value(m, "r")), (std::vector<double>{0, 2}));

  GraphBuilder bad;
  bad.input("a", DType::kUInt8, {int64_t{2}})
      .node("BitShift", {"a", "a"}, {"y"}, {at("direction", std::string("UP"))})
      .output("y");
  expect_error(bad, 11, "attribute 'direction' is 'UP'; it must be 'LEFT' or 'RIGHT'");
}

// ---- variadic ---------------------------------------------------------------------------------

TEST(ImportElementwise, VariadicOpsBroadcastFromOpset8Only) {
  GraphBuilder g;
  g.input("a", DType::kFloat, {int64_t{2}, int64_t{3}})
      .input("b", DType::kFloat, {int64_t{3}})
      .input("c", DType::kFloat, {int64_t{1}, int64_t{1}})
      .node("Max", {"a", "b", "c"}, {"y"})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(g, 8), "y")), (std::vector<int64_t>{2, 3}));
  expect_error(g, 6, "before opset 8 the inputs must have equal shapes");
}

TEST(ImportElementwise, SumAndMeanFoldOverEveryInput) {
  GraphBuilder g;
  g.initializer("a", DType::kFloat, {2}, {1, 2})
      .initializer("b", DType::kFloat, {2}, {3, 4})
      .initializer("c", DType::kFloat, {1}, {5})
      .node("Sum", {"a", "b", "c"}, {"s"})
      .node("Mean", {"a", "b", "c"}, {"m"})
      .node("Min", {"a"}, {"one"})
      .output("s")
      .output("m")
      .output("one");
  const ImportedModel m = import(g, 13);
  EXPECT_EQ(folded(output_value(m, "s")), (std::vector<double>{9, 11}));
  const auto mean = folded(output_value(m, "m"));
  ASSERT_EQ(mean.size(), 2u);
  EXPECT_EQ(mean[0], 3);
  EXPECT_NEAR(mean[1], 11.0 / 3, 1e-6);
  EXPECT_EQ(folded(output_value(m, "one")), (std::vector<double>{1, 2}));
}

// ---- shape entries ----------------------------------------------------------------------------

TEST(ImportElementwise, ShapeEntriesWithSymbolsGoThroughCastArithmeticAndWhere) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {std::string("N"), int64_t{3}})
      .initializer("one", DType::kInt64, {1}, {1})
      .initializer("zero", DType::kInt64, {1}, {0})
      .node("Shape", {"x"}, {"s"})
      .node("Cast", {"s"}, {"s32"}, {at("to", int64_t{6})})  // int32
      .node("Cast", {"s32"}, {"s64"}, {at("to", int64_t{7})})
      .node("Mul", {"s64", "one"}, {"m"})
      .node("Max", {"m", "s"}, {"mx"})
      .node("Equal", {"s", "zero"}, {"eq"})
      .node("Where", {"eq", "one", "mx"}, {"w"})
      .output("w")
      .output("eq");
  const ImportedModel m = import(g, 17);
  const Value& w = output_value(m, "w");
  ASSERT_TRUE(w.contents_known);
  ASSERT_EQ(w.contents.size(), 2u);
  // N == 0 is not known at import, so that entry stays unknown; 3 == 0 is false and picks 3.
  EXPECT_EQ(w.contents[1], Length::known(3));
  EXPECT_FALSE(output_value(m, "eq").contents.at(0).is_static());

  GraphBuilder direct;  // without the Equal: the symbol survives Cast, Mul by 1 and Max(x, x)
  direct.input("x", DType::kFloat, {std::string("N"), int64_t{3}})
      .initializer("one", DType::kInt64, {1}, {1})
      .node("Shape", {"x"}, {"s"})
      .node("Cast", {"s"}, {"s32"}, {at("to", int64_t{6})})
      .node("Cast", {"s32"}, {"s64"}, {at("to", int64_t{7})})
      .node("Mul", {"s64", "one"}, {"m"})
      .node("Max", {"m", "s"}, {"mx"})
      .output("mx");
  const ImportedModel m_mx = import(direct, 17);
  const Value& mx = output_value(m_mx, "mx");
  ASSERT_TRUE(mx.contents_known);
  EXPECT_EQ(mx.contents[0], Length::symbolic("N"));
  EXPECT_EQ(mx.contents[1], Length::known(3));
}

// ---- Where, Clip, Cast ------------------------------------------------------------------------

TEST(ImportElementwise, WhereBroadcastsAllThreeAndNeedsABoolCondition) {
  GraphBuilder g;
  g.input("c", DType::kBool, {int64_t{2}, int64_t{1}, int64_t{1}})
      .input("x", DType::kFloat, {int64_t{3}, int64_t{1}})
      .input("y", DType::kFloat, {int64_t{4}})
      .node("Where", {"c", "x", "y"}, {"o"})
      .output("o");
  EXPECT_EQ(static_dims(output_value(import(g, 16), "o")), (std::vector<int64_t>{2, 3, 4}));

  GraphBuilder bad;
  bad.input("c", DType::kInt32, {int64_t{2}})
      .input("x", DType::kFloat, {int64_t{2}})
      .node("Where", {"c", "x", "x"}, {"o"})
      .output("o");
  expect_error(bad, 16, "input 0 (condition) has dtype int32");
}

TEST(ImportElementwise, ClipBoundsAreAttributesBeforeOpset11AndInputsAfter) {
  GraphBuilder attrs;
  attrs.initializer("x", DType::kFloat, {3}, {-5, 0.5, 5})
      .node("Clip", {"x"}, {"y"}, {at("min", -1.0f), at("max", 1.0f)})
      .output("y");
  EXPECT_EQ(folded(output_value(import(attrs, 6), "y")), (std::vector<double>{-1, 0.5, 1}));

  GraphBuilder inputs;  // only max given; min omitted
  inputs.initializer("x", DType::kInt32, {3}, {-5, 0, 5})
      .initializer("hi", DType::kInt32, {}, {2})
      .node("Clip", {"x", "", "hi"}, {"y"})
      .output("y");
  EXPECT_EQ(folded(output_value(import(inputs, 13), "y")), (std::vector<double>{-5, 0, 2}));

  GraphBuilder bad;
  bad.input("x", DType::kFloat, {int64_t{3}})
      .input("lo", DType::kFloat, {int64_t{2}})
      .node("Clip", {"x", "lo"}, {"y"})
      .output("y");
  expect_error(bad, 13, "input 1 (min) has shape");
}

TEST(ImportElementwise, CastToIsANameBeforeOpset6AndADtypeNumberAfter) {
  GraphBuilder named;
  named.input("x", DType::kFloat, {int64_t{2}})
      .node("Cast", {"x"}, {"y"}, {at("to", std::string("INT64"))})
      .output("y");
  const ImportedModel m = import(named, 1);
  EXPECT_EQ(output_value(m, "y").dtype(), DType::kInt64);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);

  GraphBuilder numbered;
  numbered.initializer("x", DType::kFloat, {2}, {1.7, -2.5})
      .node("Cast", {"x"}, {"y"}, {at("to", int64_t{6})})
      .output("y");
  const ImportedModel m_y = import(numbered, 13);
  const Value& y = output_value(m_y, "y");
  EXPECT_EQ(y.dtype(), DType::kInt32);
  EXPECT_EQ(folded(y), (std::vector<double>{1, -2}));

  GraphBuilder bad;
  bad.input("x", DType::kFloat, {int64_t{2}})
      .node("Cast", {"x"}, {"y"}, {at("to", int64_t{17})})  // float8e4m3fn: opset 19 on
      .output("y");
  expect_error(bad, 13, "attribute 'to' is float8e4m3fn, which Cast does not produce");
  EXPECT_EQ(output_value(import(bad, 19), "y").dtype(), DType::kFloat8E4M3FN);
}

TEST(ImportElementwise, CastLikeTakesTheTargetsDtypeAndTheInputsAxes) {
  GraphBuilder g;
  g.input("x", DType::kInt64, {std::string("N")})
      .input("t", DType::kFloat16, {int64_t{7}})
      .node("CastLike", {"x", "t"}, {"y"})
      .output("y");
  const ImportedModel m = import(g, 15);
  EXPECT_EQ(output_value(m, "y").dtype(), DType::kFloat16);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);
}

}  // namespace
}  // namespace geon
