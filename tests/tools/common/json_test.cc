// JSON quoting for the reports the tools write, and reading a test's data.json tolerances.
#include "tools/common/json.h"

#include <gtest/gtest.h>

#include <cmath>

namespace geon::tools {
namespace {

TEST(JsonQuote, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(json_quote("a\"b\\c\nd\x01"), "\"a\\\"b\\\\c\\nd\\u0001\"");
  EXPECT_EQ(json_quote(""), "\"\"");
}

TEST(JsonNumber, NonFiniteBecomesNull) {
  EXPECT_EQ(json_number(0.25), "0.25");
  EXPECT_EQ(json_number(NAN), "null");
  EXPECT_EQ(json_number(INFINITY), "null");
}

TEST(JsonFindNumber, ReadsDataJsonTolerances) {
  const std::string data =
      R"({"atol": 1e-07, "model_name": "resnet50", "rtol": 0.001, "url": "x"})";
  EXPECT_EQ(json_find_number(data, "rtol"), 0.001);
  EXPECT_EQ(json_find_number(data, "atol"), 1e-07);
  EXPECT_FALSE(json_find_number(data, "model_name").has_value());
  EXPECT_FALSE(json_find_number(data, "missing").has_value());
  EXPECT_FALSE(json_find_number("{\"rtol\"", "rtol").has_value());
}

}  // namespace
}  // namespace geon::tools
