// Reads the placement report: where each node of a model runs (kernel set, device, subgraph),
// which kernel sets refused it and why, the subgraphs and the transfers between devices.
// The report is JSON; a small reader below turns it into values.
// Usage: placement_report MODEL.onnx [PROVIDER.so]   (e.g. models/cnn.onnx)
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "geon/geon.hpp"

namespace {

// A JSON value: null, bool, number, string, array or object (members in document order).
struct Json {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;

  // The member named key, or null when there is none.
  const Json& operator[](const std::string& key) const {
    static const Json kMissing;
    for (const auto& [k, v] : members)
      if (k == key) return v;
    return kMissing;
  }
};

// Recursive descent over the report's text; throws on malformed input.
class JsonReader {
 public:
  explicit JsonReader(const std::string& s) : s_(s) {}
  Json read() {
    Json v = value();
    if (skip_space() != '\0') fail("trailing text");
    return v;
  }

 private:
  char skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(std::string("report JSON: ") + what + " at " + std::to_string(pos_));
  }
  void expect(char c) {
    if (skip_space() != c) fail("unexpected character");
    ++pos_;
  }
  bool take(const char* word) {
    const std::string w = word;
    if (s_.compare(pos_, w.size(), w) != 0) return false;
    pos_ += w.size();
    return true;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c == '\\' && pos_ < s_.size()) {
        c = s_[pos_++];
        if (c == 'n') c = '\n';
        if (c == 't') c = '\t';
        if (c == 'u') {  // the report's names are ASCII; keep other code points as '?'
          const long code = std::strtol(s_.substr(pos_, 4).c_str(), nullptr, 16);
          pos_ += 4;
          c = code < 128 ? static_cast<char>(code) : '?';
        }
      }
      out += c;
    }
    expect('"');
    return out;
  }
  Json value() {
    Json v;
    const char c = skip_space();
    if (c == '{') {
      v.kind = Json::kObject;
      ++pos_;
      if (skip_space() == '}') return ++pos_, v;
      do {
        std::string key = string();
        expect(':');
        v.members.emplace_back(std::move(key), value());
      } while (skip_space() == ',' && ++pos_);
      expect('}');
    } else if (c == '[') {
      v.kind = Json::kArray;
      ++pos_;
      if (skip_space() == ']') return ++pos_, v;
      do v.items.push_back(value());
      while (skip_space() == ',' && ++pos_);
      expect(']');
    } else if (c == '"') {
      v.kind = Json::kString;
      v.text = string();
    } else if (take("true") || take("false")) {
      v.kind = Json::kBool;
      v.boolean = s_[pos_ - 1] == 'e' && s_[pos_ - 2] == 'u';
    } else if (take("null")) {
    } else {
      char* end = nullptr;
      v.kind = Json::kNumber;
      v.number = std::strtod(s_.c_str() + pos_, &end);
      if (end == s_.c_str() + pos_) fail("not a value");
      pos_ = static_cast<size_t>(end - s_.c_str());
    }
    return v;
  }

  const std::string& s_;
  size_t pos_ = 0;
};

void placement_report(const std::string& model_path, const std::string& provider_path) {
  // 1. A session: creating it imports, rewrites and places the model.
  geon::api::Library lib(provider_path);
  geon::api::Session session(lib, model_path);

  // 2. The report, as JSON text, read into values.
  const Json report = JsonReader(session.placement_report()).read();

  // 3. Each node (after fusion: "a+b+c" names the ONNX nodes it holds): its kernel set and
  // device, and the kernel sets before it that refused it, with their reasons.
  for (const Json& node : report["nodes"].items) {
    std::printf("node %s: %s on %s (%s, subgraph %d)\n", node["name"].text.c_str(),
                node["op"].text.c_str(), node["set"].text.c_str(), node["device"].text.c_str(),
                static_cast<int>(node["subgraph"].number));
    for (const Json& refusal : node["refusals"].items)
      std::printf("  refused by %s: %s\n", refusal["set"].text.c_str(),
                  refusal["reason"].text.c_str());
  }

  // 4. The subgraphs, and the copies between devices (each names the value and both ends).
  for (const Json& sg : report["subgraphs"].items)
    std::printf("subgraph %d: %zu nodes on %s\n", static_cast<int>(sg["index"].number),
                sg["nodes"].items.size(), sg["set"].text.c_str());
  std::printf("transfers: %zu\n", report["transfers"].items.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s MODEL.onnx [PROVIDER.so]\n", argv[0]);
    return 2;
  }
  try {
    placement_report(argv[1], argc == 3 ? argv[2] : GEON_PROVIDER_LIBRARY);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
