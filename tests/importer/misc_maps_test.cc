// Import rules of the ai.onnx.ml ops on maps (importer/ops/misc_maps.cc): the types and shapes
// ZipMap, DictVectorizer and CastMap give (onnxruntime's), their attribute and input checks,
// and sequences of maps refused by the sequence ops and control flow.
#include <gtest/gtest.h>

#include "core/base/error.h"
#include "tests/importer/model_builder.h"

namespace geon {
namespace {

using namespace testing_models;
using G = std::shared_ptr<GraphBuilder>;

const std::vector<std::pair<std::string, int>> kMl = {{"ai.onnx.ml", 3}};

ImportedModel import_ml(const GraphBuilder& g, int opset = 17) {
  const std::string bytes = model_bytes(g, opset, kMl);
  ImportOptions opt;
  opt.trust_value_info = false;
  return import_model_bytes(std::as_bytes(std::span(bytes.data(), bytes.size())), opt);
}

std::string import_error(const GraphBuilder& g, int opset = 17) {
  try {
    import_ml(g, opset);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "the import succeeded";
  return {};
}

#define EXPECT_HAS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "message: " << (text)

const std::string kMlDomain = "ai.onnx.ml";

GraphBuilder zip_map(std::vector<Dim> dims, std::vector<Attr> attrs, DType t = DType::kFloat) {
  GraphBuilder g;
  g.input("x", t, std::move(dims)).node("ZipMap", {"x"}, {"z"}, std::move(attrs), kMlDomain);
  g.output("z");
  return g;
}

// ---- ZipMap ----

TEST(ImportMaps, ZipMapGivesASequenceOfMapsKeyedByTheLabels) {
  const Value z = output_value(
      import_ml(zip_map({std::string("N"), int64_t{3}},
                        {{"classlabels_strings", std::vector<std::string>{"a", "b", "c"}}})),
      "z");
  EXPECT_EQ(z.type,
            (ValueType{TypeKind::kSequence, DType::kFloat, TypeKind::kMap, DType::kString}));
  EXPECT_EQ(to_string(z.type), "seq(map(string,float))");
  const Value i = output_value(
      import_ml(zip_map({int64_t{2}}, {{"classlabels_int64s", std::vector<int64_t>{5, 3}}})), "z");
  EXPECT_EQ(to_string(i.type), "seq(map(int64,float))");
}

TEST(ImportMaps, ZipMapNeedsExactlyOneLabelList) {
  EXPECT_HAS(import_error(zip_map({int64_t{1}, int64_t{2}},
                                  {{"classlabels_strings", std::vector<std::string>{"a", "b"}},
                                   {"classlabels_int64s", std::vector<int64_t>{1, 2}}})),
             "are both set");
  EXPECT_HAS(import_error(zip_map({int64_t{1}, int64_t{2}}, {})),
             "needs one of the attributes 'classlabels_strings' and 'classlabels_int64s'");
}

TEST(ImportMaps, ZipMapChecksTheInput) {
  const Attr labels{"classlabels_int64s", std::vector<int64_t>{1, 2}};
  EXPECT_HAS(import_error(zip_map({int64_t{1}, int64_t{3}}, {labels})),
             "input 0 has 3 columns but there are 2 class labels");
  EXPECT_HAS(import_error(zip_map({int64_t{1}, int64_t{1}, int64_t{2}}, {labels})),
             "input 0 must be [N, C] or [C], got rank 3");
  EXPECT_HAS(import_error(zip_map({int64_t{1}, int64_t{2}}, {labels}, DType::kDouble)),
             "input 0 is double");
  GraphBuilder m;
  m.input_map("x", DType::kInt64, DType::kFloat)
      .node("ZipMap", {"x"}, {"z"}, {labels}, kMlDomain)
      .output("z");
  EXPECT_HAS(import_error(m), "input 0 must be a tensor, got map(int64,float)");
}

// ---- DictVectorizer ----

// One ml op y = op(x) on a map input x.
GraphBuilder map_op(const char* op, DType key, DType value, std::vector<Attr> attrs) {
  GraphBuilder g;
  g.input_map("x", key, value).node(op, {"x"}, {"y"}, std::move(attrs), kMlDomain).output("y");
  return g;
}

GraphBuilder dict_vectorizer(DType key, DType value, std::vector<Attr> attrs) {
  return map_op("DictVectorizer", key, value, std::move(attrs));
}

TEST(ImportMaps, DictVectorizerGivesOneRowOfTheVocabularysLength) {
  const Value y =
      output_value(import_ml(dict_vectorizer(
                       DType::kString, DType::kFloat,
                       {{"string_vocabulary", std::vector<std::string>{"a", "c", "b", "z"}}})),
                   "y");
  EXPECT_EQ(y.dtype(), DType::kFloat);
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{1, 4}));
  const Value s = output_value(
      import_ml(dict_vectorizer(DType::kInt64, DType::kString,
                                {{"int64_vocabulary", std::vector<int64_t>{3, 1, 2}}})),
      "y");
  EXPECT_EQ(s.dtype(), DType::kString);
  EXPECT_EQ(static_dims(s), (std::vector<int64_t>{1, 3}));
}

TEST(ImportMaps, DictVectorizerNeedsOneVocabularyOfTheKeysType) {
  const Attr words{"string_vocabulary", std::vector<std::string>{"a"}};
  const Attr ids{"int64_vocabulary", std::vector<int64_t>{1}};
  EXPECT_HAS(import_error(dict_vectorizer(DType::kString, DType::kFloat, {words, ids})),
             "are both set");
  EXPECT_HAS(import_error(dict_vectorizer(DType::kString, DType::kFloat, {})),
             "needs one of the attributes 'string_vocabulary' and 'int64_vocabulary'");
  EXPECT_HAS(import_error(dict_vectorizer(DType::kInt64, DType::kFloat, {words})),
             "input 0's keys are int64 but the vocabulary is string");
}

TEST(ImportMaps, DictVectorizerTakesOnnxruntimesMapTypes) {
  const Attr ids{"int64_vocabulary", std::vector<int64_t>{1}};
  EXPECT_HAS(import_error(dict_vectorizer(DType::kInt64, DType::kInt64, {ids})),
             "the values of a map with int64 keys is int64");
  EXPECT_HAS(import_error(dict_vectorizer(DType::kInt32, DType::kFloat, {ids})),
             "input 0's keys must be string or int64, got int32");
  GraphBuilder t;
  t.input("x", DType::kFloat, {int64_t{2}})
      .node("DictVectorizer", {"x"}, {"y"}, {ids}, kMlDomain)
      .output("y");
  EXPECT_HAS(import_error(t), "input 0 must be a map, got float");
}

// ---- CastMap ----

GraphBuilder cast_map(DType value, std::vector<Attr> attrs, DType key = DType::kInt64) {
  return map_op("CastMap", key, value, std::move(attrs));
}

TEST(ImportMaps, CastMapDenseGivesOneRowOfUnknownLength) {
  const Value y = output_value(import_ml(cast_map(DType::kFloat, {})), "y");
  EXPECT_EQ(y.dtype(), DType::kFloat);  // TO_FLOAT by default
  ASSERT_TRUE(y.rank_known);
  ASSERT_EQ(y.rank(), 2);
  EXPECT_EQ(y.axes[0].length, Length::known(1));
  EXPECT_TRUE(y.axes[1].length.is_unknown());
  const Value s = output_value(
      import_ml(cast_map(DType::kString, {{"cast_to", std::string("TO_INT64")}})), "y");
  EXPECT_EQ(s.dtype(), DType::kInt64);
}

TEST(ImportMaps, CastMapSparseGivesMaxMapSlots) {
  const Value y =
      output_value(import_ml(cast_map(DType::kFloat, {{"cast_to", std::string("TO_STRING")},
                                                      {"map_form", std::string("SPARSE")},
                                                      {"max_map", int64_t{6}}})),
                   "y");
  EXPECT_EQ(y.dtype(), DType::kString);
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{1, 6}));
}

TEST(ImportMaps, CastMapChecksItsAttributesAndInput) {
  EXPECT_HAS(import_error(cast_map(DType::kFloat, {{"cast_to", std::string("TO_DOUBLE")}})),
             "attribute 'cast_to' must be TO_FLOAT, TO_STRING or TO_INT64, got 'TO_DOUBLE'");
  EXPECT_HAS(import_error(cast_map(DType::kFloat, {{"map_form", std::string("SPARS")}})),
             "attribute 'map_form' must be DENSE or SPARSE, got 'SPARS'");
  EXPECT_HAS(import_error(cast_map(DType::kFloat,
                                   {{"map_form", std::string("SPARSE")}, {"max_map", int64_t{0}}})),
             "attribute 'max_map' must be at least 1 for SPARSE, got 0");
  EXPECT_HAS(import_error(cast_map(DType::kFloat, {}, DType::kString)),
             "input 0's keys must be int64, got string");
  EXPECT_HAS(import_error(cast_map(DType::kDouble, {})), "input 0's values is double");
}

// ---- sequences of maps are no ONNX sequences ----

TEST(ImportMaps, SequenceOpsRefuseASequenceOfMaps) {
  struct Case {
    std::string op;
    std::vector<std::string> inputs;
    std::vector<Attr> attrs;
  };
  const std::vector<Case> cases = {
      {"SequenceAt", {"s", "p"}, {}},
      {"SequenceLength", {"s"}, {}},
      {"SequenceErase", {"s", "p"}, {}},
      {"SequenceInsert", {"s", "t", "p"}, {}},
      {"ConcatFromSequence", {"s"}, {{"axis", int64_t{0}}}},
  };
  for (const Case& c : cases) {
    GraphBuilder g;
    g.input_map_sequence("s", DType::kString, DType::kFloat)
        .input("p", DType::kInt64, {})
        .input("t", DType::kFloat, {int64_t{2}})
        .node(c.op, c.inputs, {"y"}, c.attrs)
        .output("y");
    EXPECT_HAS(import_error(g),
               "input 0 is a seq(map(string,float)); the sequence ops take "
               "sequences of tensors only")
        << c.op;
  }
  // A ZipMap's output, too.
  GraphBuilder z;
  z.input("x", DType::kFloat, {int64_t{1}, int64_t{2}})
      .node("ZipMap", {"x"}, {"s"}, {{"classlabels_int64s", std::vector<int64_t>{1, 2}}}, kMlDomain)
      .node("SequenceLength", {"s"}, {"n"})
      .output("n");
  EXPECT_HAS(import_error(z), "input 0 is a seq(map(int64,float))");
}

TEST(ImportMaps, SequenceMapRefusesASequenceOfMaps) {
  G body = std::make_shared<GraphBuilder>("body");
  body->input("e", DType::kFloat, {}).node("Identity", {"e"}, {"o"}).output("o");
  GraphBuilder g;
  g.input_map_sequence("s", DType::kInt64, DType::kFloat)
      .node("SequenceMap", {"s"}, {"y"}, {{"body", body}})
      .output("y");
  EXPECT_HAS(import_error(g), "input 0 is a seq(map(int64,float))");
}

TEST(ImportMaps, ControlFlowAndOptionalsRefuseASequenceOfMaps) {
  G then_g = std::make_shared<GraphBuilder>("then");
  then_g->node("Identity", {"s"}, {"t"}).output("t");
  G else_g = std::make_shared<GraphBuilder>("else");
  else_g->node("Identity", {"s"}, {"e"}).output("e");
  GraphBuilder g;
  g.input("c", DType::kBool, {})
      .input_map_sequence("s", DType::kString, DType::kFloat)
      .node("If", {"c"}, {"y"}, {{"then_branch", then_g}, {"else_branch", else_g}})
      .output("y");
  EXPECT_HAS(import_error(g), "seq(map(string,float)), which control flow does not carry");

  GraphBuilder o;
  o.input_map_sequence("s", DType::kString, DType::kFloat)
      .node("Optional", {"s"}, {"y"})
      .output("y");
  EXPECT_HAS(import_error(o),
             "input 0 must be a tensor or a sequence of tensors, got seq(map(string,float))");
  GraphBuilder h;
  h.input_map_sequence("s", DType::kString, DType::kFloat)
      .node("OptionalHasElement", {"s"}, {"y"})
      .output("y");
  EXPECT_HAS(import_error(h, 18), "an optional, a tensor or a sequence of tensors");
}

}  // namespace
}  // namespace geon
