// Reading JSON documents the provider hands the tools (the placement report, the Chrome-trace
// profile) into a small tree: enough to walk objects and arrays, no more.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace geon::tools {

struct JsonMember;

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> items;     // kArray
  std::vector<JsonMember> members;  // kObject, in document order

  bool is_null() const { return kind == Kind::kNull; }
  bool is_number() const { return kind == Kind::kNumber; }
  bool is_string() const { return kind == Kind::kString; }
  bool is_array() const { return kind == Kind::kArray; }
  bool is_object() const { return kind == Kind::kObject; }
  // The member named `key` of an object, or nullptr (also when this is not an object).
  const JsonValue* find(std::string_view key) const;
  // The string, or `fallback` when this is not a string.
  std::string str(std::string_view fallback = "") const;
};

// A named member of an object. Its own struct, not a std::pair: a pair cannot hold the
// still-incomplete JsonValue (libstdc++ accepts that under GCC, not under clang).
struct JsonMember {
  std::string key;
  JsonValue value;
};

// The document in `text`; a ToolError naming the byte offset when it is not valid JSON.
JsonValue parse_json(std::string_view text);

}  // namespace geon::tools
