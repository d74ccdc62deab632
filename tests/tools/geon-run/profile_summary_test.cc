// The per-op summary of a Chrome-trace profile: grouped by op and set, summed, sorted by total.
#include "tools/geon-run/profile_summary.h"

#include <gtest/gtest.h>

#include "tools/common/host_tensor.h"

namespace geon::tools {
namespace {

std::string event(const std::string& op, const std::string& set, double dur) {
  return "{\"name\": \"n\", \"cat\": \"" + op +
         "\", \"ph\": \"X\", \"ts\": 1.5, \"dur\": " + std::to_string(dur) +
         ", \"pid\": 0, \"tid\": 0, \"args\": {\"op\": \"" + op + "\", \"set\": \"" + set +
         "\", \"input_shapes\": [[2, 3]]}}";
}

TEST(OpTimes, GroupsByOpAndSetAndSortsByTotal) {
  const std::string trace = "{\"traceEvents\": [" + event("Conv", "cpu.dnnl", 10) + ", " +
                            event("Relu", "cpu.generic", 1) + ", " + event("Conv", "cpu.dnnl", 30) +
                            ", " + event("Relu", "cpu.dnnl", 5) + "]}";
  const auto rows = op_times(trace);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].op, "Conv");
  EXPECT_EQ(rows[0].count, 2u);
  EXPECT_DOUBLE_EQ(rows[0].total_us, 40);
  EXPECT_EQ(rows[1].set, "cpu.dnnl");
  EXPECT_EQ(rows[2].set, "cpu.generic");
  const std::string table = format_op_times(rows);
  EXPECT_NE(table.find("Conv  cpu.dnnl            2       0.040        20.0    87.0%"),
            std::string::npos)
      << table;
  const std::string total = table.substr(table.find("\ntotal") + 1);
  EXPECT_NE(total.find(" 4       0.046"), std::string::npos) << table;
  EXPECT_NE(total.find("100.0%"), std::string::npos) << table;
}

TEST(OpTimes, AnEmptyTraceHasNoRowsAndABadOneIsAnError) {
  EXPECT_TRUE(op_times("{\"traceEvents\": []}").empty());
  EXPECT_THROW(op_times("{\"events\": []}"), ToolError);
  EXPECT_THROW(op_times("not json"), ToolError);
}

}  // namespace
}  // namespace geon::tools
