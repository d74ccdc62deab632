// The wire-level cut of the main graph's initializer payloads (importer/model_payloads.h): the
// lean message parses to the whole one less the cut raw_data fields (checked against protobuf's
// own parse of the whole bytes), each cut payload is the very bytes protobuf would have put in
// raw_data, malformed bytes make the cut give up, and models imported from a file and from
// bytes hold the initializers' exact values whatever their encoding.
#include <gtest/gtest.h>

#include <cstring>

#include "importer/model_payloads.h"
#include "tests/importer/proto_helpers.h"

namespace geon {
namespace {

using namespace testing_protos;
using importer::Payload;
using importer::split_initializer_payloads;

// A model with initializers in every encoding the main graph may hold, an initializer in an If
// branch (not cut: only the main graph's are), a Constant node and a doc string after the graph.
onnx::ModelProto mixed_model() {
  auto m = model();
  auto& g = *m.mutable_graph();
  add_float_initializer(g, "a", {2, 3});
  auto* typed = g.add_initializer();
  typed->set_name("typed");
  typed->set_data_type(onnx::TensorProto::FLOAT);
  typed->add_dims(2);
  typed->add_float_data(1.5f);
  typed->add_float_data(-2.0f);
  add_float_initializer(g, "big", {64, 33});
  auto* empty = g.add_initializer();
  empty->set_name("empty");
  empty->set_data_type(onnx::TensorProto::FLOAT);
  empty->add_dims(0);
  empty->set_raw_data("");
  auto* node = add_node(g, "If", {"cond"}, {"y"});
  auto* branch = node->add_attribute();
  branch->set_name("then_branch");
  branch->set_type(onnx::AttributeProto::GRAPH);
  add_float_initializer(*branch->mutable_g(), "inner", {4});
  add_input(g, "cond");
  add_output(g, "a");
  m.set_doc_string("after the graph");
  return m;
}

// The lean message with each cut payload put back as raw_data.
onnx::ModelProto restored(const importer::SplitModel& s, const std::string& bytes) {
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(s.lean));
  EXPECT_EQ(static_cast<size_t>(m.graph().initializer_size()), s.initializers.size());
  for (int i = 0; i < m.graph().initializer_size(); ++i) {
    auto* t = m.mutable_graph()->mutable_initializer(i);
    EXPECT_FALSE(t->has_raw_data()) << t->name() << " kept its raw_data";
    if (const std::optional<Payload>& p = s.initializers[static_cast<size_t>(i)])
      t->set_raw_data(bytes.substr(static_cast<size_t>(p->offset), static_cast<size_t>(p->size)));
  }
  return m;
}

TEST(ModelPayloads, LeanMessagePlusPayloadsIsTheWholeMessage) {
  const onnx::ModelProto m = mixed_model();
  const std::string bytes = serialize(m);
  const auto s = split_initializer_payloads(as_bytes(bytes));
  ASSERT_TRUE(s);
  ASSERT_EQ(s->initializers.size(), 4u);
  EXPECT_TRUE(s->initializers[0]);   // a
  EXPECT_FALSE(s->initializers[1]);  // typed: float_data stays in the message
  ASSERT_TRUE(s->initializers[2]);   // big
  EXPECT_EQ(s->initializers[2]->size, 64 * 33 * 4);
  ASSERT_TRUE(s->initializers[3]);  // empty raw_data is cut too (present, zero bytes)
  EXPECT_EQ(s->initializers[3]->size, 0);
  // The payloads leave the message: what protobuf parses is small.
  EXPECT_LT(s->lean.size(), bytes.size() - 64 * 33 * 4);
  // The If branch's initializer is not the main graph's: it keeps its raw_data.
  onnx::ModelProto lean;
  ASSERT_TRUE(lean.ParseFromString(s->lean));
  EXPECT_TRUE(lean.graph().node(0).attribute(0).g().initializer(0).has_raw_data());
  EXPECT_EQ(serialize(restored(*s, bytes)), bytes);
}

TEST(ModelPayloads, RepeatedGraphFieldsMergeAsProtobufMergesThem) {
  // Two serialized models back to back parse as one: their graphs merge, initializers in order.
  auto first = model();
  add_float_initializer(*first.mutable_graph(), "p", {3});
  onnx::ModelProto second;
  add_float_initializer(*second.mutable_graph(), "q", {5});
  second.mutable_graph()->add_initializer()->set_name("no_data");
  const std::string bytes = serialize(first) + serialize(second);
  onnx::ModelProto whole;
  ASSERT_TRUE(whole.ParseFromString(bytes));
  ASSERT_EQ(whole.graph().initializer_size(), 3);
  const auto s = split_initializer_payloads(as_bytes(bytes));
  ASSERT_TRUE(s);
  ASSERT_EQ(s->initializers.size(), 3u);
  EXPECT_FALSE(s->initializers[2]);
  EXPECT_EQ(serialize(restored(*s, bytes)), serialize(whole));
}

TEST(ModelPayloads, TheLastRawDataOfATensorCountsAsInProtobuf) {
  auto m = model();
  add_float_initializer(*m.mutable_graph(), "w", {2});
  std::string bytes = serialize(m);
  // A second raw_data field appended to the tensor: rebuild the bytes by hand.
  onnx::TensorProto t = m.graph().initializer(0);
  const float later[2] = {7.0f, 8.0f};
  std::string tensor_bytes = t.SerializeAsString();
  tensor_bytes += std::string("\x4a\x08", 2) + std::string(reinterpret_cast<const char*>(later), 8);
  std::string graph_bytes =
      std::string("\x2a", 1) + static_cast<char>(tensor_bytes.size()) + tensor_bytes;
  m.clear_graph();
  bytes =
      serialize(m) + std::string("\x3a", 1) + static_cast<char>(graph_bytes.size()) + graph_bytes;
  onnx::ModelProto whole;
  ASSERT_TRUE(whole.ParseFromString(bytes));
  const auto s = split_initializer_payloads(as_bytes(bytes));
  ASSERT_TRUE(s);
  ASSERT_EQ(s->initializers.size(), 1u);
  ASSERT_TRUE(s->initializers[0]);
  EXPECT_EQ(std::memcmp(bytes.data() + s->initializers[0]->offset, later, 8), 0);
  EXPECT_EQ(serialize(restored(*s, bytes)), serialize(whole));
}

TEST(ModelPayloads, MalformedBytesAreLeftToProtobuf) {
  auto m = model();
  add_float_initializer(*m.mutable_graph(), "w", {8});
  const std::string bytes = serialize(m);
  for (size_t cut = 1; cut < bytes.size(); ++cut)
    if (auto s = split_initializer_payloads(as_bytes(bytes.substr(0, bytes.size() - cut)))) {
      // A prefix that still splits must be a message protobuf parses the same way.
      onnx::ModelProto whole;
      const std::string prefix = bytes.substr(0, bytes.size() - cut);
      ASSERT_TRUE(whole.ParseFromString(prefix)) << "cut " << cut;
      EXPECT_EQ(serialize(restored(*s, prefix)), serialize(whole)) << "cut " << cut;
    }
  // A group start at the graph's level is not walked.
  EXPECT_FALSE(split_initializer_payloads(as_bytes(std::string("\x3a\x01\x0b", 3))));
  // A length past the end of its message.
  EXPECT_FALSE(split_initializer_payloads(as_bytes(std::string("\x3a\x05\x2a\x09", 4))));
}

// The initializers of mixed_model() as imported: exact values, whichever way the bytes came.
void expect_values(const ImportedModel& im) {
  const Graph& g = *im.graph;
  const auto floats = [&](const char* name) {
    const TensorData& d = *g.value(g.find(name)).data;
    std::vector<float> v(static_cast<size_t>(d.elements()));
    if (!v.empty()) std::memcpy(v.data(), d.bytes(), v.size() * 4);
    return v;
  };
  EXPECT_EQ(floats("a"), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(floats("typed"), (std::vector<float>{1.5f, -2.0f}));
  const std::vector<float> big = floats("big");
  ASSERT_EQ(big.size(), 64u * 33u);
  for (size_t i = 0; i < big.size(); ++i) ASSERT_EQ(big[i], static_cast<float>(i));
  EXPECT_TRUE(floats("empty").empty());
}

TEST(ModelPayloads, ImportsFromFileAndBytesReadTheCutPayloadsExactly) {
  onnx::ModelProto m = mixed_model();
  // Only the main graph matters here: the If node would need a real condition to import.
  m.mutable_graph()->clear_node();
  m.mutable_graph()->clear_input();
  const std::string bytes = serialize(m);
  expect_values(import_model_bytes(as_bytes(bytes)));
  TempDir dir;
  expect_values(import_model_file(dir.write("m.onnx", bytes).string()));
}

TEST(ModelPayloads, ACutPayloadOfTheWrongSizeIsNamed) {
  auto m = model();
  auto* t = add_float_initializer(*m.mutable_graph(), "w", {4});
  t->mutable_raw_data()->resize(12);
  add_output(*m.mutable_graph(), "w");
  TempDir dir;
  const auto path = dir.write("m.onnx", serialize(m)).string();
  EXPECT_TRUE(fails_with([&] { import_model_file(path); }, ErrorCode::kInvalidArgument,
                         {"initializer 'w'", "raw_data has 12 bytes", "need 16"}));
}

}  // namespace
}  // namespace geon
