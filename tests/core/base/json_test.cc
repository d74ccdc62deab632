// core/base/json: string literals for the hand-written JSON reports: quotes and backslashes
// escaped, control characters as \u00XX, everything else (UTF-8 included) unchanged.
#include "core/base/json.h"

#include <gtest/gtest.h>

namespace geon {
namespace {

TEST(JsonString, QuotesPlainTextUnchanged) {
  EXPECT_EQ(json_string("fc1_matmul"), "\"fc1_matmul\"");
  EXPECT_EQ(json_string(""), "\"\"");
}

TEST(JsonString, EscapesQuoteAndBackslash) { EXPECT_EQ(json_string("a\"b\\c"), "\"a\\\"b\\\\c\""); }

TEST(JsonString, ControlCharactersBecomeUnicodeEscapes) {
  EXPECT_EQ(json_string(std::string_view("\n\t\x1f\0", 4)), "\"\\u000a\\u0009\\u001f\\u0000\"");
}

TEST(JsonString, Utf8BytesPassThrough) {
  const std::string name = "caf\xc3\xa9";
  EXPECT_EQ(json_string(name), "\"" + name + "\"");
}

}  // namespace
}  // namespace geon
