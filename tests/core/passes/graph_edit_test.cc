// core/passes/graph_edit: reader counts (a node reading a value twice counts once; a nested
// graph's outer reads count for its node; graph outputs), fixed constants, fused names and
// members, and erase_nodes keeping order and renumbering producers.
#include "core/passes/graph_edit.h"

#include <gtest/gtest.h>

namespace geon::passes {
namespace {

int add(Graph& g, const std::string& name, ValueKind kind = ValueKind::kIntermediate) {
  Value v;
  v.name = name;
  v.type.dtype = DType::kFloat;
  v.kind = kind;
  return g.add_value(std::move(v));
}
void node(Graph& g, const std::string& name, const std::string& op, std::vector<int> in,
          std::vector<int> out) {
  Node n;
  n.name = name;
  n.op = op;
  n.inputs = std::move(in);
  n.outputs = out;
  for (int o : out) g.value(o).producer = static_cast<int>(g.nodes.size());
  g.nodes.push_back(std::move(n));
}

TEST(GraphEdit, ReadersCountNodesOnceAndNestedGraphsForTheirNode) {
  Graph g;
  const int x = add(g, "x", ValueKind::kInput);
  const int a = add(g, "a"), b = add(g, "b"), c = add(g, "c");
  node(g, "sq", "Mul", {x, x}, {a});
  node(g, "neg", "Neg", {a}, {b});
  node(g, "if", "If", {b}, {c});
  auto body = std::make_shared<Graph>();
  Value outer;
  outer.name = "a";
  outer.kind = ValueKind::kOuter;
  body->add_value(std::move(outer));
  Attribute branch;
  branch.kind = Attribute::Kind::kGraph;
  branch.g = body;
  g.nodes.back().attrs["then_branch"] = branch;
  g.outputs = {c};
  const Uses u = count_uses(g);
  EXPECT_EQ(u.readers[x], 1);  // Mul(x, x) is one reader
  EXPECT_EQ(u.readers[a], 2);  // Neg, and the If's body by name
  EXPECT_FALSE(u.internal_single(a));
  EXPECT_TRUE(u.internal_single(b));
  EXPECT_EQ(u.only_reader(b), 2);
  EXPECT_FALSE(u.internal_single(c));  // a graph output
}

TEST(GraphEdit, EraseNodesRenumbersProducersAndOrphansTheDead) {
  Graph g;
  const int x = add(g, "x", ValueKind::kInput);
  const int a = add(g, "a"), b = add(g, "b"), c = add(g, "c");
  node(g, "n0", "Neg", {x}, {a});
  node(g, "n1", "Abs", {a}, {b});
  node(g, "n2", "Exp", {b}, {c});
  erase_nodes(g, {false, true, false});
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[1].name, "n2");
  EXPECT_EQ(g.value(a).producer, 0);
  EXPECT_EQ(g.value(b).producer, -1);
  EXPECT_EQ(g.value(c).producer, 1);
}

TEST(GraphEdit, FusedNamesAndMembersListWhatWasReplaced) {
  Node a, b, c;
  a.name = "mm1";
  a.op = "MatMul";
  b.op = "Add";  // unnamed: its op stands in
  c.name = "prev";
  c.op = "FusedConv";
  c.attrs["members"] = strings_attr({"Conv:c", "Relu:r"});
  const std::vector<const Node*> nodes = {&a, &b, &c};
  EXPECT_EQ(fused_name(nodes), "mm1+Add+prev");
  EXPECT_EQ(members_of(nodes),
            (std::vector<std::string>{"MatMul:mm1", "Add:", "Conv:c", "Relu:r"}));
}

TEST(GraphEdit, OnlyNonOverridableConstantsWithDataAreFixed) {
  Graph g;
  g.axis_factory = std::make_shared<AxisFactory>();
  auto data = make_tensor_data(DType::kFloat, Dims{1});
  const int k = add_constant(g, "k", data);
  EXPECT_TRUE(fixed_constant(g, k));
  double v = 1;
  EXPECT_TRUE(scalar_value(g, k, v));
  EXPECT_EQ(v, 0.0);
  EXPECT_EQ(unique_name(g, "k"), "k_1");
  g.value(k).overridable = true;
  EXPECT_FALSE(fixed_constant(g, k));
  EXPECT_FALSE(fixed_constant(g, add(g, "x", ValueKind::kInput)));
  EXPECT_FALSE(fixed_constant(g, -1));
}

}  // namespace
}  // namespace geon::passes
