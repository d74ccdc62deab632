// The DOT writer on hand-made placement reports: a transfer between devices is marked on its
// edge and in the legend, an unplaced node gets its own colour, an omitted optional input draws
// no edge, and a report without the node inputs (an older provider) is refused by name.
#include "tools/geon-inspect/dot.h"

#include <gtest/gtest.h>

#include "tools/common/host_tensor.h"

namespace geon::tools {
namespace {

const char* const kReport = R"({
  "nodes": [
    {"index": 0, "name": "relu", "op": "Relu", "set": "cuda", "device": "cuda:0",
     "inputs": ["x"], "outputs": ["r"]},
    {"index": 1, "name": "odd", "op": "Mystery", "set": null, "device": null,
     "inputs": ["r", "", "w"], "outputs": ["y"]}
  ],
  "transfers": [{"value": "r", "from": "cuda:0", "to": "host"}],
  "values": {
    "x": {"dtype": "float", "shape": ["batch", 4], "kind": "input"},
    "w": {"dtype": "float", "shape": [4], "kind": "constant"},
    "r": {"dtype": "float", "shape": ["batch", 4], "kind": "intermediate"},
    "y": {"dtype": "float", "shape": ["batch", 4], "kind": "output"}
  }
})";

TEST(PlacementDot, MarksTransfersAndUnplacedNodesAndListsConstants) {
  DotSummary summary;
  const std::string dot = placement_dot(parse_json(kReport), DotOptions{}, summary);
  EXPECT_EQ(summary.nodes, 2u);
  EXPECT_EQ(summary.drawn, 2u);
  EXPECT_NE(dot.find("n0 -> n1 [label=\"[batch, 4] float\\ntransfer cuda:0 → host\", "
                     "tooltip=\"r\", color=\"#d62728\""),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("in_0 -> n0 [label=\"[batch, 4] float\", tooltip=\"x\"]"), std::string::npos)
      << dot;
  EXPECT_NE(dot.find("n1 -> out_1"), std::string::npos) << dot;
  EXPECT_NE(dot.find("const w [4] float"), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"unplaced\""), std::string::npos) << dot;  // in the legend
  EXPECT_NE(dot.find("label=\"cuda\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("legend_transfer"), std::string::npos) << dot;
  EXPECT_EQ(dot.find("tooltip=\"\""), std::string::npos) << dot;  // no edge for the omitted input

  DotOptions hidden;
  hidden.constants = false;
  EXPECT_EQ(placement_dot(parse_json(kReport), hidden, summary).find("const w"), std::string::npos);
}

TEST(PlacementDot, AReportWithoutNodeInputsIsRefused) {
  DotSummary summary;
  EXPECT_THROW(placement_dot(parse_json(R"({"nodes": [{"name": "a", "op": "Relu"}]})"),
                             DotOptions{}, summary),
               ToolError);
}

}  // namespace
}  // namespace geon::tools
