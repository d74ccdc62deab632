// JSON text helpers for the reports the provider writes by hand (the shapes are small and
// fixed, so no JSON library is needed).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace geon::provider {

// s as a JSON string literal, quotes included.
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

}  // namespace geon::provider
