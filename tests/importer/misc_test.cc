// Import rules of the misc family: random ops, windows, DFT/STFT/MelWeightMatrix, strings,
// TfIdfVectorizer, ImageDecoder, BitCast, and the ai.onnx.ml, ai.onnx.preview.training and
// ai.onnx.preview domains.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "core/base/error.h"
#include "tests/importer/model_builder.h"

namespace geon {
namespace {

using namespace testing_models;
using Domains = std::vector<std::pair<std::string, int>>;

ImportedModel import_with(const GraphBuilder& g, int opset, const Domains& domains) {
  const std::string bytes = model_bytes(g, opset, domains);
  ImportOptions opt;
  opt.trust_value_info = false;
  return import_model_bytes(std::as_bytes(std::span(bytes.data(), bytes.size())), opt);
}

std::string import_error(const GraphBuilder& g, int opset, const Domains& domains = {}) {
  try {
    import_with(g, opset, domains);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "the import succeeded";
  return {};
}

#define EXPECT_HAS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "message: " << (text)

// ---- random ----

TEST(ImportMisc, RandomNormalTakesShapeAndDtypeFromAttributes) {
  GraphBuilder g;
  g.node("RandomNormal", {}, {"y"}, {{"shape", std::vector<int64_t>{2, 5}}})
      .node("RandomUniform", {}, {"d"},
            {{"shape", std::vector<int64_t>{3}}, {"dtype", int64_t{11}}})
      .output("y")
      .output("d");
  const ImportedModel m = import(g, 17);
  EXPECT_EQ(output_value(m, "y").dtype(), DType::kFloat);  // the default
  EXPECT_EQ(static_dims(output_value(m, "y")), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(output_value(m, "d").dtype(), DType::kDouble);
  EXPECT_FALSE(output_value(m, "y").data);  // never folded
}

TEST(ImportMisc, RandomDtypeMustBeAFloatTypeAndBfloat16NeedsOpset22) {
  GraphBuilder g;
  g.node("RandomNormal", {}, {"y"}, {{"shape", std::vector<int64_t>{2}}, {"dtype", int64_t{6}}})
      .output("y");
  EXPECT_HAS(import_error(g, 17),
             "attribute 'dtype' is int32 but must be one of float16, float, double");
  GraphBuilder bf;
  bf.node("RandomNormal", {}, {"y"}, {{"shape", std::vector<int64_t>{2}}, {"dtype", int64_t{16}}})
      .output("y");
  EXPECT_HAS(import_error(bf, 21), "attribute 'dtype' is bfloat16");
  EXPECT_EQ(output_value(import(bf, 22), "y").dtype(), DType::kBFloat16);
}

TEST(ImportMisc, RandomLikeKeepsTheInputsAxesAndDtypeUnlessGiven) {
  GraphBuilder g;
  g.input("x", DType::kDouble, {int64_t{3}, std::string("N")})
      .node("RandomUniformLike", {"x"}, {"u"})
      .node("RandomNormalLike", {"x"}, {"n"}, {{"dtype", int64_t{10}}})
      .output("u")
      .output("n");
  const ImportedModel m = import(g, 17);
  EXPECT_EQ(output_value(m, "u").dtype(), DType::kDouble);
  EXPECT_EQ(output_value(m, "u").axes, output_value(m, "x").axes);
  EXPECT_EQ(output_value(m, "n").dtype(), DType::kFloat16);

  GraphBuilder ints;
  ints.input("i", DType::kInt32, {int64_t{3}}).node("RandomUniformLike", {"i"}, {"u"}).output("u");
  EXPECT_HAS(import_error(ints, 17), "the output dtype (input 0's, no 'dtype' given) is int32");
}

TEST(ImportMisc, MultinomialAndBernoulli) {
  GraphBuilder g;
  g.input("p", DType::kFloat, {int64_t{4}, int64_t{10}})
      .node("Multinomial", {"p"}, {"s"}, {{"sample_size", int64_t{3}}, {"dtype", int64_t{7}}})
      .node("Bernoulli", {"p"}, {"b"}, {{"dtype", int64_t{9}}})
      .output("s")
      .output("b");
  const ImportedModel m = import(g, 17);
  const Value& s = output_value(m, "s");
  EXPECT_EQ(s.dtype(), DType::kInt64);
  EXPECT_EQ(static_dims(s), (std::vector<int64_t>{4, 3}));
  EXPECT_TRUE(same_axis(s.axes[0], output_value(m, "p").axes[0]));
  EXPECT_EQ(output_value(m, "b").dtype(), DType::kBool);
  EXPECT_EQ(output_value(m, "b").axes, output_value(m, "p").axes);
}

// ---- windows, DFT, STFT, MelWeightMatrix ----

TEST(ImportMisc, WindowLengthComesFromAConstantSizeAndIsFolded) {
  GraphBuilder g;
  g.initializer("n", DType::kInt64, {}, {4})
      .input("m", DType::kInt32, {})
      .node("HannWindow", {"n"}, {"w"})
      .node("HammingWindow", {"m"}, {"u"}, {{"output_datatype", int64_t{11}}})
      .output("w")
      .output("u");
  const ImportedModel m = import(g, 17);
  const Value& w = output_value(m, "w");
  EXPECT_EQ(static_dims(w), (std::vector<int64_t>{4}));
  ASSERT_TRUE(w.data);
  // Periodic Hann of length 4: 0, 0.5, 1, 0.5.
  EXPECT_NEAR(element_as_double(*w.data, 1), 0.5, 1e-6);
  EXPECT_NEAR(element_as_double(*w.data, 2), 1.0, 1e-6);
  const Value& u = output_value(m, "u");
  EXPECT_EQ(u.dtype(), DType::kDouble);
  ASSERT_EQ(u.rank(), 1);
  EXPECT_TRUE(u.axes[0].length.is_unknown());
}

TEST(ImportMisc, WindowSizeMustNotBeNegative) {
  GraphBuilder g;
  g.initializer("n", DType::kInt64, {}, {-3}).node("BlackmanWindow", {"n"}, {"w"}).output("w");
  EXPECT_HAS(import_error(g, 17), "input 0 (size) is -3, a negative length");
}

// x [1, 8, 5, 1] (real signal).
GraphBuilder dft_input() {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{1}, int64_t{8}, int64_t{5}, int64_t{1}});
  return g;
}

TEST(ImportMisc, Dft17TakesTheAxisAttributeDefault1) {
  GraphBuilder g = dft_input();
  g.node("DFT", {"x"}, {"y"})
      .node("DFT", {"x"}, {"r"}, {{"axis", int64_t{2}}, {"onesided", int64_t{1}}});
  g.output("y").output("r");
  const ImportedModel m = import(g, 17);
  EXPECT_EQ(static_dims(output_value(m, "y")), (std::vector<int64_t>{1, 8, 5, 2}));
  EXPECT_EQ(static_dims(output_value(m, "r")), (std::vector<int64_t>{1, 8, 3, 2}));
  // Dims the transform does not touch keep their axes.
  EXPECT_TRUE(same_axis(output_value(m, "r").axes[1], output_value(m, "x").axes[1]));
}

TEST(ImportMisc, Dft20TakesTheAxisAsAnInputDefaultMinus2) {
  GraphBuilder g = dft_input();
  g.initializer("one", DType::kInt64, {}, {1})
      .initializer("len", DType::kInt64, {}, {6})
      .node("DFT", {"x", "", "one"}, {"y"}, {{"onesided", int64_t{1}}})
      .node("DFT", {"x", "len"}, {"z"})
      .output("y")
      .output("z");
  const ImportedModel m = import(g, 20);
  EXPECT_EQ(static_dims(output_value(m, "y")), (std::vector<int64_t>{1, 5, 5, 2}));
  EXPECT_EQ(static_dims(output_value(m, "z")), (std::vector<int64_t>{1, 8, 6, 2}));
  GraphBuilder attr = dft_input();
  attr.node("DFT", {"x"}, {"y"}, {{"axis", int64_t{1}}}).output("y");
  EXPECT_HAS(import_error(attr, 20), "attribute 'axis' is an input (input 2) from opset 20");
}

TEST(ImportMisc, DftInverseOnesidedGivesARealSignalOfTwiceTheBins) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{1}, int64_t{6}, int64_t{2}})
      .node("DFT", {"x"}, {"y"}, {{"inverse", int64_t{1}}, {"onesided", int64_t{1}}})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(g, 17), "y")), (std::vector<int64_t>{1, 10, 1}));
}

TEST(ImportMisc, DftWithAnAxisKnownOnlyAtRunTime) {
  GraphBuilder g = dft_input();
  g.input("axis", DType::kInt64, {})
      .node("DFT", {"x", "", "axis"}, {"y"})
      .node("DFT", {"x", "", "axis"}, {"r"}, {{"onesided", int64_t{1}}})
      .output("y")
      .output("r");
  const ImportedModel m = import(g, 20);
  // Without onesided or dft_length no dim changes length, wherever the axis is.
  EXPECT_EQ(static_dims(output_value(m, "y")), (std::vector<int64_t>{1, 8, 5, 2}));
  const Value& r = output_value(m, "r");
  ASSERT_EQ(r.rank(), 4);
  EXPECT_TRUE(r.axes[1].length.is_unknown());
  EXPECT_EQ(r.axes[3].length, Length::known(2));
}

TEST(ImportMisc, DftRejectsALastDimOtherThan1Or2AndTheComplexAxis) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{1}, int64_t{8}, int64_t{3}})
      .node("DFT", {"x"}, {"y"})
      .output("y");
  EXPECT_HAS(import_error(g, 17), "input 0's last dim is 3; it must be 1 (real) or 2 (complex)");
  GraphBuilder last = dft_input();
  last.node("DFT", {"x"}, {"y"}, {{"axis", int64_t{3}}}).output("y");
  EXPECT_HAS(import_error(last, 17), "axis 3 is out of range for rank 4");
}

TEST(ImportMisc, StftFramesAndBinsFromConstants) {
  GraphBuilder g;
  g.input("s", DType::kFloat, {int64_t{1}, int64_t{128}, int64_t{1}})
      .initializer("step", DType::kInt64, {}, {8})
      .input("window", DType::kFloat, {int64_t{16}})
      .node("STFT", {"s", "step", "window"}, {"y"})
      .output("y");
  EXPECT_EQ(static_dims(output_value(import(g, 17), "y")), (std::vector<int64_t>{1, 15, 9, 2}));
}

TEST(ImportMisc, StftWindowAndFrameLengthMustAgree) {
  GraphBuilder g;
  g.input("s", DType::kFloat, {int64_t{1}, int64_t{128}, int64_t{1}})
      .initializer("step", DType::kInt64, {}, {8})
      .initializer("len", DType::kInt64, {}, {10})
      .input("window", DType::kFloat, {int64_t{16}})
      .node("STFT", {"s", "step", "window", "len"}, {"y"})
      .output("y");
  EXPECT_HAS(import_error(g, 17), "input 3 (frame_length) is 10 but the window has 16 entries");
}

TEST(ImportMisc, MelWeightMatrixShapeFromConstants) {
  GraphBuilder g;
  g.initializer("bins", DType::kInt32, {}, {8})
      .initializer("n", DType::kInt32, {}, {16})
      .initializer("rate", DType::kInt32, {}, {8192})
      .initializer("lo", DType::kFloat, {}, {0})
      .initializer("hi", DType::kFloat, {}, {4096})
      .node("MelWeightMatrix", {"bins", "n", "rate", "lo", "hi"}, {"w"})
      .output("w");
  EXPECT_EQ(static_dims(output_value(import(g, 17), "w")), (std::vector<int64_t>{9, 8}));
}

// ---- BitCast ----

TEST(ImportMisc, BitCastKeepsAxesAndFoldsConstants) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{2}, int64_t{3}})
      .initializer("one", DType::kFloat, {1}, {1.0})
      .node("BitCast", {"x"}, {"y"}, {{"to", int64_t{6}}})
      .node("BitCast", {"one"}, {"bits"}, {{"to", int64_t{12}}})
      .output("y")
      .output("bits");
  const ImportedModel m = import(g, 26);
  EXPECT_EQ(output_value(m, "y").dtype(), DType::kInt32);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);
  ASSERT_TRUE(output_value(m, "bits").data);
  EXPECT_EQ(element_as_int(*output_value(m, "bits").data, 0), 0x3f800000);
}

TEST(ImportMisc, BitCastNeedsEqualWidths) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{2}})
      .node("BitCast", {"x"}, {"y"}, {{"to", int64_t{7}}})
      .output("y");
  EXPECT_HAS(import_error(g, 26),
             "input 0 is float (32 bits) but 'to' is int64 (64 bits); the widths must match");
}

// ---- strings, TfIdfVectorizer, ImageDecoder ----

TEST(ImportMisc, StringNormalizerWithStopwordsShrinksTheLastDim) {
  GraphBuilder g;
  g.input("x", DType::kString, {int64_t{1}, int64_t{6}})
      .node("StringNormalizer", {"x"}, {"y"}, {{"stopwords", std::vector<std::string>{"a"}}})
      .node("StringNormalizer", {"x"}, {"z"}, {{"case_change_action", std::string("LOWER")}})
      .output("y")
      .output("z");
  const ImportedModel m = import(g, 10);
  const Value& y = output_value(m, "y");
  ASSERT_EQ(y.rank(), 2);
  EXPECT_TRUE(same_axis(y.axes[0], output_value(m, "x").axes[0]));
  EXPECT_TRUE(y.axes[1].length.is_unknown());
  EXPECT_EQ(output_value(m, "z").axes, output_value(m, "x").axes);
  GraphBuilder bad;
  bad.input("x", DType::kString, {int64_t{3}})
      .node("StringNormalizer", {"x"}, {"y"}, {{"case_change_action", std::string("TITLE")}})
      .output("y");
  EXPECT_HAS(import_error(bad, 10), "attribute 'case_change_action' must be NONE, LOWER or UPPER");
}

TEST(ImportMisc, StringSplitAddsASubstringDim) {
  GraphBuilder g;
  g.input("x", DType::kString, {int64_t{2}, int64_t{3}})
      .node("StringSplit", {"x"}, {"parts", "counts"})
      .node("StringConcat", {"x", "x"}, {"joined"})
      .node("RegexFullMatch", {"x"}, {"match"}, {{"pattern", std::string("a+")}})
      .output("parts")
      .output("counts")
      .output("joined")
      .output("match");
  const ImportedModel m = import(g, 20);
  const Value& parts = output_value(m, "parts");
  ASSERT_EQ(parts.rank(), 3);
  EXPECT_TRUE(parts.axes[2].length.is_unknown());
  EXPECT_EQ(output_value(m, "counts").axes, output_value(m, "x").axes);
  EXPECT_EQ(output_value(m, "counts").dtype(), DType::kInt64);
  EXPECT_EQ(static_dims(output_value(m, "joined")), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(output_value(m, "match").dtype(), DType::kBool);
}

TEST(ImportMisc, StringOpsNeedStrings) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{2}}).node("StringSplit", {"x"}, {"p", "c"}).output("p");
  EXPECT_HAS(import_error(g, 20), "input 0 is float but must be one of string");
}

TEST(ImportMisc, TfIdfVectorizerOutputsOneColumnPerNgramIndex) {
  GraphBuilder g;
  g.input("x", DType::kInt32, {int64_t{2}, int64_t{6}})
      .node("TfIdfVectorizer", {"x"}, {"y"},
            {{"mode", std::string("TF")},
             {"min_gram_length", int64_t{2}},
             {"max_gram_length", int64_t{2}},
             {"max_skip_count", int64_t{0}},
             {"ngram_counts", std::vector<int64_t>{0, 4}},
             {"ngram_indexes", std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}},
             {"pool_int64s", std::vector<int64_t>{2, 3, 5, 4, 5, 6, 7, 8, 6, 7}}})
      .output("y");
  const ImportedModel m = import(g, 9);
  EXPECT_EQ(output_value(m, "y").dtype(), DType::kFloat);
  EXPECT_EQ(static_dims(output_value(m, "y")), (std::vector<int64_t>{2, 7}));
}

TEST(ImportMisc, TfIdfVectorizerPoolMustMatchTheInput) {
  GraphBuilder g;
  g.input("x", DType::kString, {int64_t{6}})
      .node("TfIdfVectorizer", {"x"}, {"y"},
            {{"mode", std::string("TF")},
             {"min_gram_length", int64_t{1}},
             {"max_gram_length", int64_t{1}},
             {"max_skip_count", int64_t{0}},
             {"ngram_counts", std::vector<int64_t>{0}},
             {"ngram_indexes", std::vector<int64_t>{0, 1}},
             {"pool_int64s", std::vector<int64_t>{2, 3}}})
      .output("y");
  EXPECT_HAS(import_error(g, 9), "input 0 is string but the pool is 'pool_int64s'");
}

TEST(ImportMisc, ImageDecoderChannelsFollowThePixelFormat) {
  GraphBuilder g;
  g.input("bytes", DType::kUInt8, {int64_t{100}})
      .node("ImageDecoder", {"bytes"}, {"rgb"})
      .node("ImageDecoder", {"bytes"}, {"gray"}, {{"pixel_format", std::string("Grayscale")}})
      .output("rgb")
      .output("gray");
  const ImportedModel m = import(g, 20);
  ASSERT_EQ(output_value(m, "rgb").rank(), 3);
  EXPECT_EQ(output_value(m, "rgb").axes[2].length, Length::known(3));
  EXPECT_EQ(output_value(m, "gray").axes[2].length, Length::known(1));
  GraphBuilder bad;
  bad.input("bytes", DType::kUInt8, {int64_t{100}})
      .node("ImageDecoder", {"bytes"}, {"y"}, {{"pixel_format", std::string("CMYK")}})
      .output("y");
  EXPECT_HAS(import_error(bad, 20), "attribute 'pixel_format' must be RGB, BGR or Grayscale");
}

// ---- ai.onnx.ml ----

TEST(ImportMisc, LabelEncoderOutputDtypeFollowsTheValues) {
  GraphBuilder g;
  g.input("x", DType::kString, {int64_t{5}})
      .node("LabelEncoder", {"x"}, {"y"},
            {{"keys_strings", std::vector<std::string>{"a", "b"}},
             {"values_int64s", std::vector<int64_t>{1, 2}}},
            "ai.onnx.ml")
      .node("LabelEncoder", {"x"}, {"z"},
            {{"keys_strings", std::vector<std::string>{"a"}},
             Attr::tensor("values_tensor", DType::kInt16, {1}, {7})},
            "ai.onnx.ml")
      .output("y")
      .output("z");
  const ImportedModel m = import_with(g, 17, {{"ai.onnx.ml", 4}});
  EXPECT_EQ(output_value(m, "y").dtype(), DType::kInt64);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);
  EXPECT_EQ(output_value(m, "z").dtype(), DType::kInt16);
  // values_tensor is new in ai.onnx.ml opset 4.
  EXPECT_HAS(import_error(g, 17, {{"ai.onnx.ml", 2}}),
             "attribute 'values_tensor' needs ai.onnx.ml opset 4");
}

TEST(ImportMisc, LabelEncoderKeysAndValuesMustPair) {
  GraphBuilder g;
  g.input("x", DType::kString, {int64_t{5}})
      .node("LabelEncoder", {"x"}, {"y"},
            {{"keys_strings", std::vector<std::string>{"a", "b"}},
             {"values_int64s", std::vector<int64_t>{1}}},
            "ai.onnx.ml")
      .output("y");
  EXPECT_HAS(import_error(g, 17, {{"ai.onnx.ml", 2}}),
             "the keys have 2 entries but the values have 1");
}

TEST(ImportMisc, ArrayFeatureExtractorAndBinarizer) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{3}, int64_t{4}})
      .input("v", DType::kFloat, {int64_t{4}})
      .input("i", DType::kInt64, {int64_t{2}})
      .node("ArrayFeatureExtractor", {"x", "i"}, {"z"}, {}, "ai.onnx.ml")
      .node("ArrayFeatureExtractor", {"v", "i"}, {"row"}, {}, "ai.onnx.ml")
      .node("Binarizer", {"x"}, {"b"}, {{"threshold", 0.5f}}, "ai.onnx.ml")
      .output("z")
      .output("row")
      .output("b");
  const ImportedModel m = import_with(g, 17, {{"ai.onnx.ml", 1}});
  EXPECT_EQ(static_dims(output_value(m, "z")), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(static_dims(output_value(m, "row")),
            (std::vector<int64_t>{1, 2}));  // a vector: one row
  EXPECT_EQ(output_value(m, "b").axes, output_value(m, "x").axes);
}

TEST(ImportMisc, TreeEnsembleOutputsOneColumnPerTarget) {
  GraphBuilder g;
  g.input("x", DType::kDouble, {int64_t{3}, int64_t{2}})
      .node("TreeEnsemble", {"x"}, {"y"},
            {{"n_targets", int64_t{2}},
             {"tree_roots", std::vector<int64_t>{0}},
             {"nodes_featureids", std::vector<int64_t>{0}},
             {"nodes_truenodeids", std::vector<int64_t>{0}},
             {"nodes_trueleafs", std::vector<int64_t>{1}},
             {"nodes_falsenodeids", std::vector<int64_t>{1}},
             {"nodes_falseleafs", std::vector<int64_t>{1}},
             Attr::tensor("nodes_modes", DType::kUInt8, {1}, {0}),
             Attr::tensor("nodes_splits", DType::kDouble, {1}, {0.5}),
             {"leaf_targetids", std::vector<int64_t>{0, 1}},
             Attr::tensor("leaf_weights", DType::kDouble, {2}, {1, 2})},
            "ai.onnx.ml")
      .output("y");
  const ImportedModel m = import_with(g, 17, {{"ai.onnx.ml", 5}});
  EXPECT_EQ(output_value(m, "y").dtype(), DType::kDouble);
  EXPECT_EQ(static_dims(output_value(m, "y")), (std::vector<int64_t>{3, 2}));
}

// ---- ai.onnx.preview.training ----

TEST(ImportMisc, AdamOutputsFollowTheirInputsPerGroup) {
  GraphBuilder g;
  g.input("r", DType::kFloat, {}).input("t", DType::kInt64, {});
  for (const char* p : {"x", "g", "v", "h"})
    g.input(std::string(p) + "1", DType::kFloat, {int64_t{1}})
        .input(std::string(p) + "2", DType::kFloat, {int64_t{2}, int64_t{3}});
  g.node("Adam", {"r", "t", "x1", "x2", "g1", "g2", "v1", "v2", "h1", "h2"},
         {"x1n", "x2n", "v1n", "v2n", "h1n", "h2n"}, {}, "ai.onnx.preview.training")
      .output("x2n")
      .output("h1n");
  const ImportedModel m = import_with(g, 17, {{"ai.onnx.preview.training", 1}});
  EXPECT_EQ(output_value(m, "x2n").axes, output_value(m, "x2").axes);
  EXPECT_EQ(output_value(m, "h1n").axes, output_value(m, "h1").axes);
}

TEST(ImportMisc, OptimizerInputsMustComeInWholeGroups) {
  GraphBuilder g;
  g.input("r", DType::kFloat, {}).input("t", DType::kInt64, {});
  for (const char* p : {"x", "g", "h", "extra"}) g.input(p, DType::kFloat, {int64_t{2}});
  g.node("Adagrad", {"r", "t", "x", "g", "h", "extra"}, {"xn", "hn"}, {},
         "ai.onnx.preview.training")
      .output("xn");
  EXPECT_HAS(import_error(g, 17, {{"ai.onnx.preview.training", 1}}),
             "takes R, T and then X, G and H for each optimized tensor; got 6 inputs");
  GraphBuilder m;
  m.input("r", DType::kFloat, {}).input("t", DType::kInt64, {});
  for (const char* p : {"x", "g", "v"}) m.input(p, DType::kFloat, {int64_t{2}});
  m.node("Momentum", {"r", "t", "x", "g", "v"}, {"xn", "vn"},
         {{"alpha", 0.9f},
          {"beta", 1.0f},
          {"norm_coefficient", 0.0f},
          {"mode", std::string("heavy")}},
         "ai.onnx.preview.training")
      .output("xn");
  EXPECT_HAS(import_error(m, 17, {{"ai.onnx.preview.training", 1}}),
             "attribute 'mode' must be 'standard' or 'nesterov', got 'heavy'");
}

TEST(ImportMisc, GradientOutputsHaveTheShapesOfXs) {
  GraphBuilder g;
  g.input("a", DType::kFloat, {int64_t{3}})
      .input("b", DType::kFloat, {int64_t{2}, int64_t{3}})
      .node("Add", {"a", "b"}, {"c"})
      .node("Gradient", {"a", "b"}, {"da", "db"},
            {{"xs", std::vector<std::string>{"a", "b"}}, {"y", std::string("c")}},
            "ai.onnx.preview.training")
      .output("da")
      .output("db");
  const ImportedModel m = import_with(g, 17, {{"ai.onnx.preview.training", 1}});
  EXPECT_EQ(static_dims(output_value(m, "da")), (std::vector<int64_t>{3}));
  EXPECT_EQ(static_dims(output_value(m, "db")), (std::vector<int64_t>{2, 3}));
}

// ---- ai.onnx.preview ----

TEST(ImportMisc, FlexAttentionOutputIsQueriesWithTheValueHeadSize) {
  GraphBuilder g;
  g.input("q", DType::kFloat, {int64_t{2}, int64_t{8}, int64_t{4}, int64_t{16}})
      .input("k", DType::kFloat, {int64_t{2}, int64_t{2}, int64_t{6}, int64_t{16}})
      .input("v", DType::kFloat, {int64_t{2}, int64_t{2}, int64_t{6}, int64_t{32}});
  auto mod = std::make_shared<GraphBuilder>("score_mod");
  mod->input("s", DType::kFloat,
             {std::string("B"), std::string("H"), std::string("L"), std::string("S")});
  mod->node("Identity", {"s"}, {"s_out"}).output("s_out");
  g.node("FlexAttention", {"q", "k", "v"}, {"y"}, {{"score_mod", mod}}, "ai.onnx.preview")
      .output("y");
  const ImportedModel m = import_with(g, 26, {{"ai.onnx.preview", 1}});
  const Value& y = output_value(m, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{2, 8, 4, 32}));
  EXPECT_TRUE(same_axis(y.axes[2], output_value(m, "q").axes[2]));
  EXPECT_TRUE(same_axis(y.axes[3], output_value(m, "v").axes[3]));
}

TEST(ImportMisc, FlexAttentionQueryHeadsMustBeAMultipleOfKeyHeads) {
  GraphBuilder g;
  g.input("q", DType::kFloat, {int64_t{2}, int64_t{3}, int64_t{4}, int64_t{16}})
      .input("k", DType::kFloat, {int64_t{2}, int64_t{2}, int64_t{6}, int64_t{16}})
      .input("v", DType::kFloat, {int64_t{2}, int64_t{2}, int64_t{6}, int64_t{16}})
      .node("FlexAttention", {"q", "k", "v"}, {"y"}, {}, "ai.onnx.preview")
      .output("y");
  EXPECT_HAS(import_error(g, 26, {{"ai.onnx.preview", 1}}),
             "Q has 3 heads, not a multiple of K's 2");
}

}  // namespace
}  // namespace geon
