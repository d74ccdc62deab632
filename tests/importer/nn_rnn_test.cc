// Import rules of the nn family: RNN, GRU, LSTM.
#include <gtest/gtest.h>

#include "tests/importer/nn_test_util.h"

namespace geon {
namespace {

using namespace nn_testing;

// op with X, W, R of the given shapes and outputs Y, Y_h (and Y_c for LSTM).
GraphBuilder recurrent(const std::string& op, const std::vector<Dim>& x, const std::vector<Dim>& w,
                       const std::vector<Dim>& r, std::vector<Attr> attrs) {
  GraphBuilder g;
  std::vector<std::string> outs = {"y", "y_h"};
  if (op == "LSTM") outs.push_back("y_c");
  g.input("x", DType::kFloat, x).input("w", DType::kFloat, w).input("r", DType::kFloat, r);
  g.node(op, {"x", "w", "r"}, outs, std::move(attrs));
  for (const auto& o : outs) g.output(o);
  return g;
}

TEST(ImportRecurrent, BidirectionalLstmSharesDirectionAndHiddenAxes) {
  const auto m = import_raw(
      recurrent("LSTM", {std::string("T"), int64_t{3}, int64_t{4}}, dims({2, 24, 4}),
                dims({2, 24, 6}),
                {{"hidden_size", int64_t{6}}, {"direction", std::string("bidirectional")}}),
      7);
  const Value& x = output_value(m, "x");
  const Value& y = output_value(m, "y");
  const Value& y_h = output_value(m, "y_h");
  ASSERT_EQ(y.rank(), 4);
  EXPECT_TRUE(same_axis(y.axes[0], x.axes[0]));  // seq
  EXPECT_EQ(y.axes[0].length, Length::symbolic("T"));
  EXPECT_EQ(y.axes[1].length, Length::known(2));
  EXPECT_TRUE(same_axis(y.axes[2], x.axes[1]));  // batch
  EXPECT_EQ(y.axes[3].length, Length::known(6));
  EXPECT_EQ(y_h.axes, Axes({y.axes[1], y.axes[2], y.axes[3]}));
  EXPECT_EQ(output_value(m, "y_c").axes, y_h.axes);
}

TEST(ImportRecurrent, LayoutOneIsBatchFirstFromOpset14) {
  const auto g = recurrent("GRU", dims({3, 5, 4}), dims({1, 18, 4}), dims({1, 18, 6}),
                           {{"hidden_size", int64_t{6}}, {"layout", int64_t{1}}});
  const auto m = import_raw(g, 14);
  EXPECT_EQ(static_dims(output_value(m, "y")), (Ints{3, 5, 1, 6}));
  EXPECT_EQ(static_dims(output_value(m, "y_h")), (Ints{3, 1, 6}));
  EXPECT_IMPORT_ERROR(g, 13, "attribute 'layout' came with opset 14");
}

TEST(ImportRecurrent, HiddenSizeComesFromRWhenTheAttributeIsAbsent) {
  const auto m =
      import_raw(recurrent("RNN", dims({5, 3, 4}), dims({1, 7, 4}), dims({1, 7, 7}), {}), 22);
  EXPECT_EQ(static_dims(output_value(m, "y")), (Ints{5, 1, 3, 7}));
}

TEST(ImportRecurrent, VersionOneAttributes) {
  const auto g = recurrent("GRU", dims({5, 3, 4}), dims({1, 9, 4}), dims({1, 9, 3}),
                           {{"hidden_size", int64_t{3}}, {"output_sequence", int64_t{1}}});
  EXPECT_EQ(static_dims(output_value(import_raw(g, 1), "y_h")), (Ints{1, 3, 3}));
  EXPECT_IMPORT_ERROR(g, 7, "attribute 'output_sequence' was removed in opset 7");
  const auto lbr = recurrent("GRU", dims({5, 3, 4}), dims({1, 9, 4}), dims({1, 9, 3}),
                             {{"linear_before_reset", int64_t{1}}});
  EXPECT_IMPORT_ERROR(lbr, 1, "attribute 'linear_before_reset' is not part of this op version");
  EXPECT_EQ(static_dims(output_value(import_raw(lbr, 3), "y")), (Ints{5, 1, 3, 3}));
}

TEST(ImportRecurrent, MalformedNodesAreRefused) {
  EXPECT_IMPORT_ERROR(recurrent("LSTM", dims({5, 3, 4}), dims({1, 20, 4}), dims({1, 24, 6}),
                                {{"hidden_size", int64_t{6}}}),
                      14, "input 1 (W) dim 1 has length 20 but 4 x hidden_size has length 24");
  EXPECT_IMPORT_ERROR(recurrent("RNN", dims({5, 3, 4}), dims({2, 6, 4}), dims({2, 6, 6}),
                                {{"hidden_size", int64_t{6}}}),
                      14,
                      "input 1 (W) dim 0 has length 2 but the number of directions has length 1");
  EXPECT_IMPORT_ERROR(recurrent("RNN", dims({5, 3, 5}), dims({1, 6, 4}), dims({1, 6, 6}), {}), 14,
                      "input 1 (W) dim 2 has length 4 but X's input size has length 5");
  EXPECT_IMPORT_ERROR(recurrent("RNN", dims({5, 3, 4}), dims({1, 6, 4}), dims({1, 6, 6}),
                                {{"direction", std::string("sideways")}}),
                      14, "attribute 'direction' is 'sideways'");
  EXPECT_IMPORT_ERROR(recurrent("RNN", dims({5, 3}), dims({1, 6, 4}), dims({1, 6, 6}), {}), 14,
                      "input 0 (X) has rank 2; it must have rank 3");
  EXPECT_IMPORT_ERROR(recurrent("LSTM", dims({5, 3, 4}), dims({1, 24, 4}), dims({1, 24, 6}),
                                {{"activations", std::vector<std::string>{"Sigmoid", "Tanh"}}}),
                      14,
                      "attribute 'activations' has 2 entries; LSTM with direction forward needs 3");
}

TEST(ImportRecurrent, InitialStateFollowsTheLayout) {
  GraphBuilder g;
  g.input("x", DType::kFloat, dims({3, 5, 4}))
      .input("w", DType::kFloat, dims({1, 6, 4}))
      .input("r", DType::kFloat, dims({1, 6, 6}))
      .input("h0", DType::kFloat, dims({1, 3, 6}))
      .node("RNN", {"x", "w", "r", "", "", "h0"}, {"", "y_h"}, {{"layout", int64_t{1}}})
      .output("y_h");
  EXPECT_IMPORT_ERROR(
      g, 14, "input 5 (initial_h) dim 1 has length 3 but the number of directions has length 1");
}

}  // namespace
}  // namespace geon
