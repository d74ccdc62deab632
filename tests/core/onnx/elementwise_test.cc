// core/onnx/elementwise: the shared ONNX elementwise table names only ops the CPU engine has,
// attribute variants resolve, supports reasons name what is wrong (operand counts, dtypes,
// attribute values, the backend's own coverage), and expressions fuse variadic inputs.
#include "core/onnx/elementwise.h"

#include <gtest/gtest.h>

#include <set>

#include "core/base/error.h"
#include "core/engine/ops.h"
#include "tests/core/onnx/one_node.h"

namespace geon::onnx {
namespace {

using testing::contains;
using testing::OneNode;

Reason any_op(std::string_view, DType) { return std::nullopt; }
Reason no_op(std::string_view op, DType) { return "backend lacks " + std::string(op); }

TEST(OnnxElementwise, EveryRowNamesAnEngineOpOnce) {
  std::set<std::string_view> seen;
  for (const ElementwiseOp& e : elementwise_ops()) {
    EXPECT_TRUE(seen.insert(e.onnx).second) << e.onnx << " twice";
    EXPECT_GE(e.since, 1) << e.onnx;
    EXPECT_NE(geon::find_op(e.engine), nullptr) << e.onnx << " -> " << e.engine;
    EXPECT_EQ(find_elementwise(e.onnx), &e);
  }
  EXPECT_NE(geon::find_op("fmod"), nullptr);
  EXPECT_NE(geon::find_op("shift_right"), nullptr);
  EXPECT_EQ(find_elementwise("Conv"), nullptr);
}

TEST(OnnxElementwise, SpecResolvesAttributeVariants) {
  EXPECT_EQ(elementwise_spec(OneNode("Mod").attr_i("fmod", 1).n).engine_op, "fmod");
  EXPECT_EQ(elementwise_spec(OneNode("Mod").n).engine_op, "mod");
  EXPECT_EQ(elementwise_spec(OneNode("BitShift").attr_s("direction", "RIGHT").n).engine_op,
            "shift_right");
  EXPECT_EQ(elementwise_spec(OneNode("BitShift").attr_s("direction", "LEFT").n).engine_op,
            "shift_left");
  EXPECT_FLOAT_EQ(elementwise_spec(OneNode("LeakyRelu").n).params.alpha, 0.01f);
  EXPECT_FLOAT_EQ(elementwise_spec(OneNode("Elu").attr_f("alpha", 0.5f).n).params.alpha, 0.5f);
  EXPECT_EQ(elementwise_spec(OneNode("IsInf").n).engine_op, "isinf");
  const ElementwiseSpec pos = elementwise_spec(OneNode("IsInf").attr_i("detect_negative", 0).n);
  EXPECT_EQ(pos.engine_op, "isinf_signed");
  EXPECT_EQ(pos.params.alpha, 1);
  EXPECT_EQ(pos.params.beta, 0);
  EXPECT_TRUE(elementwise_spec(OneNode("Mean").n).mean);
  EXPECT_FALSE(elementwise_spec(OneNode("Sum").n).mean);
  try {
    elementwise_spec(OneNode("MatMul").n);
    ADD_FAILURE() << "MatMul has no elementwise spec";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotSupported);
  }
}

TEST(OnnxElementwise, ReasonsNameWhatIsWrong) {
  const auto reason = [](const OneNode& o, EngineOpCheck c = any_op) {
    return elementwise_reason(o.g, o.n, "testset", c);
  };
  const DType f = DType::kFloat;
  EXPECT_EQ(reason(OneNode("Add").in(f).in(f).out(f)), std::nullopt);
  EXPECT_TRUE(contains(reason(OneNode("Conv").in(f).out(f)), "testset"));
  EXPECT_TRUE(contains(reason(OneNode("Add").in(f).out(f)), "2 inputs"));
  EXPECT_TRUE(contains(reason(OneNode("Where").in(DType::kBool).omitted().in(f).out(f)),
                       "input 1 is missing"));
  EXPECT_TRUE(contains(reason(OneNode("Relu").in(f).in(f).out(f)), "1 inputs"));
  EXPECT_TRUE(contains(reason(OneNode("Sum").out(f)), "no inputs"));
  OneNode many("Max");
  for (int i = 0; i < 7; ++i) many.in(f);
  EXPECT_TRUE(contains(reason(many.out(f)), "at most 6"));
  EXPECT_TRUE(
      contains(reason(OneNode("Add").in(DType::kString).in(DType::kString).out(f)), "string"));
  EXPECT_TRUE(
      contains(reason(OneNode("Neg").in(DType::kComplex64).out(DType::kComplex64)), "complex64"));
  EXPECT_TRUE(contains(reason(OneNode("Neg").in(f).out(f), no_op), "backend lacks neg"));
  EXPECT_TRUE(contains(reason(OneNode("Mod").attr_i("fmod", 1).in(f).in(f).out(f), no_op), "fmod"));
  EXPECT_TRUE(contains(reason(OneNode("BitShift").in(DType::kUInt8).in(DType::kUInt8).out(f)),
                       "direction"));
  // IsInf of one sign is its own engine op, which a backend may lack; Pow of an integer base
  // by a floating exponent runs (in floating point).
  EXPECT_EQ(reason(OneNode("IsInf").attr_i("detect_negative", 0).in(f).out(DType::kBool)),
            std::nullopt);
  EXPECT_TRUE(contains(reason(OneNode("IsInf").attr_i("detect_positive", 0).in(f).out(f), no_op),
                       "isinf_signed"));
  EXPECT_EQ(reason(OneNode("Pow").in(DType::kInt32).in(f).out(DType::kInt32)), std::nullopt);
  EXPECT_TRUE(contains(reason(OneNode("Mean").in(DType::kInt32).out(DType::kInt32)), "Mean"));
  // Where's compute type comes from its data operands, not the bool condition.
  EXPECT_EQ(reason(OneNode("Where").in(DType::kBool).in(f).in(f).out(f)), std::nullopt);
}

TEST(OnnxElementwise, ExpressionsFuseVariadicInputs) {
  const DType f3[] = {DType::kFloat, DType::kFloat, DType::kFloat};
  const Expr sum3 = elementwise_expr(elementwise_spec(OneNode("Sum").n), f3);
  EXPECT_EQ(sum3.nodes.size(), 2u);
  EXPECT_EQ(sum3.inputs.size(), 3u);
  const Expr sum1 = elementwise_expr(elementwise_spec(OneNode("Sum").n), std::span(f3, 1));
  ASSERT_EQ(sum1.nodes.size(), 1u);
  EXPECT_EQ(sum1.nodes[0].op->name, "identity");
  const Expr mean2 = elementwise_expr(elementwise_spec(OneNode("Mean").n), std::span(f3, 2));
  ASSERT_EQ(mean2.nodes.size(), 2u);
  EXPECT_DOUBLE_EQ(mean2.nodes.back().scale[0], 0.5);
  const Expr leaky = elementwise_expr(
      elementwise_spec(OneNode("LeakyRelu").attr_f("alpha", 0.25f).n), std::span(f3, 1));
  ASSERT_EQ(leaky.nodes.size(), 1u);
  EXPECT_DOUBLE_EQ(leaky.nodes[0].params.alpha, 0.25);
  const DType cmp[] = {DType::kInt32, DType::kInt32};
  EXPECT_EQ(elementwise_expr(elementwise_spec(OneNode("Less").n), cmp).result(), DType::kBool);
  // Pow of an integer base by a floating exponent computes in double (the store truncates);
  // by an integer exponent it stays in integers.
  const DType int_float[] = {DType::kInt32, DType::kFloat16};
  EXPECT_EQ(elementwise_expr(elementwise_spec(OneNode("Pow").n), int_float).result(),
            DType::kDouble);
  EXPECT_EQ(elementwise_expr(elementwise_spec(OneNode("Pow").n), cmp).result(), DType::kInt32);
}

}  // namespace
}  // namespace geon::onnx

namespace geon::onnx {
namespace {

Reason family_supports(const Graph&, const Node&) { return std::nullopt; }
std::unique_ptr<Kernel> family_create(const Graph&, const Node&) { return nullptr; }
Reason other_supports(const Graph&, const Node&) { return "other"; }

TEST(OnnxElementwise, KernelTableRowsFollowTheOpListThenTheSetsOwn) {
  const KernelEntry others[] = {{"", "Identity", 1, other_supports, family_create},
                                {"", "Clip", 11, other_supports, family_create}};
  const std::vector<KernelEntry> rows =
      with_elementwise_rows(family_supports, family_create, others);
  const std::span<const ElementwiseOp> ops = elementwise_ops();
  ASSERT_EQ(rows.size(), ops.size() + 2);
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(rows[i].domain, "");
    EXPECT_EQ(rows[i].op, ops[i].onnx);
    EXPECT_EQ(rows[i].since, ops[i].since) << ops[i].onnx;
    EXPECT_EQ(rows[i].supports, &family_supports) << ops[i].onnx;
  }
  EXPECT_EQ(rows[ops.size()].op, "Identity");
  EXPECT_EQ(rows[ops.size() + 1].op, "Clip");
  EXPECT_EQ(rows[ops.size() + 1].since, 11);
  EXPECT_EQ(rows[ops.size() + 1].supports, &other_supports);
}

}  // namespace
}  // namespace geon::onnx
