// Reading JSON documents into a tree: every value kind, escapes (json_quote's output reads back
// as the original), nesting, and errors that name the offset.
#include "tools/common/json_value.h"

#include <gtest/gtest.h>

#include "tools/common/host_tensor.h"
#include "tools/common/json.h"

namespace geon::tools {
namespace {

TEST(ParseJson, ReadsEveryKindInDocumentOrder) {
  const JsonValue v =
      parse_json(R"( {"a": [1, -2.5e3, true, false, null], "b": {"c": "d"}, "e": [], "f": {}} )");
  ASSERT_TRUE(v.is_object());
  ASSERT_EQ(v.members.size(), 4u);
  EXPECT_EQ(v.members[0].key, "a");
  const JsonValue* a = v.find("a");
  ASSERT_TRUE(a && a->is_array());
  ASSERT_EQ(a->items.size(), 5u);
  EXPECT_EQ(a->items[0].number, 1);
  EXPECT_EQ(a->items[1].number, -2500);
  EXPECT_TRUE(a->items[2].boolean);
  EXPECT_EQ(a->items[3].kind, JsonValue::Kind::kBool);
  EXPECT_FALSE(a->items[3].boolean);
  EXPECT_TRUE(a->items[4].is_null());
  EXPECT_EQ(v.find("b")->find("c")->str(), "d");
  EXPECT_TRUE(v.find("e")->items.empty());
  EXPECT_TRUE(v.find("f")->is_object());
  EXPECT_EQ(v.find("missing"), nullptr);
  EXPECT_EQ(a->find("x"), nullptr);  // not an object
}

TEST(ParseJson, StringsRoundTripThroughJsonQuote) {
  const std::string original = "a\"b\\c\nd\te\x01/é€😀";
  EXPECT_EQ(parse_json(json_quote(original)).str(), original);
  EXPECT_EQ(parse_json(R"("\u00e9\ud83d\ude00\/")").str(), "é😀/");
}

TEST(ParseJson, MalformedInputIsAnErrorNamingTheOffset) {
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "\"open", "tru", "[1] 2", "{1: 2}"})
    EXPECT_THROW(parse_json(bad), ToolError) << bad;
  try {
    parse_json("[1, x]");
    FAIL();
  } catch (const ToolError& e) {
    EXPECT_NE(std::string(e.what()).find("byte 4"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace geon::tools
