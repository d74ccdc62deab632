// tools/common/command_line: the walk shared by the tools: provider flags go to ProviderArgs,
// the rest (flags with their values, positionals) to the tool's handler in order, and --help
// shows the usage and stops the walk.
#include "tools/common/command_line.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/tools/common/argv.h"

namespace geon::tools {
namespace {

using testing::Argv;

TEST(CommandLine, RoutesProviderFlagsAndHandsTheRestToTheTool) {
  Argv a({"m.onnx", "--devices", "cpu.dnnl", "--seed", "7", "--provider", "p.so", "x"});
  ProviderArgs p;
  std::vector<std::string> seen;
  const bool go = walk_command_line(a.argc(), a.argv(), "usage\n", p,
                                    [&](const std::string& arg, ArgCursor& args) {
                                      seen.push_back(arg);
                                      if (arg == "--seed") seen.push_back(args.value(arg));
                                    });
  EXPECT_TRUE(go);
  EXPECT_EQ(p.devices, "cpu.dnnl");
  EXPECT_EQ(p.provider, "p.so");
  EXPECT_EQ(seen, (std::vector<std::string>{"m.onnx", "--seed", "7", "x"}));
}

TEST(CommandLine, HelpShowsTheUsageAndStops) {
  Argv a({"--devices", "cpu.generic", "--help", "--devices", "cuda", "later"});
  ProviderArgs p;
  int handled = 0;
  ::testing::internal::CaptureStdout();
  const bool go = walk_command_line(a.argc(), a.argv(), "usage: tool MODEL\n", p,
                                    [&](const std::string&, ArgCursor&) { ++handled; });
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "usage: tool MODEL\n");
  EXPECT_FALSE(go);
  EXPECT_EQ(handled, 0);
  EXPECT_EQ(p.devices, "cpu.generic");  // nothing after --help is read
}

}  // namespace
}  // namespace geon::tools
