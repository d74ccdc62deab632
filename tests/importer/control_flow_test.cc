// Import rules of the control flow family: If, Loop, Scan and the optional ops, with
// bodies that read outer values, nested bodies, opset differences and malformed nodes.
#include <gtest/gtest.h>

#include <memory>

#include "core/base/error.h"
#include "tests/importer/model_builder.h"

namespace geon {
namespace {

using namespace testing_models;
using G = std::shared_ptr<GraphBuilder>;

G graph(const std::string& name) { return std::make_shared<GraphBuilder>(name); }

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

// ---- If ----

// then/else return outer values of shapes [2, 3] and [2, 4].
GraphBuilder if_model(const std::string& then_src, const std::string& else_src) {
  GraphBuilder g;
  g.input("c", DType::kBool, {})
      .input("a", DType::kFloat, {int64_t{2}, int64_t{3}})
      .input("b", DType::kFloat, {int64_t{2}, int64_t{4}})
      .input("r", DType::kFloat, {int64_t{2}});
  G then_g = graph("then");
  then_g->node("Identity", {then_src}, {"t"}).output("t");
  G else_g = graph("else");
  else_g->node("Identity", {else_src}, {"e"}).output("e");
  g.node("If", {"c"}, {"y"}, {{"then_branch", then_g}, {"else_branch", else_g}}).output("y");
  return g;
}

TEST(ImportControlFlow, IfOutputKeepsLengthsWhereBranchesAgreeAndUnknownWhereNot) {
  const ImportedModel m = import(if_model("a", "b"), 16);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(y.dtype(), DType::kFloat);
  ASSERT_TRUE(y.rank_known);
  ASSERT_EQ(y.rank(), 2);
  // Both branches return a's and b's first dim, which are different axes of equal length.
  EXPECT_EQ(y.axes[0].length, Length::known(2));
  EXPECT_TRUE(y.axes[1].length.is_unknown());
}

TEST(ImportControlFlow, IfOfOneOuterValueInBothBranchesKeepsItsAxes) {
  const ImportedModel m = import(if_model("a", "a"), 16);
  const Value& y = output_value(m, "y");
  const Value& a = output_value(m, "a");
  ASSERT_EQ(y.rank(), 2);
  EXPECT_TRUE(same_axis(y.axes[0], a.axes[0]));
  EXPECT_TRUE(same_axis(y.axes[1], a.axes[1]));
}

TEST(ImportControlFlow, IfBranchesOfDifferentRanksGiveUnknownRank) {
  const ImportedModel m = import(if_model("a", "r"), 16);
  EXPECT_FALSE(output_value(m, "y").rank_known);
  EXPECT_EQ(output_value(m, "y").dtype(), DType::kFloat);
}

TEST(ImportControlFlow, IfWithAConstantConditionTakesThatBranchAndItsConstants) {
  GraphBuilder g;
  g.initializer("c", DType::kBool, {}, {0})
      .initializer("k", DType::kInt64, {2}, {7, 8})
      .input("a", DType::kInt64, {int64_t{5}});
  G then_g = graph("then");
  then_g->node("Identity", {"a"}, {"t"}).output("t");
  G else_g = graph("else");
  else_g->node("Identity", {"k"}, {"e"}).output("e");
  g.node("If", {"c"}, {"y"}, {{"then_branch", then_g}, {"else_branch", else_g}}).output("y");
  const ImportedModel m = import(g, 16);
  const Value& y = output_value(m, "y");
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{2}));
  ASSERT_TRUE(y.data);
  EXPECT_EQ(element_as_int(*y.data, 1), 8);
}

TEST(ImportControlFlow, IfToleratesAnErrorInTheBranchAConstantConditionNeverRuns) {
  GraphBuilder g;
  g.initializer("c", DType::kBool, {}, {1}).input("a", DType::kFloat, {int64_t{3}});
  G then_g = graph("then");
  then_g->node("Identity", {"a"}, {"t"}).output("t");
  G else_g = graph("else");  // malformed: SequenceAt of a tensor
  else_g->node("SequenceAt", {"a", "a"}, {"e"}).output("e");
  g.node("If", {"c"}, {"y"}, {{"then_branch", then_g}, {"else_branch", else_g}}).output("y");
  EXPECT_EQ(static_dims(output_value(import(g, 16), "y")), (std::vector<int64_t>{3}));
}

TEST(ImportControlFlow, IfReportsAnErrorInABranchThatMayRun) {
  GraphBuilder g;
  g.input("c", DType::kBool, {}).input("a", DType::kFloat, {int64_t{3}});
  G then_g = graph("then");
  then_g->node("Identity", {"a"}, {"t"}).output("t");
  G else_g = graph("else");
  else_g->node("SequenceAt", {"a", "a"}, {"e"}).output("e");
  g.node("If", {"c"}, {"y"}, {{"then_branch", then_g}, {"else_branch", else_g}}).output("y");
  EXPECT_HAS(import_error(g, 16), "input 0 must be a sequence, got float");
}

TEST(ImportControlFlow, IfBranchOutputCountsMustMatchTheNode) {
  GraphBuilder g;
  g.input("c", DType::kBool, {}).input("a", DType::kFloat, {int64_t{3}});
  G then_g = graph("then");
  then_g->node("Identity", {"a"}, {"t"}).output("t");
  G else_g = graph("else");
  else_g->node("Identity", {"a"}, {"e"}).node("Identity", {"a"}, {"f"}).output("e").output("f");
  g.node("If", {"c"}, {"y"}, {{"then_branch", then_g}, {"else_branch", else_g}}).output("y");
  EXPECT_HAS(import_error(g, 16), "graph 'else_branch' has 2 outputs but must have 1");
}

TEST(ImportControlFlow, IfBranchDtypesMustAgree) {
  GraphBuilder g;
  g.input("c", DType::kBool, {})
      .input("a", DType::kFloat, {int64_t{3}})
      .input("i", DType::kInt64, {int64_t{3}});
  G then_g = graph("then");
  then_g->node("Identity", {"a"}, {"t"}).output("t");
  G else_g = graph("else");
  else_g->node("Identity", {"i"}, {"e"}).output("e");
  g.node("If", {"c"}, {"y"}, {{"then_branch", then_g}, {"else_branch", else_g}}).output("y");
  EXPECT_HAS(import_error(g, 16),
             "output 0: then_branch gives float ('t') but else_branch gives int64");
}

TEST(ImportControlFlow, IfConditionMustBeBool) {
  GraphBuilder bad;
  bad.input("c", DType::kFloat, {}).input("a", DType::kFloat, {int64_t{3}});
  G then_g = graph("then");
  then_g->node("Identity", {"a"}, {"t"}).output("t");
  bad.node("If", {"c"}, {"y"}, {{"then_branch", then_g}, {"else_branch", then_g}}).output("y");
  EXPECT_HAS(import_error(bad, 16), "input 0 (cond) must be bool, got float");
}

TEST(ImportControlFlow, IfWithoutABranchNamesTheAttribute) {
  GraphBuilder g;
  g.input("c", DType::kBool, {}).input("a", DType::kFloat, {int64_t{3}});
  G then_g = graph("then");
  then_g->node("Identity", {"a"}, {"t"}).output("t");
  g.node("If", {"c"}, {"y"}, {{"then_branch", then_g}}).output("y");
  EXPECT_HAS(import_error(g, 16), "attribute 'else_branch' (a graph) is required but missing");
}

TEST(ImportControlFlow, IfCarriesSequencesFromOpset13Only) {
  GraphBuilder g;
  g.input("c", DType::kBool, {}).input("a", DType::kFloat, {int64_t{3}});
  G then_g = graph("then");
  then_g->node("SequenceConstruct", {"a"}, {"t"}).output("t");
  G else_g = graph("else");
  else_g->node("SequenceConstruct", {"a", "a"}, {"e"}).output("e");
  g.node("If", {"c"}, {"y"}, {{"then_branch", then_g}, {"else_branch", else_g}}).output("y");
  EXPECT_HAS(import_error(g, 12), "is a sequence, which needs opset 13 or later");
  const ImportedModel m1 = import(g, 13);
  const Value& y = output_value(m1, "y");
  EXPECT_EQ(y.type.kind, TypeKind::kSequence);
  EXPECT_EQ(y.dtype(), DType::kFloat);
  ASSERT_TRUE(y.rank_known);  // the elements' shape
  EXPECT_EQ(y.axes[0].length, Length::known(3));
}

// ---- Loop ----

// A loop over `m` (an initializer when m_value >= 0) carrying y [1] and scanning y out; the body
// adds the outer value `step` [1].
GraphBuilder loop_model(int64_t m_value, bool with_cond, bool typed_body = true) {
  GraphBuilder g;
  if (m_value >= 0) {
    g.initializer("m", DType::kInt64, {}, {static_cast<double>(m_value)});
  } else {
    g.input("m", DType::kInt64, {});
  }
  g.input("cond", DType::kBool, {})
      .input("y", DType::kFloat, {int64_t{1}})
      .input("step", DType::kFloat, {int64_t{1}});
  G body = graph("body");
  if (typed_body) {
    body->input("i", DType::kInt64, {})
        .input("c_in", DType::kBool, {})
        .input("y_in", DType::kFloat, {int64_t{1}});
  } else {
    body->input_unranked("i", DType::kUndefined)
        .input_unranked("c_in", DType::kUndefined)
        .input_unranked("y_in", DType::kUndefined);
  }
  body->node("Identity", {"c_in"}, {"c_out"})
      .node("Add", {"y_in", "step"}, {"y_out"})
      .node("Identity", {"y_out"}, {"scan"})
      .output("c_out")
      .output("y_out")
      .output("scan");
  g.node("Loop", {"m", with_cond ? "cond" : "", "y"}, {"y_final", "ys"}, {{"body", body}})
      .output("y_final")
      .output("ys");
  return g;
}

TEST(ImportControlFlow, LoopCarriedValueKeepsTheShapeTheBodyKeeps) {
  const ImportedModel m = import(loop_model(-1, true), 16);
  const Value& y = output_value(m, "y_final");
  EXPECT_EQ(y.dtype(), DType::kFloat);
  EXPECT_EQ(static_dims(y), (std::vector<int64_t>{1}));
}

TEST(ImportControlFlow, LoopScanOutputHasTheTripCountWhenConstantAndNoEarlyExit) {
  const ImportedModel m = import(loop_model(5, false), 16);
  EXPECT_EQ(static_dims(output_value(m, "ys")), (std::vector<int64_t>{5, 1}));
}

TEST(ImportControlFlow, LoopScanOutputLengthIsUnknownWhenTheLoopMayStopEarly) {
  const ImportedModel m2 = import(loop_model(5, true), 16);
  const Value& ys = output_value(m2, "ys");
  ASSERT_EQ(ys.rank(), 2);
  EXPECT_TRUE(ys.axes[0].length.is_unknown());
  EXPECT_EQ(ys.axes[1].length, Length::known(1));
  const ImportedModel m3 = import(loop_model(-1, false), 16);
  const Value& ys2 = output_value(m3, "ys");
  EXPECT_TRUE(ys2.axes[0].length.is_unknown());
}

TEST(ImportControlFlow, LoopScanOutputLengthIsSymbolicWhenTheTripCountIsADimension) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {std::string("N")}).input("y", DType::kFloat, {int64_t{1}});
  G body = graph("body");
  body->input("i", DType::kInt64, {})
      .input("c_in", DType::kBool, {})
      .input("y_in", DType::kFloat, {int64_t{1}});
  body->node("Identity", {"c_in"}, {"c_out"}).node("Identity", {"y_in"}, {"y_out"});
  body->node("Identity", {"y_in"}, {"scan"});
  body->output("c_out").output("y_out").output("scan");
  g.node("Shape", {"x"}, {"m"})
      .node("Loop", {"m", "", "y"}, {"y_final", "ys"}, {{"body", body}})
      .output("ys");
  const ImportedModel m = import(g, 16);
  const Value& ys = output_value(m, "ys");
  ASSERT_EQ(ys.rank(), 2);
  EXPECT_EQ(ys.axes[0].length, Length::symbolic("N"));
  // y passes through the body unchanged: the final value keeps the initial value's axis.
  EXPECT_TRUE(same_axis(output_value(m, "y_final").axes[0], output_value(m, "y").axes[0]));
}

TEST(ImportControlFlow, LoopBodyInputsWithoutTypesTakeTheNodesTypes) {
  const ImportedModel m = import(loop_model(5, false, false), 16);
  // The carried value's type comes from y; its shape may change per iteration, so it is unknown.
  EXPECT_EQ(output_value(m, "y_final").dtype(), DType::kFloat);
  EXPECT_EQ(output_value(m, "ys").dtype(), DType::kFloat);
}

TEST(ImportControlFlow, LoopBodyMustDeclareIterationConditionAndCarriedInputs) {
  GraphBuilder g;
  g.input("m", DType::kInt64, {}).input("y", DType::kFloat, {int64_t{1}});
  G body = graph("body");
  body->input("i", DType::kInt64, {}).input("c_in", DType::kBool, {});
  body->node("Identity", {"c_in"}, {"c_out"}).node("Identity", {"i"}, {"y_out"});
  body->output("c_out").output("y_out");
  g.node("Loop", {"m", "", "y"}, {"y_final"}, {{"body", body}}).output("y_final");
  EXPECT_HAS(import_error(g, 16),
             "graph 'body' declares 2 inputs but must take 3 (iteration number, condition and 1 "
             "carried value)");
}

TEST(ImportControlFlow, LoopBodyOutputsMustCoverConditionCarriedAndScanOutputs) {
  GraphBuilder g;
  g.input("m", DType::kInt64, {}).input("y", DType::kFloat, {int64_t{1}});
  G body = graph("body");
  body->input("i", DType::kInt64, {})
      .input("c_in", DType::kBool, {})
      .input("y_in", DType::kFloat, {int64_t{1}});
  body->node("Identity", {"c_in"}, {"c_out"}).output("c_out");
  g.node("Loop", {"m", "", "y"}, {"y_final"}, {{"body", body}}).output("y_final");
  EXPECT_HAS(import_error(g, 16), "graph 'body' has 1 outputs but must have");
}

TEST(ImportControlFlow, LoopCarriedDtypeMustNotChange) {
  GraphBuilder g;
  g.input("m", DType::kInt64, {}).input("y", DType::kFloat, {int64_t{1}});
  G body = graph("body");
  body->input("i", DType::kInt64, {})
      .input("c_in", DType::kBool, {})
      .input("y_in", DType::kFloat, {int64_t{1}});
  body->node("Identity", {"c_in"}, {"c_out"}).node("Identity", {"i"}, {"y_out"});
  body->output("c_out").output("y_out");
  g.node("Loop", {"m", "", "y"}, {"y_final"}, {{"body", body}}).output("y_final");
  EXPECT_HAS(import_error(g, 16),
             "carried value 0: the initial value is float but body output 1 ('y_out') is int64");
}

TEST(ImportControlFlow, LoopTripCountMustBeInt64) {
  GraphBuilder bad;
  bad.input("m", DType::kInt32, {}).input("y", DType::kFloat, {int64_t{1}});
  G body = graph("body");
  body->input("i", DType::kInt64, {})
      .input("c_in", DType::kBool, {})
      .input("y_in", DType::kFloat, {int64_t{1}});
  body->node("Identity", {"c_in"}, {"c_out"}).node("Identity", {"y_in"}, {"y_out"});
  body->output("c_out").output("y_out");
  bad.node("Loop", {"m", "", "y"}, {"y_final"}, {{"body", body}}).output("y_final");
  EXPECT_HAS(import_error(bad, 16), "input 0 (M, the trip count) must be int64, got int32");
}

TEST(ImportControlFlow, NestedBodiesReadValuesOfEveryEnclosingGraph) {
  // Loop body -> If branch -> reads the main graph's `a` and the body's `y_in`.
  GraphBuilder g;
  g.input("m", DType::kInt64, {})
      .input("c", DType::kBool, {})
      .input("a", DType::kFloat, {int64_t{4}})
      .input("y", DType::kFloat, {int64_t{4}});
  G then_g = graph("then");
  then_g->node("Add", {"y_in", "a"}, {"t"}).output("t");
  G else_g = graph("else");
  else_g->node("Identity", {"y_in"}, {"e"}).output("e");
  G body = graph("body");
  body->input("i", DType::kInt64, {})
      .input("c_in", DType::kBool, {})
      .input("y_in", DType::kFloat, {int64_t{4}});
  body->node("Identity", {"c_in"}, {"c_out"})
      .node("If", {"c"}, {"y_out"}, {{"then_branch", then_g}, {"else_branch", else_g}})
      .output("c_out")
      .output("y_out");
  g.node("Loop", {"m", "", "y"}, {"y_final"}, {{"body", body}}).output("y_final");
  const ImportedModel m = import(g, 16);
  EXPECT_EQ(static_dims(output_value(m, "y_final")), (std::vector<int64_t>{4}));
}

TEST(ImportControlFlow, LoopMayFillAnEmptyOptionalWithASequence) {
  GraphBuilder g;
  g.input("m", DType::kInt64, {}).input("x", DType::kFloat, {int64_t{2}});
  g.node("Optional", {}, {"none"}, {Attr::type("type", TypeKind::kSequence, DType::kFloat)});
  G body = graph("body");
  body->input("i", DType::kInt64, {}).input("c_in", DType::kBool, {});
  body->input_optional("s_in", DType::kFloat, {int64_t{2}}, true);
  body->node("Identity", {"c_in"}, {"c_out"})
      .node("SequenceConstruct", {"x"}, {"s_out"})
      .output("c_out")
      .output("s_out");
  g.node("Loop", {"m", "", "none"}, {"s"}, {{"body", body}}).output("s");
  const ImportedModel m4 = import(g, 16);
  const Value& s = output_value(m4, "s");
  EXPECT_EQ(s.type.kind, TypeKind::kSequence);
  EXPECT_EQ(s.dtype(), DType::kFloat);
}

// ---- Scan ----

TEST(ImportControlFlow, Scan9SlicesAlongScanInputAxesAndStacksAlongScanOutputAxes) {
  GraphBuilder g;
  g.input("init", DType::kFloat, {int64_t{2}}).input("x", DType::kFloat, {int64_t{2}, int64_t{5}});
  G body = graph("body");
  body->input("s_in", DType::kFloat, {int64_t{2}}).input("x_t", DType::kFloat, {int64_t{2}});
  body->node("Add", {"s_in", "x_t"}, {"s_out"}).node("Identity", {"s_out"}, {"out_t"});
  body->output("s_out").output("out_t");
  g.node("Scan", {"init", "x"}, {"final", "outs"},
         {{"body", body},
          {"num_scan_inputs", int64_t{1}},
          {"scan_input_axes", std::vector<int64_t>{1}},
          {"scan_output_axes", std::vector<int64_t>{-1}}})
      .output("final")
      .output("outs");
  const ImportedModel m = import(g, 16);
  const Value& final_state = output_value(m, "final");
  // A state keeps its shape: the very axes of the initial value.
  EXPECT_EQ(final_state.axes, output_value(m, "init").axes);
  EXPECT_EQ(static_dims(output_value(m, "outs")), (std::vector<int64_t>{2, 5}));
}

TEST(ImportControlFlow, ScanBodyInputsWithoutTypesGetTheSlicesShapes) {
  GraphBuilder g;
  g.input("init", DType::kFloat, {int64_t{3}}).input("x", DType::kFloat, {int64_t{7}, int64_t{3}});
  G body = graph("body");
  body->input_unranked("s_in", DType::kUndefined).input_unranked("x_t", DType::kUndefined);
  body->node("Add", {"s_in", "x_t"}, {"s_out"}).node("Identity", {"x_t"}, {"out_t"});
  body->output("s_out").output("out_t");
  g.node("Scan", {"init", "x"}, {"final", "outs"},
         {{"body", body}, {"num_scan_inputs", int64_t{1}}})
      .output("final")
      .output("outs");
  const ImportedModel m = import(g, 16);
  EXPECT_EQ(static_dims(output_value(m, "outs")), (std::vector<int64_t>{7, 3}));
  EXPECT_EQ(output_value(m, "outs").dtype(), DType::kFloat);
}

TEST(ImportControlFlow, Scan8HasABatchDimAndSequenceLensFirst) {
  GraphBuilder g;
  g.input("init", DType::kFloat, {int64_t{1}, int64_t{2}})
      .input("x", DType::kFloat, {int64_t{1}, int64_t{3}, int64_t{2}});
  G body = graph("body");
  body->input("s_in", DType::kFloat, {int64_t{2}}).input("x_t", DType::kFloat, {int64_t{2}});
  body->node("Add", {"s_in", "x_t"}, {"s_out"}).node("Identity", {"s_out"}, {"out_t"});
  body->output("s_out").output("out_t");
  g.node("Scan", {"", "init", "x"}, {"final", "outs"},
         {{"body", body}, {"num_scan_inputs", int64_t{1}}})
      .output("final")
      .output("outs");
  const ImportedModel m = import(g, 8);
  EXPECT_EQ(static_dims(output_value(m, "final")), (std::vector<int64_t>{1, 2}));
  const Value& outs = output_value(m, "outs");
  EXPECT_EQ(static_dims(outs), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_TRUE(same_axis(outs.axes[0], output_value(m, "init").axes[0]));  // the batch
}

TEST(ImportControlFlow, ScanInputsMustAgreeOnTheIterationCount) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{4}, int64_t{2}})
      .input("z", DType::kFloat, {int64_t{5}, int64_t{2}});
  G body = graph("body");
  body->input("x_t", DType::kFloat, {int64_t{2}}).input("z_t", DType::kFloat, {int64_t{2}});
  body->node("Add", {"x_t", "z_t"}, {"o"}).output("o");
  g.node("Scan", {"x", "z"}, {"outs"}, {{"body", body}, {"num_scan_inputs", int64_t{2}}})
      .output("outs");
  EXPECT_HAS(import_error(g, 16),
             "scan input 1 has 5 iterations along its scan axis but an earlier scan input has 4");
}

TEST(ImportControlFlow, ScanBodyInputCountMustMatchStatesAndScanInputs) {
  GraphBuilder g;
  g.input("init", DType::kFloat, {int64_t{2}}).input("x", DType::kFloat, {int64_t{4}, int64_t{2}});
  G body = graph("body");
  body->input("x_t", DType::kFloat, {int64_t{2}});
  body->node("Identity", {"x_t"}, {"s_out"}).output("s_out");
  g.node("Scan", {"init", "x"}, {"final"}, {{"body", body}, {"num_scan_inputs", int64_t{1}}})
      .output("final");
  EXPECT_HAS(import_error(g, 16),
             "graph 'body' declares 1 inputs but must take 2 (1 state and 1 scan input)");
}

TEST(ImportControlFlow, ScanDirectionsAreZeroOrOnePerScanInput) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{4}, int64_t{2}});
  G body = graph("body");
  body->input("x_t", DType::kFloat, {int64_t{2}});
  body->node("Identity", {"x_t"}, {"o"}).output("o");
  g.node("Scan", {"x"}, {"outs"},
         {{"body", body},
          {"num_scan_inputs", int64_t{1}},
          {"scan_input_directions", std::vector<int64_t>{2}}})
      .output("outs");
  EXPECT_HAS(import_error(g, 16),
             "attribute 'scan_input_directions' entries must be 0 or 1, got 2");
}

TEST(ImportControlFlow, ScanNumScanInputsMustFitTheInputs) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{4}, int64_t{2}});
  G body = graph("body");
  body->input("x_t", DType::kFloat, {int64_t{2}});
  body->node("Identity", {"x_t"}, {"o"}).output("o");
  g.node("Scan", {"x"}, {"outs"}, {{"body", body}, {"num_scan_inputs", int64_t{2}}}).output("outs");
  EXPECT_HAS(import_error(g, 16), "attribute 'num_scan_inputs' is 2 but must be between 1 and");
}

// ---- optionals ----

TEST(ImportControlFlow, OptionalGetElementReturnsTheWrappedTensorsAxes) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{4}, std::string("N")})
      .node("Optional", {"x"}, {"o"})
      .node("OptionalGetElement", {"o"}, {"y"})
      .node("OptionalHasElement", {"o"}, {"h"})
      .output("y")
      .output("h");
  const ImportedModel m = import(g, 18);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);
  const Value& h = output_value(m, "h");
  EXPECT_EQ(h.dtype(), DType::kBool);
  ASSERT_TRUE(h.data);  // an Optional given its input has an element
  EXPECT_EQ(element_as_int(*h.data, 0), 1);
}

TEST(ImportControlFlow, EmptyOptionalTakesItsTypeFromTheTypeAttribute) {
  GraphBuilder g;
  g.node("Optional", {}, {"o"}, {Attr::type("type", TypeKind::kSequence, DType::kInt32)})
      .node("OptionalHasElement", {"o"}, {"h"})
      .output("o")
      .output("h");
  const ImportedModel m = import(g, 18);
  const Value& o = output_value(m, "o");
  EXPECT_EQ(o.type.kind, TypeKind::kOptional);
  EXPECT_EQ(o.type.element, TypeKind::kSequence);
  EXPECT_EQ(o.dtype(), DType::kInt32);
  ASSERT_TRUE(output_value(m, "h").data);
  EXPECT_EQ(element_as_int(*output_value(m, "h").data, 0), 0);
}

TEST(ImportControlFlow, EmptyOptionalWithoutTypeIsAnError) {
  GraphBuilder g;
  g.node("Optional", {}, {"o"}).output("o");
  EXPECT_HAS(import_error(g, 18), "an empty optional (no input) needs the 'type' attribute");
}

TEST(ImportControlFlow, OptionalOpsTakeTensorsAndNoInputFromOpset18) {
  GraphBuilder g;
  g.input("x", DType::kFloat, {int64_t{3}}).node("OptionalGetElement", {"x"}, {"y"}).output("y");
  EXPECT_HAS(import_error(g, 15), "input 0 must be an optional before opset 18, got float");
  EXPECT_EQ(static_dims(output_value(import(g, 18), "y")), (std::vector<int64_t>{3}));

  GraphBuilder none;
  none.node("OptionalHasElement", {}, {"h"}).output("h");
  EXPECT_HAS(import_error(none, 15), "input 0 is required before opset 18");
  const ImportedModel m5 = import(none, 18);
  const Value& h = output_value(m5, "h");
  ASSERT_TRUE(h.data);
  EXPECT_EQ(element_as_int(*h.data, 0), 0);
}

TEST(ImportControlFlow, OptionalOfASequenceInputKeepsTheElementShape) {
  GraphBuilder g;
  g.input_optional("o", DType::kInt32, {int64_t{4}}, true)
      .node("OptionalGetElement", {"o"}, {"s"})
      .node("SequenceAt", {"s", "p"}, {"y"})
      .initializer("p", DType::kInt64, {}, {0})
      .output("y");
  const ImportedModel m = import(g, 18);
  EXPECT_EQ(output_value(m, "s").type.kind, TypeKind::kSequence);
  EXPECT_EQ(static_dims(output_value(m, "y")), (std::vector<int64_t>{4}));
}

}  // namespace
}  // namespace geon
