#include "tools/geon-test-runner/model_ops.h"

#include <cstdint>
#include <optional>
#include <string_view>

#include "tools/common/file_bytes.h"

namespace geon::tools {
namespace {

// One protobuf field: its number and, for length-delimited ones, the bytes.
struct Field {
  uint32_t number = 0;
  std::string_view bytes;
};

class Fields {
 public:
  explicit Fields(std::string_view s) : s_(s) {}
  // The next field, or nullopt at the end or on malformed input.
  std::optional<Field> next() {
    if (at_ >= s_.size()) return std::nullopt;
    const auto tag = varint();
    if (!tag) return std::nullopt;
    Field f{static_cast<uint32_t>(*tag >> 3), {}};
    switch (*tag & 7) {
      case 0:
        if (!varint()) return std::nullopt;
        break;
      case 1:
        at_ += 8;
        break;
      case 5:
        at_ += 4;
        break;
      case 2: {
        const auto n = varint();
        if (!n || *n > s_.size() - at_) return std::nullopt;
        f.bytes = s_.substr(at_, *n);
        at_ += *n;
        break;
      }
      default:
        return std::nullopt;
    }
    if (at_ > s_.size()) return std::nullopt;
    return f;
  }

 private:
  std::optional<uint64_t> varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && at_ < s_.size(); shift += 7) {
      const auto b = static_cast<uint8_t>(s_[at_++]);
      v |= uint64_t{b & 0x7Fu} << shift;
      if (!(b & 0x80)) return v;
    }
    return std::nullopt;
  }
  std::string_view s_;
  size_t at_ = 0;
};

// ModelProto.graph = 7; GraphProto.node = 1; NodeProto.op_type = 4, domain = 7.
constexpr uint32_t kModelGraph = 7, kGraphNode = 1, kNodeOpType = 4, kNodeDomain = 7;

}  // namespace

std::vector<std::string> model_op_types(const std::string& model_path) {
  std::vector<std::string> ops;
  std::string bytes;
  try {
    bytes = read_file_text(model_path, size_t{1} << 30);
  } catch (const std::exception&) {
    return ops;
  }
  Fields model(bytes);
  while (auto f = model.next()) {
    if (f->number != kModelGraph) continue;
    Fields graph(f->bytes);
    while (auto g = graph.next()) {
      if (g->number != kGraphNode) continue;
      Fields node(g->bytes);
      std::string op, domain;
      while (auto n = node.next()) {
        if (n->number == kNodeOpType) op = n->bytes;
        if (n->number == kNodeDomain) domain = n->bytes;
      }
      const bool onnx = domain.empty() || domain == "ai.onnx";
      if (!op.empty()) ops.push_back(onnx ? op : domain + "." + op);
    }
  }
  return ops;
}

}  // namespace geon::tools
