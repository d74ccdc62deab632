// Writing JSON by hand: the reports geon emits (placement, profile, provider report) have small
// fixed shapes, so string literals are the one part that needs care and lives here once.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace geon {

// s as a JSON string literal, quotes included: '"' and '\' escaped, control characters as
// \u00XX; other bytes (UTF-8 included) pass through unchanged.
inline std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

}  // namespace geon
