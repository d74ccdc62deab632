// tools/common/tool_main: a tool body's status passes through; an exception becomes one
// "NAME: error: WHAT" line on stderr and the tool's error status.
#include "tools/common/tool_main.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace geon::tools {
namespace {

int returns_argc(int argc, char**) { return argc + 40; }
int throws(int, char**) { throw std::runtime_error("the model is gone"); }

TEST(ToolMain, BodyStatusPassesThrough) {
  char name[] = "tool";
  char* argv[] = {name, nullptr};
  EXPECT_EQ(tool_main("geon-x", 1, argv, returns_argc, 2), 41);
}

TEST(ToolMain, ExceptionBecomesOneErrorLineAndTheErrorStatus) {
  char name[] = "tool";
  char* argv[] = {name, nullptr};
  ::testing::internal::CaptureStderr();
  const int status = tool_main("geon-x", 1, argv, throws, 7);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(status, 7);
  EXPECT_EQ(err, "geon-x: error: the model is gone\n");
}

}  // namespace
}  // namespace geon::tools
