// The partitioner on hand-built graphs with fake kernel sets: priority, refusals with reasons,
// maximal cycle-free subgraphs, transfers at the seams, unclaimed nodes, nested graphs.
#include "core/runtime/partition.h"

#include <gtest/gtest.h>

#include <array>

#include "tests/core/runtime/graph_builder.h"

namespace geon {
namespace {

using testing::GraphBuilder;

std::optional<std::string> any_node(const Graph&, const Node&) { return std::nullopt; }
std::optional<std::string> floats_only(const Graph& g, const Node& n) {
  for (int v : n.inputs)
    if (v >= 0 && g.values[v].dtype() != DType::kFloat)
      return "dtype " + std::string(dtype_name(g.values[v].dtype())) + " not supported";
  return std::nullopt;
}

constexpr KernelEntry kGpuEntries[] = {
    {"", "Relu", 6, floats_only, nullptr},   {"", "Add", 7, floats_only, nullptr},
    {"", "MatMul", 1, floats_only, nullptr}, {"", "If", 1, any_node, nullptr},
    {"", "Gelu", 20, any_node, nullptr},  // newer than the test graphs' opset 13
};
constexpr KernelEntry kCpuEntries[] = {
    {"", "Relu", 6, any_node, nullptr},   {"", "Add", 7, any_node, nullptr},
    {"", "MatMul", 1, any_node, nullptr}, {"", "Cast", 6, any_node, nullptr},
    {"", "If", 1, any_node, nullptr},
};
const KernelSet kGpu{"gpu", Device{DeviceKind::kCuda, 0}, kGpuEntries};
const KernelSet kCpu{"cpu", Device{}, kCpuEntries};
const std::array<const KernelSet*, 2> kGpuFirst{&kGpu, &kCpu};
const std::array<const KernelSet*, 2> kCpuFirst{&kCpu, &kGpu};

TEST(Partition, FirstSetInPriorityWins) {
  GraphBuilder b;
  const int x = b.input("x");
  b.output(b.node("relu", "Relu", {x}));
  const Placement gpu = partition(b.graph(), kGpuFirst);
  EXPECT_EQ(gpu.nodes[0].set, 0);
  EXPECT_TRUE(gpu.nodes[0].refusals.empty());
  const Placement cpu = partition(b.graph(), kCpuFirst);
  EXPECT_EQ(cpu.nodes[0].set, 0);
  ASSERT_EQ(cpu.subgraphs.size(), 1u);
  EXPECT_EQ(cpu.subgraphs[0].set, 0);
}

TEST(Partition, FallbackRecordsEachRefusal) {
  GraphBuilder b;
  const int x = b.input("x", DType::kInt64);
  const int y = b.node("add", "Add", {x, x}, DType::kInt64);
  const int z = b.node("gelu", "Gelu", {y});
  b.output(b.node("weird", "Frobnicate", {z}));
  b.last().domain = "com.example";
  const Placement p = partition(b.graph(), kGpuFirst);

  EXPECT_EQ(p.nodes[0].set, 1);
  ASSERT_EQ(p.nodes[0].refusals.size(), 1u);
  EXPECT_EQ(p.nodes[0].refusals[0].set, 0);
  EXPECT_EQ(p.nodes[0].refusals[0].reason, "dtype int64 not supported");

  // Gelu has a gpu entry only from opset 20, and no cpu entry at all.
  EXPECT_EQ(p.nodes[1].set, -1);
  ASSERT_EQ(p.nodes[1].refusals.size(), 2u);
  EXPECT_EQ(p.nodes[1].refusals[0].reason, "no kernel for Gelu at opset 13");
  EXPECT_EQ(p.nodes[1].refusals[1].set, 1);

  EXPECT_EQ(p.nodes[2].set, -1);
  EXPECT_EQ(p.nodes[2].subgraph, -1);
  EXPECT_EQ(p.nodes[2].refusals[0].reason, "no kernel for com.example.Frobnicate at opset 13");
}

TEST(Partition, ChainsAndParallelBranchesFormOneSubgraph) {
  GraphBuilder b;
  const int x = b.input("x");
  const int a = b.node("a", "Relu", {x});
  const int c = b.node("c", "Relu", {a});
  const int d = b.node("d", "Relu", {x});  // independent of a and c
  b.output(b.node("e", "Add", {c, d}));
  const Placement p = partition(b.graph(), kGpuFirst);
  ASSERT_EQ(p.subgraphs.size(), 1u);
  EXPECT_EQ(p.subgraphs[0].nodes, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(p.subgraphs[0].inputs, (std::vector<int>{x}));
  EXPECT_EQ(p.subgraphs[0].outputs, (std::vector<int>{b.graph().find("e")}));
}

TEST(Partition, NoCycleThroughAnotherDevice) {
  // A(cpu) -> B(gpu) -> C(cpu), and A -> C: A and C in one subgraph would be a cycle.
  GraphBuilder b;
  const int x = b.input("x", DType::kInt64);
  const int a = b.node("A", "Cast", {x});
  const int bb = b.node("B", "Relu", {a});
  b.output(b.node("C", "Cast", {bb, a}));
  const Placement p = partition(b.graph(), kGpuFirst);
  ASSERT_EQ(p.subgraphs.size(), 3u);
  EXPECT_EQ(p.subgraphs[0].nodes, std::vector<int>{0});
  EXPECT_EQ(p.subgraphs[1].nodes, std::vector<int>{1});
  EXPECT_EQ(p.subgraphs[2].nodes, std::vector<int>{2});
  EXPECT_EQ(p.subgraphs[0].set, 1);
  EXPECT_EQ(p.subgraphs[1].set, 0);
  EXPECT_EQ(p.subgraphs[2].set, 1);
  EXPECT_EQ(p.subgraphs[2].inputs, (std::vector<int>{bb, a}));
}

TEST(Partition, NoCycleThroughAnUnclaimedNode) {
  GraphBuilder b;
  const int x = b.input("x");
  const int a = b.node("A", "Relu", {x});
  const int u = b.node("U", "Mystery", {a});
  b.output(b.node("C", "Add", {u, a}));
  const Placement p = partition(b.graph(), kGpuFirst);
  EXPECT_EQ(p.nodes[1].set, -1);
  ASSERT_EQ(p.subgraphs.size(), 2u);
  EXPECT_EQ(p.nodes[0].subgraph, 0);
  EXPECT_EQ(p.nodes[2].subgraph, 1);
}

TEST(Partition, TransfersAtSeamsOncePerDevice) {
  GraphBuilder b;
  const int x = b.input("x");
  const int w = b.constant("w");
  const int a = b.node("A", "MatMul", {x, w});  // gpu
  const int i = b.node("I", "Cast", {a});       // cpu
  const int j = b.node("J", "Cast", {a});       // cpu: a crosses once
  const int k = b.node("K", "Add", {i, j});     // gpu
  b.output(k);
  b.output(a);
  const Placement p = partition(b.graph(), kGpuFirst);
  const Device host{}, gpu{DeviceKind::kCuda, 0};
  ASSERT_EQ(p.transfers.size(), 5u);
  auto has = [&](int v, Device from, Device to) {
    for (const Transfer& t : p.transfers)
      if (t.value == v && t.from == from && t.to == to) return true;
    return false;
  };
  EXPECT_TRUE(has(x, host, gpu));  // graph input, read on the gpu
  EXPECT_TRUE(has(a, gpu, host));  // read by I and J, and a graph output: one transfer
  EXPECT_TRUE(has(i, host, gpu));
  EXPECT_TRUE(has(j, host, gpu));
  EXPECT_TRUE(has(k, gpu, host));  // graph output
  // The constant is not transferred: each device has its own initializer arena.
  for (const Transfer& t : p.transfers) EXPECT_NE(t.value, w);
  // I and J are one cpu subgraph; A and K cannot join (K depends on A through it).
  ASSERT_EQ(p.subgraphs.size(), 3u);
  EXPECT_EQ(p.subgraphs[1].nodes, (std::vector<int>{1, 2}));
  EXPECT_EQ(p.subgraphs[0].outputs, (std::vector<int>{a}));
}

TEST(Partition, NestedGraphCapturesAreDependencies) {
  GraphBuilder b;
  const int cond = b.input("cond", DType::kBool);
  const int x = b.input("x", DType::kInt64);
  const int a = b.node("A", "Cast", {x});  // cpu
  b.output(b.node("if", "If", {cond}));    // gpu; its body reads `A` from outside
  auto body = std::make_shared<Graph>();
  body->axis_factory = b.graph().axis_factory;
  body->parent = &b.graph();
  Value outer = b.graph().values[a];
  outer.kind = ValueKind::kOuter;
  outer.producer = -1;
  body->outputs.push_back(body->add_value(outer));
  Attribute attr;
  attr.kind = Attribute::Kind::kGraph;
  attr.g = body;
  b.last().attrs["then_branch"] = attr;
  b.last().attrs["else_branch"] = attr;

  const Placement p = partition(b.graph(), kGpuFirst);
  EXPECT_EQ(p.nodes[1].set, 0);
  ASSERT_EQ(p.subgraphs.size(), 2u);
  EXPECT_EQ(p.subgraphs[1].inputs, (std::vector<int>{cond, a}));
  bool moved = false;
  for (const Transfer& t : p.transfers)
    moved = moved || (t.value == a && t.to.kind == DeviceKind::kCuda);
  EXPECT_TRUE(moved);
}

TEST(Partition, JsonReport) {
  GraphBuilder b;
  const int x = b.input("x", DType::kInt64);
  const int y = b.node("add \"1\"", "Add", {x, x}, DType::kInt64, "y");
  const int r = b.node("relu", "Relu", {b.input("f")});  // on the gpu: a transfer each way
  b.output(b.node("odd", "Mystery", {y, r}));
  const Placement p = partition(b.graph(), kGpuFirst);
  const std::string json = placement_json(b.graph(), p, kGpuFirst);
  EXPECT_NE(json.find("\"name\": \"add \\\"1\\\"\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"set\": \"cpu\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"reason\": \"dtype int64 not supported\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"set\": null"), std::string::npos) << json;
  EXPECT_NE(json.find("{\"value\": \"f\", \"from\": \"host\", \"to\": \"cuda:0\"}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"subgraphs\""), std::string::npos) << json;
}

// A run of channels-last values shows in the report with the reorders at its two edges: where
// a row-major value enters it and where a row-major value leaves it.
TEST(Partition, JsonReportListsLayoutsAndTheReordersAtTheirEdges) {
  GraphBuilder b;
  const int x = b.input("x");
  const int a = b.node("conv_a", "Conv", {x});
  const int c = b.node("conv_b", "Conv", {a});
  b.output(b.node("flat", "Relu", {c}));
  Graph& g = b.graph();
  for (Value& v : g.values) {
    std::vector<Axis> dims;
    for (int d = 0; d < 4; ++d) dims.push_back(make_axis(g.factory(), "", Length::known(2)));
    v.axes = Axes(dims);
  }
  g.values[a].layout = g.values[c].layout = {0, 2, 3, 1};
  const Placement p = partition(g, kGpuFirst);
  const std::string json = placement_json(g, p, kGpuFirst);
  EXPECT_NE(json.find("\"values_with_layout\": 2"), std::string::npos) << json;
  EXPECT_NE(json.find("{\"node\": \"conv_a\", \"value\": \"x\", \"from\": \"row-major\", "
                      "\"to\": \"0,2,3,1\"}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"node\": \"flat\", \"value\": \"conv_b\", \"from\": \"0,2,3,1\", "
                      "\"to\": \"row-major\"}"),
            std::string::npos)
      << json;
  EXPECT_EQ(json.find("\"node\": \"conv_b\""), std::string::npos) << json;  // inside the run
}

// The report names each node's input and output values ("" for an omitted optional input), a
// fused node's members, and every value's dtype, shape (symbols as strings), kind and layout.
TEST(Partition, JsonReportListsNodeValuesMembersAndTheValueTable) {
  GraphBuilder b;
  const int x = b.input("x");
  const int w = b.constant("w");
  const int y = b.node("conv+relu", "Relu", {x, w});
  b.last().inputs.push_back(-1);  // an omitted optional input
  Attribute members;
  members.kind = Attribute::Kind::kStrings;
  members.strings = {"Conv:conv", "Relu:relu"};
  b.last().attrs["members"] = members;
  b.output(b.node("plain", "Relu", {y}));
  Graph& g = b.graph();
  g.values[x].axes = Axes({make_axis(g.factory(), "batch", Length::symbolic("batch")),
                           make_axis(g.factory(), "", Length::known(64)),
                           make_axis(g.factory(), "", Length::unknown())});
  g.values[y].layout = {0, 2, 1};
  const Placement p = partition(g, kGpuFirst);
  const std::string json = placement_json(g, p, kGpuFirst);
  EXPECT_NE(json.find("\"inputs\": [\"x\", \"w\", \"\"], \"outputs\": [\"conv+relu\"], "
                      "\"members\": [\"Conv:conv\", \"Relu:relu\"]"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"inputs\": [\"conv+relu\"], \"outputs\": [\"plain\"], \"refusals\""),
            std::string::npos)
      << json;  // no members on an unfused node
  EXPECT_NE(json.find("\"x\": {\"dtype\": \"float\", \"shape\": [\"batch\", 64, null], "
                      "\"kind\": \"input\"}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"w\": {\"dtype\": \"float\", \"shape\": [], \"kind\": \"constant\"}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"conv+relu\": {\"dtype\": \"float\", \"shape\": [], \"kind\": "
                      "\"intermediate\", \"layout\": \"0,2,1\"}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"plain\": {\"dtype\": \"float\", \"shape\": [], \"kind\": \"output\"}"),
            std::string::npos)
      << json;
}

// No set runs If/Loop/Scan (the executor runs their bodies), so partition() leaves them
// unclaimed for a host, while the report says who runs them.
TEST(Partition, ControlFlowIsUnclaimedButReportedAsControlOnTheHost) {
  GraphBuilder b;
  const int loop = b.node("loop", "Loop", {b.input("m", DType::kInt64)});
  b.output(b.node("mystery", "Mystery", {loop}));
  const Placement p = partition(b.graph(), kGpuFirst);
  EXPECT_EQ(p.nodes[0].set, -1);
  EXPECT_TRUE(is_control_flow(b.graph().nodes[0]));
  EXPECT_FALSE(is_control_flow(b.graph().nodes[1]));
  const std::string json = placement_json(b.graph(), p, kGpuFirst);
  EXPECT_NE(
      json.find("\"op\": \"Loop\", \"opset\": 13, \"set\": \"control\", \"device\": \"host\""),
      std::string::npos)
      << json;
  EXPECT_NE(json.find("\"op\": \"Mystery\", \"opset\": 13, \"set\": null, \"device\": null"),
            std::string::npos)
      << json;
}

}  // namespace
}  // namespace geon
