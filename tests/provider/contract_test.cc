// The provider contract as a host uses it: load a model, ask what the provider claims, compile
// the claimed subgraphs, run the rest itself, and get what a whole-model session computes.
#include <map>

#include "tests/provider/provider_test_util.h"

namespace geon::provider_test {
namespace {

bool mentions(const std::string& text, const std::string& word) {
  return text.find(word) != std::string::npos;
}

struct HostTensor {
  std::vector<float> data;
  std::vector<int64_t> shape;
};

// What the host knows of its own model (models/make_models.py): the nodes it may have to run.
struct HostNode {
  std::vector<std::string> inputs;
  std::string output;
};
const std::map<std::string, HostNode> kMlpNodes = {
    {"add1", {{"h1", "B1"}, "h2"}}, {"relu1", {{"h2"}, "h3"}}, {"add2", {{"h4", "B2"}, "Y"}}};

// Add with the second operand broadcast along the last dim, or Relu.
HostTensor run_on_host(const std::string& op, const std::vector<const HostTensor*>& in) {
  HostTensor out = *in[0];
  if (op == "Relu") {
    for (float& v : out.data) v = std::max(v, 0.0f);
  } else if (op == "Add") {
    const std::vector<float>& b = in[1]->data;
    for (size_t i = 0; i < out.data.size(); ++i) out.data[i] += b[i % b.size()];
  } else {
    ADD_FAILURE() << "the host cannot run " << op;
  }
  return out;
}

// Runs the MLP as a host would, with the provider restricted to `devices`.
std::vector<float> host_run_mlp(const std::string& devices, const std::vector<float>& x,
                                int64_t batch, size_t* claimed_nodes) {
  api::Model m(library(), model_path("mlp.onnx"));
  api::Options o(library());
  o.set("devices", devices);
  api::Capability c(m, &o);

  std::map<std::string, HostTensor> values;
  values["X"] = {x, {batch, 4}};
  for (int j = 0; j < 16; ++j) values["B1"].data.push_back(b1(j));
  for (int j = 0; j < 3; ++j) values["B2"].data.push_back(b2(j));

  std::vector<bool> subgraph_done(c.subgraph_count(), false);
  *claimed_nodes = 0;
  for (size_t node = 0; node < m.node_count(); ++node) {
    const int64_t sg = c.node_subgraph(node);
    if (sg < 0) {
      EXPECT_FALSE(c.node_reason(node).empty()) << m.node_name(node);
      const HostNode& hn = kMlpNodes.at(m.node_name(node));
      std::vector<const HostTensor*> in;
      for (const std::string& name : hn.inputs) in.push_back(&values.at(name));
      values[hn.output] = run_on_host(m.node_op(node), in);
      continue;
    }
    ++*claimed_nodes;
    EXPECT_EQ(c.node_reason(node), "");
    if (subgraph_done.at(sg)) continue;
    subgraph_done[sg] = true;
    api::Session s = c.compile(static_cast<size_t>(sg));
    std::vector<api::Feed> feeds;
    for (const api::ValueInfo& info : s.inputs()) {
      const HostTensor& t = values.at(info.name);
      feeds.push_back(feed(info.name, t.data, t.shape));
    }
    for (const api::Tensor& t : s.run(feeds)) {
      const std::span<const float> f = t.as<float>();
      values[t.name] = {{f.begin(), f.end()}, t.shape};
    }
  }
  return values.at("Y").data;
}

TEST(ProviderContract, HostRunningUnclaimedNodesMatchesTheWholeModel) {
  const int64_t batch = 3;
  const std::vector<float> x = mlp_input(batch, 6);
  api::Session whole(library(), model_path("mlp.onnx"));
  const std::vector<api::Tensor> want = whole.run({{feed("X", x, {batch, 4})}});

  size_t claimed = 0;
  const std::vector<float> got = host_run_mlp("cpu.dnnl", x, batch, &claimed);
  EXPECT_EQ(claimed, 2u);  // the two MatMuls; Add and Relu are the host's
  expect_close(got, want.at(0).as<float>());
  expect_close(got, mlp_reference(x, batch));

  // With every CPU set, the provider claims all five nodes.
  expect_close(host_run_mlp("cpu", x, batch, &claimed), want.at(0).as<float>());
  EXPECT_EQ(claimed, 5u);
}

TEST(ProviderContract, CapabilityGroupsNodesAndExplainsRefusals) {
  api::Model m(library(), model_path("mlp.onnx"));
  ASSERT_EQ(m.node_count(), 5u);
  EXPECT_EQ(m.node_name(0), "mm1");
  EXPECT_EQ(m.node_op(0), "MatMul");
  api::Options o(library());
  o.set("devices", "cpu.dnnl");
  api::Capability c(m, &o);
  ASSERT_EQ(c.subgraph_count(), 2u);  // Add and Relu between the MatMuls split them
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(c.subgraph_set(k), "cpu.dnnl");
    ASSERT_EQ(c.subgraph_nodes(k).size(), 1u);
    EXPECT_EQ(m.node_op(c.subgraph_nodes(k)[0]), "MatMul");
  }
  EXPECT_NE(c.node_subgraph(0), c.node_subgraph(3));
  EXPECT_TRUE(mentions(c.node_reason(1), "cpu.dnnl")) << c.node_reason(1);
  EXPECT_EQ(c.node_subgraph(99), -1);  // out of range: unclaimed, not a crash

  // A compiled subgraph's boundary values carry their model names.
  api::Session first = c.compile(static_cast<size_t>(c.node_subgraph(0)));
  ASSERT_EQ(first.inputs().size(), 1u);
  EXPECT_EQ(first.inputs()[0].name, "X");
  ASSERT_EQ(first.outputs().size(), 1u);
  EXPECT_EQ(first.outputs()[0].name, "h1");
}

TEST(ProviderContract, StrictCapabilityClaimsOnlyWhatTheFirstSetRuns) {
  api::Model m(library(), model_path("mlp.onnx"));
  api::Options o(library());
  o.set("devices", "cpu.dnnl,cpu.generic").set("strict", "1");
  api::Capability c(m, &o);
  for (size_t node = 0; node < m.node_count(); ++node)
    EXPECT_EQ(c.node_subgraph(node) >= 0, m.node_op(node) == "MatMul") << m.node_name(node);
}

TEST(ProviderContract, HostRunsAnOpNoKernelSetHas) {
  // cpu.dnnl alone has no Det.
  api::Model m(library(), model_path("unclaimed.onnx"));
  api::Options o(library());
  o.set("devices", "cpu.dnnl");
  api::Capability c(m, &o);
  ASSERT_EQ(m.node_count(), 2u);
  EXPECT_EQ(m.node_op(1), "Det");
  EXPECT_EQ(c.node_subgraph(1), -1);
  EXPECT_TRUE(mentions(c.node_reason(1), "Det")) << c.node_reason(1);
  ASSERT_GE(c.node_subgraph(0), 0);

  const std::vector<float> x = {2, 0, 1, 1, 3, 0, 0, 1, 4};  // det = 25
  api::Session s = c.compile(static_cast<size_t>(c.node_subgraph(0)));
  const std::vector<api::Tensor> out = s.run({{feed("X", x, {3, 3})}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "s");
  const std::span<const float> a = out[0].as<float>();
  ASSERT_EQ(a.size(), 9u);
  const float det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
                    a[2] * (a[3] * a[7] - a[4] * a[6]);
  EXPECT_FLOAT_EQ(det, 25 * 25);  // det(X X) = det(X)^2
}

TEST(ProviderContract, CompileRefusesABadSubgraphOrAnotherModelsCapability) {
  api::Model mlp(library(), model_path("mlp.onnx"));
  api::Model det(library(), model_path("unclaimed.onnx"));
  api::Capability c(mlp);
  GeonSession* s = nullptr;
  StatusInfo st = take(c_api().compile(mlp.get(), c.get(), 7, nullptr, &s));
  EXPECT_EQ(st.code, GEON_INVALID_ARGUMENT);
  EXPECT_TRUE(mentions(st.message, "subgraph 7")) << st.message;
  st = take(c_api().compile(det.get(), c.get(), 0, nullptr, &s));
  EXPECT_EQ(st.code, GEON_INVALID_ARGUMENT);
  EXPECT_TRUE(mentions(st.message, "another model")) << st.message;
  EXPECT_EQ(s, nullptr);
}

}  // namespace
}  // namespace geon::provider_test
