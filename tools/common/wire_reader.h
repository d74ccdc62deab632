// A bounds-checked reader of protobuf's wire format, for the ONNX messages the tools read
// themselves (TensorProto, SequenceProto, OptionalProto): every length is checked against the
// bytes present, and a malformed message is a ToolError naming the source and the byte.
#pragma once

#include <cstring>
#include <span>
#include <string>

#include "tools/common/host_tensor.h"

namespace geon::tools {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// A bounds-checked cursor over protobuf wire-format bytes.
class WireReader {
 public:
  WireReader(std::span<const std::byte> bytes, const std::string& what)
      : bytes_(bytes), what_(what) {}

  bool done() const { return pos_ >= bytes_.size(); }

  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= bytes_.size()) fail("truncated varint");
      const auto b = std::to_integer<uint64_t>(bytes_[pos_++]);
      v |= (b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    fail("varint longer than 10 bytes");
  }

  template <typename T>
  T fixed() {
    if (bytes_.size() - pos_ < sizeof(T)) fail("truncated fixed-width value");
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }

  std::span<const std::byte> length_delimited() {
    const uint64_t n = varint();
    if (n > bytes_.size() - pos_) {
      fail("a length-delimited field claims " + std::to_string(n) + " bytes, " +
           std::to_string(bytes_.size() - pos_) + " remain");
    }
    auto s = bytes_.subspan(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return s;
  }

  void skip(uint32_t wire_type) {
    switch (wire_type) {
      case kVarint:
        varint();
        break;
      case kFixed64:
        fixed<uint64_t>();
        break;
      case kLengthDelimited:
        length_delimited();
        break;
      case kFixed32:
        fixed<uint32_t>();
        break;
      default:
        fail("unsupported wire type " + std::to_string(wire_type));
    }
  }

  [[noreturn]] void fail(const std::string& why) const {
    throw ToolError(what_ + ": malformed protobuf message at byte " + std::to_string(pos_) + ": " +
                    why);
  }

 private:
  std::span<const std::byte> bytes_;
  const std::string& what_;
  size_t pos_ = 0;
};

}  // namespace geon::tools
