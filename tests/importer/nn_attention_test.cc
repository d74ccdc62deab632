// Import rules of the nn family: Attention, RotaryEmbedding, LinearAttention.
#include <gtest/gtest.h>

#include "tests/importer/nn_test_util.h"

namespace geon {
namespace {

using namespace nn_testing;

struct Input {
  std::string name;
  std::vector<Dim> dims;
  DType t = DType::kFloat;
};

GraphBuilder node_of(const std::string& op, const std::vector<Input>& inputs,
                     std::vector<std::string> node_inputs, std::vector<std::string> outputs,
                     std::vector<Attr> attrs) {
  GraphBuilder g;
  for (const auto& in : inputs) g.input(in.name, in.t, in.dims);
  g.node(op, std::move(node_inputs), outputs, std::move(attrs));
  for (const auto& o : outputs)
    if (!o.empty()) g.output(o);
  return g;
}

TEST(ImportAttention, FourDWithKvCacheGrowsTheSequence) {
  const auto g = node_of("Attention",
                         {{"q", {int64_t{2}, int64_t{3}, std::string("L"), int64_t{8}}},
                          {"k", dims({2, 3, 6, 8})},
                          {"v", dims({2, 3, 6, 10})},
                          {"pk", dims({2, 3, 5, 8})},
                          {"pv", dims({2, 3, 5, 10})}},
                         {"q", "k", "v", "", "pk", "pv"}, {"y", "pres_k", "pres_v", "qk"}, {});
  const auto m = import_raw(g, 23);
  const Value& q = output_value(m, "q");
  const Value& y = output_value(m, "y");
  ASSERT_EQ(y.rank(), 4);
  EXPECT_TRUE(same_axis(y.axes[0], q.axes[0]));
  EXPECT_TRUE(same_axis(y.axes[1], q.axes[1]));
  EXPECT_TRUE(same_axis(y.axes[2], q.axes[2]));
  EXPECT_EQ(y.axes[3].length, Length::known(10));
  EXPECT_EQ(static_dims(output_value(m, "pres_k")), (Ints{2, 3, 11, 8}));
  EXPECT_EQ(static_dims(output_value(m, "pres_v")), (Ints{2, 3, 11, 10}));
  const Value& qk = output_value(m, "qk");
  EXPECT_EQ(qk.axes[2].length, Length::symbolic("L"));
  EXPECT_EQ(qk.axes[3].length, Length::known(11));
}

TEST(ImportAttention, ThreeDInputsUnpackHeadsFromTheHiddenDim) {
  // Grouped-query: 6 query heads of size 4 share 3 KV heads; V heads have size 5.
  const auto g = node_of(
      "Attention", {{"q", dims({2, 4, 24})}, {"k", dims({2, 7, 12})}, {"v", dims({2, 7, 15})}},
      {"q", "k", "v"}, {"y", "", "", "qk"},
      {{"q_num_heads", int64_t{6}}, {"kv_num_heads", int64_t{3}}});
  const auto m = import_raw(g, 23);
  EXPECT_EQ(static_dims(output_value(m, "y")), (Ints{2, 4, 30}));
  EXPECT_EQ(static_dims(output_value(m, "qk")), (Ints{2, 6, 4, 7}));
}

TEST(ImportAttention, MalformedNodesAreRefused) {
  const std::vector<Input> packed = {
      {"q", dims({2, 4, 24})}, {"k", dims({2, 7, 12})}, {"v", dims({2, 7, 12})}};
  EXPECT_IMPORT_ERROR(
      node_of("Attention", packed, {"q", "k", "v"}, {"y"}, {{"kv_num_heads", int64_t{3}}}), 23,
      "attribute 'q_num_heads' is required but missing");
  EXPECT_IMPORT_ERROR(node_of("Attention", packed, {"q", "k", "v"}, {"y"},
                              {{"q_num_heads", int64_t{5}}, {"kv_num_heads", int64_t{3}}}),
                      23,
                      "input 0 (Q) dim 2 is 24, which attribute 'q_num_heads' (5) does not divide");
  EXPECT_IMPORT_ERROR(node_of("Attention", packed, {"q", "k", "v"}, {"y"},
                              {{"q_num_heads", int64_t{4}}, {"kv_num_heads", int64_t{3}}}),
                      23, "K's head size has length 4 but Q's has length 6");
  EXPECT_IMPORT_ERROR(
      node_of("Attention",
              {{"q", dims({2, 4, 4, 8})}, {"k", dims({2, 3, 6, 8})}, {"v", dims({2, 3, 6, 8})}},
              {"q", "k", "v"}, {"y"}, {}),
      23, "Q has 4 heads, not a multiple of K's 3");
  EXPECT_IMPORT_ERROR(
      node_of("Attention",
              {{"q", dims({2, 3, 4, 8})}, {"k", dims({2, 3, 6, 8})}, {"v", dims({2, 6, 24})}},
              {"q", "k", "v"}, {"y"}, {}),
      23, "inputs Q, K and V have ranks 4, 4 and 3; they must match");
}

TEST(ImportAttention, NonpadKvSeqlenCameWithOpset24) {
  const auto g = node_of("Attention",
                         {{"q", dims({2, 3, 4, 8})},
                          {"k", dims({2, 3, 6, 8})},
                          {"v", dims({2, 3, 6, 8})},
                          {"n", dims({2}), DType::kInt64}},
                         {"q", "k", "v", "", "", "", "n"}, {"y"}, {});
  EXPECT_EQ(static_dims(output_value(import_raw(g, 24), "y")), (Ints{2, 3, 4, 8}));
  EXPECT_IMPORT_ERROR(g, 23, "nonpad_kv_seqlen came with Attention-24");
}

TEST(ImportRotaryEmbedding, OutputKeepsInputAxes) {
  const auto g = node_of("RotaryEmbedding",
                         {{"x", dims({2, 4, 3, 8})},
                          {"cos", dims({50, 4})},
                          {"sin", dims({50, 4})},
                          {"pos", dims({2, 3}), DType::kInt64}},
                         {"x", "cos", "sin", "pos"}, {"y"}, {});
  const auto m = import_raw(g, 23);
  EXPECT_EQ(output_value(m, "y").axes, output_value(m, "x").axes);
  EXPECT_IMPORT_ERROR(node_of("RotaryEmbedding",
                              {{"x", dims({2, 3, 32})},
                               {"cos", dims({50, 4})},
                               {"sin", dims({50, 4})},
                               {"pos", dims({2, 3}), DType::kInt64}},
                              {"x", "cos", "sin", "pos"}, {"y"}, {}),
                      23, "attribute 'num_heads' is required for a 3-D input");
  EXPECT_IMPORT_ERROR(node_of("RotaryEmbedding",
                              {{"x", dims({2, 4, 3, 8})},
                               {"cos", dims({50, 3})},
                               {"sin", dims({50, 3})},
                               {"pos", dims({2, 3}), DType::kInt64}},
                              {"x", "cos", "sin", "pos"}, {"y"}, {}),
                      23,
                      "input 1 (cos_cache) last dim has length 3 but half the rotary dim has "
                      "length 4");
}

TEST(ImportLinearAttention, OutputAndStateShapes) {
  const std::vector<Input> in = {{"q", dims({2, 4, 64})},
                                 {"k", dims({2, 4, 32})},
                                 {"v", dims({2, 4, 48})},
                                 {"d", dims({2, 4, 4})},
                                 {"b", dims({2, 4, 4})}};
  const auto g = node_of("LinearAttention", in, {"q", "k", "v", "", "d", "b"}, {"y", "state"},
                         {{"q_num_heads", int64_t{8}}, {"kv_num_heads", int64_t{4}}});
  const auto m = import_raw(g, 27);
  EXPECT_EQ(static_dims(output_value(m, "y")), (Ints{2, 4, 96}));  // 8 heads x d_v 12
  EXPECT_EQ(static_dims(output_value(m, "state")), (Ints{2, 4, 8, 12}));
  EXPECT_IMPORT_ERROR(node_of("LinearAttention", in, {"q", "k", "v"}, {"y", "state"},
                              {{"q_num_heads", int64_t{8}}, {"kv_num_heads", int64_t{4}}}),
                      27, "update_rule 'gated_delta' needs input 4 (decay)");
  EXPECT_IMPORT_ERROR(node_of("LinearAttention", in, {"q", "k", "v"}, {"y", "state"},
                              {{"q_num_heads", int64_t{6}},
                               {"kv_num_heads", int64_t{4}},
                               {"update_rule", std::string("linear")}}),
                      27, "attribute 'q_num_heads' (6) must be a multiple of 'kv_num_heads' (4)");
}

}  // namespace
}  // namespace geon
