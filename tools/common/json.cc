#include "tools/common/json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tools/common/host_tensor.h"
#include "tools/common/json_value.h"

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
  try {
    const JsonValue doc = parse_json(json);
    const JsonValue* v = doc.find(key);
    if (v && v->is_number()) return v->number;
  } catch (const ToolError&) {
    // Not JSON: as absent, so that a damaged data.json leaves the harness defaults.
  }
  return std::nullopt;
}

}  // namespace geon::tools
