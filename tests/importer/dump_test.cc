// The text dump of an imported graph: inputs, constants, nodes with their outputs, nested
// graphs (indented under the attribute that holds them, with the outer values they read) and
// outputs, each value with its dtype and axes. Tests and tools compare it line by line, so its
// exact form is pinned here.
#include <gtest/gtest.h>

#include "importer/rule.h"
#include "tests/importer/proto_helpers.h"

namespace geon {
namespace {

using namespace testing_protos;

// x: float [N, 3] (N symbolic), b: float [3] initializer.
onnx::ModelProto small_model() {
  auto m = model(17);
  auto& g = *m.mutable_graph();
  g.set_name("main");
  add_float_initializer(g, "b", {3});
  auto* x = add_input(g, "x", onnx::TensorProto::FLOAT, {0, 3});
  x->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("N");
  return m;
}

TEST(ImportDump, ListsValuesWithDtypesAndAxesAndNodesInOrder) {
  auto m = small_model();
  auto& g = *m.mutable_graph();
  add_node(g, "Relu", {"x"}, {"r"}, "relu");
  add_node(g, "Add", {"r", "b"}, {"y"}, "add");
  add_output(g, "y");
  const ImportedModel im = import_proto(m);
  EXPECT_EQ(dump(*im.graph),
            "graph main\n"
            "  input x: float (N[N], #3[3])\n"
            "  const b: float (#1[3]) const\n"
            "  node relu = Relu-17(x)\n"
            "    -> r: float (N[N], #3[3])\n"
            "  node add = Add-17(r, b)\n"
            "    -> y: float (N[N], #3[3])\n"
            "  output y: float (N[N], #3[3])\n");
}

TEST(ImportDump, MarksOverridableInputsFoldedValuesAndOmittedInputs) {
  auto m = model(17);
  auto& g = *m.mutable_graph();
  add_float_initializer(g, "w", {2});
  add_float_initializer(g, "k", {});
  add_input(g, "w", onnx::TensorProto::FLOAT, {2});
  add_node(g, "Neg", {"k"}, {"nk"}, "neg");
  add_node(g, "Clip", {"w", "", "nk"}, {"y"}, "clip");
  add_output(g, "y");
  const ImportedModel im = import_proto(m);
  EXPECT_EQ(dump(*im.graph),
            "graph g\n"
            "  input w: float (#1[2]) const overridable\n"
            "  const k: float () const\n"
            "  node neg = Neg-17(k)\n"
            "    -> nk: float () folded\n"
            "  node clip = Clip-17(w, <none>, nk)\n"
            "    -> y: float (#1[2])\n"
            "  output y: float (#1[2])\n");
}

TEST(ImportDump, NestedGraphsAreIndentedUnderTheirAttributeWithTheOuterValuesTheyRead) {
  bool known = false;
  if (!importer::find_rule("", "If", 17, &known)) GTEST_SKIP() << "no If rule yet";
  auto m = small_model();
  auto& g = *m.mutable_graph();
  add_input(g, "c", onnx::TensorProto::BOOL, {});
  auto* n = add_node(g, "If", {"c"}, {"z"}, "if");
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = n->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* sub = a->mutable_g();
    const bool then = branch[0] == 't';
    sub->set_name(then ? "then" : "else");
    add_node(*sub, then ? "Relu" : "Neg", {"x"}, {then ? "t" : "e"}, then ? "t_op" : "e_op");
    add_output(*sub, then ? "t" : "e");
  }
  add_output(g, "z");
  const ImportedModel im = import_proto(m);
  EXPECT_EQ(dump(*im.graph),
            "graph main\n"
            "  input x: float (N[N], #3[3])\n"
            "  input c: bool ()\n"
            "  const b: float (#1[3]) const\n"
            "  node if = If-17(c)\n"
            "    -> z: float (N[N], #3[3])\n"
            "    else_branch: graph else\n"
            "      outer x: float (N[N], #3[3])\n"
            "      node e_op = Neg-17(x)\n"
            "        -> e: float (N[N], #3[3])\n"
            "      output e: float (N[N], #3[3])\n"
            "    then_branch: graph then\n"
            "      outer x: float (N[N], #3[3])\n"
            "      node t_op = Relu-17(x)\n"
            "        -> t: float (N[N], #3[3])\n"
            "      output t: float (N[N], #3[3])\n"
            "  output z: float (N[N], #3[3])\n");
}

TEST(ImportDump, UnknownRankAndSequenceTypesAreSpelledOut) {
  auto m = model(17);
  auto& g = *m.mutable_graph();
  auto* x = g.add_input();
  x->set_name("x");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  auto* s = g.add_input();
  s->set_name("s");
  s->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto::FLOAT);
  add_output(g, "x");
  add_output(g, "s");
  const ImportedModel im = import_proto(m);
  EXPECT_EQ(dump(*im.graph),
            "graph g\n"
            "  input x: int64 (rank unknown)\n"
            "  input s: seq(float) (rank unknown)\n"
            "  output x: int64 (rank unknown)\n"
            "  output s: seq(float) (rank unknown)\n");
}

}  // namespace
}  // namespace geon
