#include "tools/common/json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace geon::tools {

std::string json_quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::optional<double> json_find_number(std::string_view json, std::string_view key) {
  const std::string quoted = json_quote(key);
  size_t at = 0;
  while ((at = json.find(quoted, at)) != std::string_view::npos) {
    size_t k = at + quoted.size();
    while (k < json.size() &&
           (json[k] == ' ' || json[k] == '\t' || json[k] == '\n' || json[k] == '\r'))
      ++k;
    if (k < json.size() && json[k] == ':') {
      ++k;
      while (k < json.size() &&
             (json[k] == ' ' || json[k] == '\t' || json[k] == '\n' || json[k] == '\r'))
        ++k;
      double v = 0;
      const auto r = std::from_chars(json.data() + k, json.data() + json.size(), v);
      if (r.ec != std::errc()) return std::nullopt;
      return v;
    }
    at = k;
  }
  return std::nullopt;
}

}  // namespace geon::tools
