// Import rules of the sequence family: element dtypes and shapes, element counts known from the
// nodes that built a sequence, SequenceMap bodies, and malformed nodes.
#include <gtest/gtest.h>

#include <memory>

#include "core/base/error.h"
#include "tests/importer/model_builder.h"

namespace geon {
namespace {

using namespace testing_models;
using G = std::shared_ptr<GraphBuilder>;

std::string import_error(const GraphBuilder& g, int opset) {
  try {
    import(g, opset);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "the import succeeded";
  return {};
}

#define EXPECT_HAS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "message: " << (text)

// x [2, 3, 4], y [2, 5, 4], z [2, 3, 4] and the position p = 0.
GraphBuilder three_tensors() {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{2}, int64_t{3}, int64_t{4}})
      .input("y", DType::kFloat, {int64_t{2}, int64_t{5}, int64_t{4}})
      .input("z", DType::kFloat, {int64_t{2}, int64_t{3}, int64_t{4}})
      .initializer("p", DType::kInt64, {}, {0});
  return g;
}

TEST(ImportSequence, ConstructKeepsTheLengthsItsElementsShare) {
  GraphBuilder g = three_tensors();
  g.node("SequenceConstruct", {"x", "y", "z"}, {"s"})
      .node("SequenceAt", {"s", "p"}, {"e"})
      .output("s")
      .output("e");
  const ImportedModel m = import(g, 12);
  const Value& s = output_value(m, "s");
  EXPECT_EQ(s.type, (ValueType{TypeKind::kSequence, DType::kFloat, TypeKind::kTensor}));
  const Value& e = output_value(m, "e");
  EXPECT_EQ(e.dtype(), DType::kFloat);
  ASSERT_EQ(e.rank(), 3);
  EXPECT_EQ(e.axes[0].length, Length::known(2));
  EXPECT_TRUE(e.axes[1].length.is_unknown());
  EXPECT_EQ(e.axes[2].length, Length::known(4));
  // An element is not the input tensor itself: its axes are its own.
  EXPECT_FALSE(same_axis(e.axes[0], output_value(m, "x").axes[0]));
}

TEST(ImportSequence, ConstructNeedsOneDtype) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{2}})
      .input("i", DType::kInt64, {int64_t{2}})
      .node("SequenceConstruct", {"x", "i"}, {"s"})
      .output("s");
  EXPECT_HAS(import_error(g, 12), "input 1 is int64 but earlier inputs are float");
}

TEST(ImportSequence, InsertIntoAnEmptySequenceTakesTheTensorsShape) {
  GraphBuilder g = three_tensors();
  g.node("SequenceEmpty", {}, {"s0"})
      .node("SequenceInsert", {"s0", "x"}, {"s1"})
      .node("SequenceAt", {"s1", "p"}, {"e"})
      .node("SequenceLength", {"s1"}, {"n"})
      .output("e")
      .output("n");
  const ImportedModel m = import(g, 12);
  EXPECT_EQ(static_dims(output_value(m, "e")), (std::vector<int64_t>{2, 3, 4}));
  const Value& n = output_value(m, "n");
  EXPECT_EQ(n.dtype(), DType::kInt64);
  EXPECT_EQ(n.rank(), 0);
  ASSERT_TRUE(n.data);
  EXPECT_EQ(element_as_int(*n.data, 0), 1);
}

TEST(ImportSequence, EmptyTakesItsDtypeFromTheAttribute) {
  GraphBuilder g;
  g.node("SequenceEmpty", {}, {"s"}, {{"dtype", int64_t{7}}}).output("s");
  EXPECT_EQ(output_value(import(g, 12), "s").dtype(), DType::kInt64);
  GraphBuilder bad;
  bad.node("SequenceEmpty", {}, {"s"}, {{"dtype", int64_t{99}}}).output("s");
  EXPECT_HAS(import_error(bad, 12), "attribute 'dtype' is 99, not an ONNX element type");
}

TEST(ImportSequence, InsertChecksTheDtypeAndAKnownPosition) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{2}})
      .input("i", DType::kInt32, {int64_t{2}})
      .node("SequenceConstruct", {"x"}, {"s"})
      .node("SequenceInsert", {"s", "i"}, {"t"})
      .output("t");
  EXPECT_HAS(import_error(g, 12), "input 1 is int32 but the sequence holds float");

  GraphBuilder far;
  far.input("x", DType::kFloat, {int64_t{2}})
      .initializer("p", DType::kInt64, {}, {3})
      .node("SequenceConstruct", {"x", "x"}, {"s"})
      .node("SequenceInsert", {"s", "x", "p"}, {"t"})
      .output("t");
  EXPECT_HAS(import_error(far, 12),
             "position 3 is out of range for a sequence of 2 elements (accepted: -2 to 2)");
}

TEST(ImportSequence, EraseAndAtCountElements) {
  GraphBuilder g = three_tensors();
  g.initializer("last", DType::kInt64, {}, {-1})
      .node("SequenceConstruct", {"x", "z"}, {"s"})
      .node("SequenceErase", {"s", "last"}, {"t"})
      .node("SequenceLength", {"t"}, {"n"})
      .node("SequenceAt", {"t", "last"}, {"e"})
      .output("n")
      .output("e");
  const ImportedModel m = import(g, 12);
  EXPECT_EQ(element_as_int(*output_value(m, "n").data, 0), 1);
  EXPECT_EQ(static_dims(output_value(m, "e")), (std::vector<int64_t>{2, 3, 4}));

  GraphBuilder empty;
  empty.node("SequenceEmpty", {}, {"s"}).node("SequenceErase", {"s"}, {"t"}).output("t");
  EXPECT_HAS(import_error(empty, 12), "input 0 is an empty sequence; there is nothing to erase");
}

TEST(ImportSequence, AtNeedsASequenceAndAnIntegerPosition) {
  GraphBuilder g = three_tensors();
  g.node("SequenceAt", {"x", "p"}, {"e"}).output("e");
  EXPECT_HAS(import_error(g, 12), "input 0 must be a sequence, got float");
  GraphBuilder pos;
  pos.input("x", DType::kFloat, {int64_t{2}})
      .input("f", DType::kFloat, {})
      .node("SequenceConstruct", {"x"}, {"s"})
      .node("SequenceAt", {"s", "f"}, {"e"})
      .output("e");
  EXPECT_HAS(import_error(pos, 12), "input 1 (position) must be int32 or int64, got float");
}

TEST(ImportSequence, SequenceInputsCarryTheirElementShape) {
  GraphBuilder g;
  g.input_sequence("s", DType::kFloat, {std::string("N"), int64_t{3}})
      .initializer("p", DType::kInt64, {}, {0})
      .node("SequenceAt", {"s", "p"}, {"e"})
      .output("e");
  const ImportedModel m1 = import(g, 12);
  const Value& e = output_value(m1, "e");
  ASSERT_EQ(e.rank(), 2);
  EXPECT_EQ(e.axes[0].length, Length::symbolic("N"));
  EXPECT_EQ(e.axes[1].length, Length::known(3));
}

TEST(ImportSequence, SplitToSequenceWithoutSplitGivesOneSlicePerIndex) {
  GraphBuilder g = three_tensors();
  g.node("SplitToSequence", {"x"}, {"s"}, {{"axis", int64_t{-1}}, {"keepdims", int64_t{0}}})
      .node("SequenceAt", {"s", "p"}, {"e"})
      .node("SequenceLength", {"s"}, {"n"})
      .output("e")
      .output("n");
  const ImportedModel m = import(g, 12);
  EXPECT_EQ(static_dims(output_value(m, "e")), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(element_as_int(*output_value(m, "n").data, 0), 4);
}

TEST(ImportSequence, SplitToSequenceWithAScalarOrListSplit) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{6}, int64_t{2}})
      .initializer("two", DType::kInt64, {}, {2})
      .initializer("parts", DType::kInt64, {2}, {1, 5})
      .initializer("p", DType::kInt64, {}, {0})
      .node("SplitToSequence", {"x", "two"}, {"a"})
      .node("SplitToSequence", {"x", "parts"}, {"b"})
      .node("SequenceAt", {"a", "p"}, {"ea"})
      .node("SequenceAt", {"b", "p"}, {"eb"})
      .node("SequenceLength", {"a"}, {"na"})
      .output("ea")
      .output("eb")
      .output("na");
  const ImportedModel m = import(g, 12);
  EXPECT_EQ(static_dims(output_value(m, "ea")), (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(output_value(m, "eb").axes[0].length.is_unknown());  // 1 or 5
  EXPECT_EQ(element_as_int(*output_value(m, "na").data, 0), 3);
}

TEST(ImportSequence, SplitToSequenceSplitsMustCoverTheAxis) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{6}})
      .initializer("parts", DType::kInt64, {2}, {1, 2})
      .node("SplitToSequence", {"x", "parts"}, {"s"})
      .output("s");
  EXPECT_HAS(import_error(g, 12), "input 1 (split) sums to 3 but axis 0 has length 6");
}

TEST(ImportSequence, ConcatFromSequenceJoinsAlongAnAxisOrANewOne) {
  GraphBuilder g = three_tensors();
  g.node("SequenceConstruct", {"x", "z"}, {"s"})
      .node("ConcatFromSequence", {"s"}, {"c"}, {{"axis", int64_t{1}}})
      .node("ConcatFromSequence", {"s"}, {"n"}, {{"axis", int64_t{-1}}, {"new_axis", int64_t{1}}})
      .output("c")
      .output("n");
  const ImportedModel m = import(g, 12);
  EXPECT_EQ(static_dims(output_value(m, "c")), (std::vector<int64_t>{2, 6, 4}));
  EXPECT_EQ(static_dims(output_value(m, "n")), (std::vector<int64_t>{2, 3, 4, 2}));
}

TEST(ImportSequence, ConcatFromSequenceNeedsAnAxisInRange) {
  GraphBuilder g = three_tensors();
  g.node("SequenceConstruct", {"x"}, {"s"})
      .node("ConcatFromSequence", {"s"}, {"c"}, {{"axis", int64_t{3}}})
      .output("c");
  EXPECT_HAS(import_error(g, 12), "axis 3 is out of range for rank 3");
  GraphBuilder none = three_tensors();
  none.node("SequenceConstruct", {"x"}, {"s"}).node("ConcatFromSequence", {"s"}, {"c"}).output("c");
  EXPECT_HAS(import_error(none, 12), "attribute 'axis' is required but missing");
}

TEST(ImportSequence, SequenceMapGivesSequencesOfTheBodysOutputs) {
  GraphBuilder g;
  g.input_sequence("s", DType::kFloat, {std::string("N"), int64_t{3}})
      .input("t", DType::kFloat, {int64_t{3}});
  G body = std::make_shared<GraphBuilder>("body");
  body->input_unranked("e", DType::kUndefined).input_unranked("u", DType::kUndefined);
  body->node("Add", {"e", "u"}, {"sum"}).node("Shape", {"e"}, {"shape"});
  body->output("sum").output("shape");
  g.node("SequenceMap", {"s", "t"}, {"sums", "shapes"}, {{"body", body}})
      .output("sums")
      .output("shapes");
  const ImportedModel m = import(g, 17);
  const Value& sums = output_value(m, "sums");
  EXPECT_EQ(sums.type.kind, TypeKind::kSequence);
  EXPECT_EQ(sums.dtype(), DType::kFloat);
  ASSERT_EQ(sums.rank(), 2);  // the element shape: the body saw [N, 3] elements
  EXPECT_EQ(sums.axes[1].length, Length::known(3));
  const Value& shapes = output_value(m, "shapes");
  EXPECT_EQ(shapes.dtype(), DType::kInt64);
  ASSERT_EQ(shapes.rank(), 1);
  EXPECT_EQ(shapes.axes[0].length, Length::known(2));
}

TEST(ImportSequence, SequenceMapBodyMustTakeOneInputPerNodeInput) {
  GraphBuilder g;
  g.input_sequence("s", DType::kFloat, {int64_t{3}}).input("t", DType::kFloat, {int64_t{3}});
  G body = std::make_shared<GraphBuilder>("body");
  body->input("e", DType::kFloat, {int64_t{3}});
  body->node("Identity", {"e"}, {"o"}).output("o");
  g.node("SequenceMap", {"s", "t"}, {"out"}, {{"body", body}}).output("out");
  EXPECT_HAS(import_error(g, 17),
             "graph 'body' declares 1 inputs but must take 2 (one per input of the node)");
}

TEST(ImportSequence, SequenceMapFirstInputMustBeASequence) {
  GraphBuilder g;
  g.input("t", DType::kFloat, {int64_t{3}});
  G body = std::make_shared<GraphBuilder>("body");
  body->input("e", DType::kFloat, {int64_t{3}});
  body->node("Identity", {"e"}, {"o"}).output("o");
  g.node("SequenceMap", {"t"}, {"out"}, {{"body", body}}).output("out");
  EXPECT_HAS(import_error(g, 17), "input 0 must be a sequence, got float");
}

}  // namespace
}  // namespace geon
