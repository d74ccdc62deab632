// geon-test-runner's closing table: failed and skipped tests counted per op, so that a run over
// a backend data set says which ops need work first.
#pragma once

#include <string>
#include <vector>

#include "tools/geon-test-runner/run_test.h"

namespace geon::tools {

// The op a test is about: the op the message names ("node 'X' (Op): ..."), else the model op
// whose name the test's is made from (test_layer_normalization_4d -> LayerNormalization, the
// longest such), else the model's first op; "?" when nothing says.
std::string test_op(const std::string& test_name, const std::string& message,
                    const std::vector<std::string>& model_ops);

struct OpCount {
  std::string op;
  size_t failed = 0, skipped = 0;
};

// Counts per op of (op, status) pairs of failed and skipped tests (passes are ignored), most
// failures first, then most skips, then by name.
std::vector<OpCount> count_by_op(const std::vector<std::pair<std::string, TestStatus>>& tests);
// The table, with a header line; "" when there is nothing to count.
std::string format_op_table(const std::vector<OpCount>& rows);

}  // namespace geon::tools
