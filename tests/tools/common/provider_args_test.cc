// tools/common/provider_args: --devices and --provider are taken (with their values) by every
// tool the same way, other arguments are left to the tool, and a missing value names the flag.
#include "tools/common/provider_args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/tools/common/argv.h"
#include "tools/common/host_tensor.h"

namespace geon::tools {
namespace {

using testing::Argv;

TEST(ProviderArgs, TakesDevicesAndProviderWithTheirValues) {
  Argv a({"--devices", "cpu.generic", "model.onnx", "--provider", "/x/lib.so"});
  ArgCursor cur(a.argc(), a.argv());
  ProviderArgs p;
  std::vector<std::string> left;
  while (cur.more()) {
    const std::string arg = cur.next();
    if (!take_provider_arg(arg, cur, p)) left.push_back(arg);
  }
  EXPECT_EQ(p.devices, "cpu.generic");
  EXPECT_EQ(p.provider, "/x/lib.so");
  EXPECT_EQ(left, std::vector<std::string>{"model.onnx"});
}

TEST(ProviderArgs, MissingValueNamesTheFlag) {
  Argv a({"--provider"});
  ArgCursor cur(a.argc(), a.argv());
  ProviderArgs p;
  const std::string arg = cur.next();
  try {
    take_provider_arg(arg, cur, p);
    FAIL() << "no error for --provider without a value";
  } catch (const ToolError& e) {
    EXPECT_NE(std::string(e.what()).find("--provider needs a value"), std::string::npos)
        << e.what();
  }
}

TEST(ProviderArgs, UsageDocumentsBothFlags) {
  const std::string usage = kProviderArgsUsage;
  EXPECT_NE(usage.find("--devices LIST"), std::string::npos);
  EXPECT_NE(usage.find("--provider PATH"), std::string::npos);
}

TEST(ToolArgs, PositionalRefusesUnknownOptions) {
  EXPECT_EQ(positional("model.onnx"), "model.onnx");
  EXPECT_THROW(positional("--no-such-flag"), ToolError);
}

TEST(ToolArgs, OneModelOnly) {
  std::string model;
  EXPECT_THROW(require_model(model), ToolError);
  set_model(model, "a.onnx");
  EXPECT_EQ(model, "a.onnx");
  require_model(model);
  try {
    set_model(model, "b.onnx");
    FAIL() << "no error for a second model";
  } catch (const ToolError& e) {
    EXPECT_NE(std::string(e.what()).find("'a.onnx' and 'b.onnx'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(model, "a.onnx");
}

}  // namespace
}  // namespace geon::tools
