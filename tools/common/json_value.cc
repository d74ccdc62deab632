#include "tools/common/json_value.h"

#include <charconv>
#include <cstdint>

#include "tools/common/host_tensor.h"

namespace geon::tools {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  JsonValue document() {
    JsonValue v = value(0);
    skip_space();
    if (at_ < s_.size()) fail("text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ToolError("invalid JSON at byte " + std::to_string(at_) + ": " + what);
  }
  void skip_space() {
    while (at_ < s_.size() &&
           (s_[at_] == ' ' || s_[at_] == '\n' || s_[at_] == '\r' || s_[at_] == '\t'))
      ++at_;
  }
  bool take(char c) {
    skip_space();
    if (at_ < s_.size() && s_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!take(c)) fail(std::string("expected '") + c + "'");
  }
  bool literal(std::string_view word) {
    if (s_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }

  JsonValue value(int depth) {
    if (depth > 256) fail("nested too deeply");
    skip_space();
    if (at_ >= s_.size()) fail("unexpected end");
    JsonValue v;
    const char c = s_[at_];
    if (c == '{') {
      ++at_;
      v.kind = JsonValue::Kind::kObject;
      if (take('}')) return v;
      do {
        skip_space();
        std::string key = string_literal();
        expect(':');
        v.members.push_back({std::move(key), value(depth + 1)});
      } while (take(','));
      expect('}');
    } else if (c == '[') {
      ++at_;
      v.kind = JsonValue::Kind::kArray;
      if (take(']')) return v;
      do v.items.push_back(value(depth + 1));
      while (take(','));
      expect(']');
    } else if (c == '"') {
      v.kind = JsonValue::Kind::kString;
      v.string = string_literal();
    } else if (literal("true")) {
      v.kind = JsonValue::Kind::kBool;
      v.boolean = true;
    } else if (literal("false")) {
      v.kind = JsonValue::Kind::kBool;
    } else if (literal("null")) {
      v.kind = JsonValue::Kind::kNull;
    } else {
      v.kind = JsonValue::Kind::kNumber;
      const auto r = std::from_chars(s_.data() + at_, s_.data() + s_.size(), v.number);
      if (r.ec != std::errc()) fail("expected a value");
      at_ = static_cast<size_t>(r.ptr - s_.data());
    }
    return v;
  }

  static void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  uint32_t hex4() {
    if (at_ + 4 > s_.size()) fail("short \\u escape");
    uint32_t cp = 0;
    const auto r = std::from_chars(s_.data() + at_, s_.data() + at_ + 4, cp, 16);
    if (r.ec != std::errc() || r.ptr != s_.data() + at_ + 4) fail("bad \\u escape");
    at_ += 4;
    return cp;
  }

  std::string string_literal() {
    if (at_ >= s_.size() || s_[at_] != '"') fail("expected a string");
    ++at_;
    std::string out;
    while (true) {
      if (at_ >= s_.size()) fail("unterminated string");
      const char c = s_[at_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_ >= s_.size()) fail("unterminated escape");
      const char e = s_[at_++];
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u': {
          uint32_t cp = hex4();
          // A surrogate pair spells one code point above U+FFFF.
          if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(at_, 2) == "\\u") {
            at_ += 2;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4() - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          out += e;  // '"', '\\', '/'
      }
    }
  }

  std::string_view s_;
  size_t at_ = 0;
};

}  // namespace

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

std::string JsonValue::str(std::string_view fallback) const {
  return kind == Kind::kString ? string : std::string(fallback);
}

JsonValue parse_json(std::string_view text) { return Parser(text).document(); }

}  // namespace geon::tools
