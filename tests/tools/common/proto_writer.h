// A tiny protobuf wire-format writer for the reader's tests: builds TensorProto bytes field by
// field, including malformed ones that no real serializer would produce.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace geon::tools::testing {

class ProtoWriter {
 public:
  ProtoWriter& varint_field(uint32_t field, uint64_t v) {
    tag(field, 0);
    varint(v);
    return *this;
  }
  ProtoWriter& bytes_field(uint32_t field, const std::string& s) {
    tag(field, 2);
    varint(s.size());
    raw(s);
    return *this;
  }
  ProtoWriter& fixed32_field(uint32_t field, float v) {
    tag(field, 5);
    char b[4];
    std::memcpy(b, &v, 4);
    raw(std::string(b, 4));
    return *this;
  }
  // A packed repeated varint field (dims, int32_data, int64_data).
  ProtoWriter& packed_varints(uint32_t field, const std::vector<int64_t>& vs) {
    ProtoWriter inner;
    for (int64_t v : vs) inner.varint(static_cast<uint64_t>(v));
    return bytes_field(field, inner.str());
  }
  template <typename T>
  ProtoWriter& packed_fixed(uint32_t field, const std::vector<T>& vs) {
    std::string s(vs.size() * sizeof(T), '\0');
    if (!vs.empty()) std::memcpy(s.data(), vs.data(), s.size());
    return bytes_field(field, s);
  }
  ProtoWriter& raw(const std::string& s) {
    out_ += s;
    return *this;
  }
  void tag(uint32_t field, uint32_t wire) { varint((uint64_t{field} << 3) | wire); }
  void varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  const std::string& str() const { return out_; }
  std::vector<std::byte> bytes() const {
    std::vector<std::byte> b(out_.size());
    if (!b.empty()) std::memcpy(b.data(), out_.data(), out_.size());
    return b;
  }

 private:
  std::string out_;
};

template <typename T>
std::string raw_bytes(const std::vector<T>& vs) {
  std::string s(vs.size() * sizeof(T), '\0');
  if (!vs.empty()) std::memcpy(s.data(), vs.data(), s.size());
  return s;
}

}  // namespace geon::tools::testing
