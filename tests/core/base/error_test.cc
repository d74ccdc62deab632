// core/base/error: require's message forms. A message maker runs only when the check fails, so
// per-node checks with messages built from names and shapes cost nothing when they pass.
#include "core/base/error.h"

#include <gtest/gtest.h>

#include <string>

namespace geon {
namespace {

TEST(Require, MessageMakerRunsOnlyWhenTheCheckFails) {
  int made = 0;
  const auto message = [&] {
    ++made;
    return std::string("X has ") + std::to_string(3) + " dims";
  };
  require(true, message);
  EXPECT_EQ(made, 0);
  try {
    require(false, message);
    FAIL() << "require(false, ...) returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(std::string(e.what()), "X has 3 dims");
  }
  EXPECT_EQ(made, 1);
}

TEST(Require, StringAndLiteralMessagesStillWork) {
  EXPECT_NO_THROW(require(true, std::string("unused")));
  EXPECT_THROW(require(false, std::string("built")), Error);
  EXPECT_THROW(require(false, "literal"), Error);
}

}  // namespace
}  // namespace geon
