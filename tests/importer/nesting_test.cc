// Deeply nested models: subgraphs nested exactly at geon's documented limit import; one level
// deeper, 400 levels deeper (past protobuf's own recursion limit) and 100,000 levels of raw
// bytes are each refused with a message giving the depth found and the limit, never the
// parser's "truncated?" and never a stack overflow.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "importer/nesting.h"
#include "tests/importer/proto_helpers.h"

namespace geon {
namespace {

using importer::kMaxSubgraphNesting;
using namespace testing_protos;

// A main graph whose If's then-branch holds an If, and so on `levels` deep; level k's graph
// adds x to its inner result, the innermost graph passes x through.
onnx::ModelProto if_nest(int levels) {
  onnx::ModelProto m = model(17);
  onnx::GraphProto* g = m.mutable_graph();
  add_input(*g, "cond", onnx::TensorProto::BOOL, {});
  add_input(*g, "x", onnx::TensorProto::FLOAT, {2});
  for (int k = 0; k < levels; ++k) {
    const std::string s = std::to_string(k);
    add_node(*g, "If", {"cond"}, {"inner" + s}, "if" + s);
    add_node(*g, "Add", {"inner" + s, "x"}, {"y" + s}, "add" + s);
    add_output(*g, "y" + s);
    onnx::NodeProto* n = g->mutable_node(0);
    onnx::AttributeProto* other = n->add_attribute();
    other->set_name("else_branch");
    other->set_type(onnx::AttributeProto::GRAPH);
    other->mutable_g()->set_name("else" + s);
    add_node(*other->mutable_g(), "Identity", {"x"}, {"e" + s});
    add_output(*other->mutable_g(), "e" + s);
    onnx::AttributeProto* then = n->add_attribute();
    then->set_name("then_branch");
    then->set_type(onnx::AttributeProto::GRAPH);
    g = then->mutable_g();
    g->set_name("then" + s);
  }
  add_node(*g, "Identity", {"x"}, {"leaf"});
  add_output(*g, "leaf");
  return m;
}

// The serialized ModelProto of a `levels`-deep chain of GraphProto > NodeProto > AttributeProto
// > GraphProto..., written byte by byte (too deep for protobuf to serialize or parse).
std::string raw_nest(int levels) {
  auto varint = [](uint64_t v) {
    std::string s;
    for (; v >= 0x80; v >>= 7) s += static_cast<char>((v & 0x7f) | 0x80);
    return s + static_cast<char>(v);
  };
  auto field = [&](int number, const std::string& payload) {
    return varint(static_cast<uint64_t>(number) << 3 | 2) + varint(payload.size()) + payload;
  };
  // Each level's bytes before its nested graph; sizes are known from the inside out.
  const std::string node_head = field(4, "If") + field(1, "c") + field(2, "o");
  const std::string attr_head = field(1, "then_branch") + varint(20 << 3) + varint(5);
  std::vector<std::string> heads;
  uint64_t graph_size = 0;  // the innermost graph is empty
  for (int k = 0; k < levels; ++k) {
    const uint64_t attr_size = attr_head.size() + 1 + varint(graph_size).size() + graph_size;
    const uint64_t node_size = node_head.size() + 1 + varint(attr_size).size() + attr_size;
    const std::string head = varint(1 << 3 | 2) + varint(node_size) + node_head +
                             varint(5 << 3 | 2) + varint(attr_size) + attr_head +
                             varint(6 << 3 | 2) + varint(graph_size);
    graph_size += head.size();  // this level's graph: its head, then the inner graph
    heads.push_back(head);
  }
  std::string out = varint(1 << 3) + varint(8) + field(8, varint(2 << 3) + varint(17)) +
                    varint(7 << 3 | 2) + varint(graph_size);
  out.reserve(out.size() + graph_size);
  for (auto it = heads.rbegin(); it != heads.rend(); ++it) out += *it;
  return out;
}

TEST(ImporterNesting, IfNestAtTheLimitImports) {
  const onnx::ModelProto m = if_nest(kMaxSubgraphNesting);
  EXPECT_EQ(importer::subgraph_nesting(m.graph()), kMaxSubgraphNesting);
  const ImportedModel imported = import_proto(m);
  // Down the then-branches to the innermost graph: kMaxSubgraphNesting levels.
  const Graph* g = imported.graph.get();
  int levels = 0;
  while (true) {
    const Node* the_if = nullptr;
    for (const auto& n : g->nodes) the_if = n.op == "If" ? &n : the_if;
    if (!the_if) break;
    g = the_if->attrs.at("then_branch").g.get();
    ASSERT_NE(g, nullptr);
    ++levels;
  }
  EXPECT_EQ(levels, kMaxSubgraphNesting);
}

TEST(ImporterNesting, OneLevelDeeperIsRefusedWithTheDepthAndTheLimit) {
  EXPECT_TRUE(
      import_fails_with(if_nest(kMaxSubgraphNesting + 1), ErrorCode::kInvalidArgument,
                        {"nested " + std::to_string(kMaxSubgraphNesting + 1) + " levels deep",
                         "limit of " + std::to_string(kMaxSubgraphNesting)}));
}

TEST(ImporterNesting, FourHundredLevelsPastTheParserAreRefusedByDepthNotAsTruncated) {
  const std::string bytes = serialize(if_nest(400));
  // Deeper than the parser is allowed to go: the message comes from the raw bytes' depth.
  EXPECT_GT(importer::wire_nesting(as_bytes(bytes)).messages, importer::kParseRecursionLimit);
  EXPECT_TRUE(
      fails_with([&] { import_model_bytes(as_bytes(bytes)); }, ErrorCode::kInvalidArgument,
                 {"nested 400 levels deep", "limit of " + std::to_string(kMaxSubgraphNesting)}));
}

TEST(ImporterNesting, AHundredThousandLevelsOfRawBytesAreRefusedWithoutRecursing) {
  const int levels = 100000;
  const std::string bytes = raw_nest(levels);
  const importer::WireNesting n = importer::wire_nesting(as_bytes(bytes));
  EXPECT_EQ(n.subgraphs, levels);
  EXPECT_EQ(n.messages, 3 * levels + 1);
  EXPECT_TRUE(fails_with([&] { import_model_bytes(as_bytes(bytes)); }, ErrorCode::kInvalidArgument,
                         {"nested 100000 levels deep"}));
}

TEST(ImporterNesting, TruncatedShallowBytesStillSayNotAModel) {
  std::string bytes = serialize(if_nest(3));
  bytes.resize(bytes.size() / 2);
  EXPECT_TRUE(fails_with([&] { import_model_bytes(as_bytes(bytes)); }, ErrorCode::kInvalidArgument,
                         {"not an ONNX model", "truncated?"}));
}

}  // namespace
}  // namespace geon
