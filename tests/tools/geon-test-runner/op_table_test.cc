// Putting a failed or skipped backend test down to an op, and counting them per op.
#include "tools/geon-test-runner/op_table.h"

#include <gtest/gtest.h>

namespace geon::tools {
namespace {

TEST(TestOp, TheOpTheMessageNamesComesFirst) {
  EXPECT_EQ(test_op("test_whatever",
                    "create_session: no kernel set can run 1 node(s): node 'Det#0' (Det): "
                    "cpu.dnnl: no kernel for Det at opset 11;",
                    {"Cast", "Det"}),
            "Det");
}

TEST(TestOp, ElseTheModelOpTheTestIsNamedAfterTheLongestMatch) {
  const std::vector<std::string> ops = {"MatMul", "MatMulInteger", "Cast"};
  EXPECT_EQ(test_op("test_matmulinteger", "value at index 2", ops), "MatMulInteger");
  EXPECT_EQ(test_op("test_layer_normalization_4d_axis0", "mismatch",
                    {"ReduceMean", "LayerNormalization"}),
            "LayerNormalization");
  EXPECT_EQ(test_op("test_ai_onnx_ml_label_encoder", "", {"ai.onnx.ml.LabelEncoder"}),
            "ai.onnx.ml.LabelEncoder");
  EXPECT_EQ(test_op("my_case", "crashed", {"Sub", "Relu"}), "Sub");  // else the first op
  EXPECT_EQ(test_op("test_x", "no model", {}), "?");
}

TEST(CountByOp, CountsFailuresAndSkipsPerOpMostFailuresFirst) {
  const auto rows = count_by_op({{"Conv", TestStatus::kUnsupported},
                                 {"Add", TestStatus::kFail},
                                 {"Conv", TestStatus::kUnsupported},
                                 {"Relu", TestStatus::kPass},
                                 {"Add", TestStatus::kUnsupported},
                                 {"Det", TestStatus::kUnsupported}});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].op, "Add");
  EXPECT_EQ(rows[0].failed, 1u);
  EXPECT_EQ(rows[0].skipped, 1u);
  EXPECT_EQ(rows[1].op, "Conv");
  EXPECT_EQ(rows[1].skipped, 2u);
  EXPECT_EQ(rows[2].op, "Det");
  EXPECT_NE(format_op_table(rows).find("Conv       0        2"), std::string::npos)
      << format_op_table(rows);
  EXPECT_EQ(format_op_table({}), "");
}

}  // namespace
}  // namespace geon::tools
