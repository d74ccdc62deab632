// core/onnx/reduce: reduction kinds by op name, axes from the attribute or a constant input,
// the destination shape with and without keepdims (and the dims to restore for the engine),
// noop_with_empty_axes, refusals naming bad axes, bool sums and run-time axes, and the maps
// that make ReduceL1/L2/LogSum/LogSumExp/SumSquare out of a sum.
#include "core/onnx/reduce.h"

#include <gtest/gtest.h>

#include "core/base/error.h"
#include "core/engine/ops.h"
#include "tests/core/onnx/one_node.h"

namespace geon::onnx {
namespace {

using testing::contains;
using testing::OneNode;

TEST(OnnxReduce, KindsByOpName) {
  EXPECT_EQ(reduction_of("ReduceSum"), Reduce::kSum);
  EXPECT_EQ(reduction_of("ReduceMean"), Reduce::kMean);
  EXPECT_EQ(reduction_of("ReduceMax"), Reduce::kMax);
  EXPECT_EQ(reduction_of("ReduceMin"), Reduce::kMin);
  EXPECT_EQ(reduction_of("ReduceProd"), Reduce::kProd);
  EXPECT_EQ(reduction_of("ReduceL2"), std::nullopt);
}

TEST(OnnxReduce, ComposedReductionsAreASumBetweenTwoMaps) {
  auto is = [](std::string_view op, std::string_view before, std::string_view after, bool shifted) {
    const std::optional<ComposedReduce> c = composed_reduction_of(op);
    ASSERT_TRUE(c.has_value()) << op;
    EXPECT_EQ(c->before, before) << op;
    EXPECT_EQ(c->after, after) << op;
    EXPECT_EQ(c->max_shifted, shifted) << op;
    // Every map is an op of the engine's table, as the kernel sets apply them by name.
    for (std::string_view map : {before, after}) {
      if (!map.empty()) {
        EXPECT_NE(find_op(map), nullptr) << map;
      }
    }
  };
  is("ReduceL1", "abs", "", false);
  is("ReduceL2", "square", "sqrt", false);
  is("ReduceLogSum", "", "log", false);
  is("ReduceLogSumExp", "exp", "log", true);
  is("ReduceSumSquare", "square", "", false);
  // The plain reductions are not composed, and the composed ones are no plain reduction.
  for (std::string_view op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"})
    EXPECT_EQ(composed_reduction_of(op), std::nullopt) << op;
  EXPECT_EQ(reduction_of("ReduceLogSumExp"), std::nullopt);
}

TEST(OnnxReduce, ParamsFromAttributeOrConstantInput) {
  OneNode attr("ReduceMax", 11);
  attr.in(DType::kFloat, 3).out(DType::kFloat).attr_ints("axes", {0, -1}).attr_i("keepdims", 0);
  const ReduceParams a = reduce_params(attr.g, attr.n, false);
  EXPECT_EQ(a.reduce, Reduce::kMax);
  EXPECT_EQ(a.axes, (std::vector<int64_t>{0, -1}));
  EXPECT_FALSE(a.keepdims);
  OneNode input("ReduceSum", 13);
  input.in(DType::kFloat, 3).constant({1}).out(DType::kFloat).attr_i("noop_with_empty_axes", 1);
  const ReduceParams b = reduce_params(input.g, input.n, true);
  EXPECT_EQ(b.axes, (std::vector<int64_t>{1}));
  EXPECT_TRUE(b.keepdims);
  EXPECT_TRUE(b.noop_with_empty_axes);
}

TEST(OnnxReduce, ShapesWithAndWithoutKeepdims) {
  const Dims src = {2, 3, 4};
  ReduceParams p;
  p.axes = {1, -1};
  ReducedShape s = reduced_shape(src, p);
  EXPECT_EQ(s.out_shape, (Dims{2, 1, 1}));
  EXPECT_TRUE(s.restore.empty());
  EXPECT_FALSE(s.identity);
  p.keepdims = false;
  s = reduced_shape(src, p);
  EXPECT_EQ(s.out_shape, (Dims{2}));
  EXPECT_EQ(s.restore, (std::vector<int64_t>{1, 2}));
  p.axes = {};  // every dim
  s = reduced_shape(src, p);
  EXPECT_EQ(s.out_shape, Dims{});
  EXPECT_EQ(s.restore, (std::vector<int64_t>{0, 1, 2}));
  p.noop_with_empty_axes = true;
  s = reduced_shape(src, p);
  EXPECT_TRUE(s.identity);
  EXPECT_EQ(s.out_shape, src);
}

TEST(OnnxReduce, BadAxesThrowAtRunTime) {
  for (const std::vector<int64_t>& axes :
       {std::vector<int64_t>{3}, std::vector<int64_t>{-4}, std::vector<int64_t>{1, -2}}) {
    ReduceParams p;
    p.axes = axes;
    try {
      reduced_shape(Dims{2, 3, 4}, p);
      ADD_FAILURE() << "axes accepted: " << axes[0];
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    }
  }
}

TEST(OnnxReduce, ReasonsNameWhatIsWrong) {
  const DType f = DType::kFloat;
  OneNode ok("ReduceSum", 13);
  ok.in(f, 2).constant({-1}).out(f);
  EXPECT_EQ(reduce_reason(ok.g, ok.n, true), std::nullopt);
  OneNode far("ReduceSum", 13);
  far.in(f, 2).constant({2}).out(f);
  EXPECT_TRUE(contains(reduce_reason(far.g, far.n, true), "out of range"));
  OneNode twice("ReduceMean", 11);
  twice.in(f, 2).out(f).attr_ints("axes", {1, -1});
  EXPECT_TRUE(contains(reduce_reason(twice.g, twice.n, false), "repeated"));
  OneNode run_time("ReduceSum", 13);
  run_time.in(f, 2).in(DType::kInt64, 1).out(f);
  EXPECT_TRUE(contains(reduce_reason(run_time.g, run_time.n, true), "constant"));
  OneNode bools("ReduceSum", 13);
  bools.in(DType::kBool, 2).out(DType::kBool);
  EXPECT_TRUE(contains(reduce_reason(bools.g, bools.n, true), "bool"));
  OneNode bool_max("ReduceMax", 18);
  bool_max.in(DType::kBool, 2).out(DType::kBool);
  EXPECT_EQ(reduce_reason(bool_max.g, bool_max.n, true), std::nullopt);
  OneNode unknown_rank("ReduceSum", 13);
  unknown_rank.in(f, -1).constant({5}).out(f);  // checked when the kernel runs
  EXPECT_EQ(reduce_reason(unknown_rank.g, unknown_rank.n, true), std::nullopt);
  OneNode strings("ReduceMax", 18);
  strings.in(DType::kString, 2).out(DType::kString);
  EXPECT_TRUE(contains(reduce_reason(strings.g, strings.n, true), "string"));
}

}  // namespace
}  // namespace geon::onnx
