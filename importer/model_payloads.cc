// The wire-level cut of initializer payloads. Only three levels are walked (ModelProto.graph,
// GraphProto.initializer, TensorProto.raw_data); every other field is copied as it is, so the
// lean message parses to what the whole one would, less the cut fields. Anything unexpected at
// those levels (a truncated field, a group, a length past its message) makes the cut give up.
#include "importer/model_payloads.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/base/error.h"

namespace geon::importer {
namespace {

constexpr uint64_t kModelGraph = 7;        // ModelProto.graph
constexpr uint64_t kGraphInitializer = 5;  // GraphProto.initializer
constexpr uint64_t kTensorRawData = 9;     // TensorProto.raw_data
constexpr uint64_t kLengthDelimited = 2;

using Byte = unsigned char;

bool read_varint(const Byte*& p, const Byte* end, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p == end) return false;
    const Byte b = *p++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// One field of a message: its number and wire type, its whole extent [begin, end) and, when
// length-delimited, its contents [body, end).
struct Field {
  uint64_t number = 0, wire = 0;
  const Byte *begin = nullptr, *body = nullptr, *end = nullptr;
};

// The field at p (advanced past it); false when the bytes are not a well-formed field.
bool next_field(const Byte*& p, const Byte* end, Field& f) {
  f.begin = p;
  uint64_t tag = 0, value = 0;
  if (!read_varint(p, end, tag) || tag > UINT32_MAX || (tag >> 3) == 0) return false;
  f.number = tag >> 3;
  f.wire = tag & 7;
  switch (f.wire) {
    case 0:
      if (!read_varint(p, end, value)) return false;
      break;
    case 1:
      if (end - p < 8) return false;
      p += 8;
      break;
    case 5:
      if (end - p < 4) return false;
      p += 4;
      break;
    case kLengthDelimited:
      if (!read_varint(p, end, value) || value > static_cast<uint64_t>(end - p) ||
          value > static_cast<uint64_t>(INT32_MAX))
        return false;
      f.body = p;
      p += value;
      break;
    default:  // groups: ONNX has none; protobuf judges them on the whole bytes
      return false;
  }
  f.end = p;
  return true;
}

void put_message(std::string& out, uint64_t number, const std::string& body) {
  put_varint(out, number << 3 | kLengthDelimited);
  put_varint(out, body.size());
  out += body;
}

// Walks the message [b, e), copying each field to `out` except those `cut` takes (it returns
// true for a field it consumed, false to have it copied). False when a field is malformed.
template <typename Cut>
bool rewrite(const Byte* b, const Byte* e, std::string& out, Cut&& cut) {
  for (const Byte* p = b; p < e;) {
    Field f;
    if (!next_field(p, e, f)) return false;
    bool ok = true;
    if (!cut(f, ok)) out.append(reinterpret_cast<const char*>(f.begin), f.end - f.begin);
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::optional<SplitModel> split_initializer_payloads(std::span<const std::byte> model) {
  const Byte* base = reinterpret_cast<const Byte*>(model.data());
  SplitModel out;
  out.lean.reserve(1 << 16);
  // A TensorProto: every field but raw_data (the last one counts, as when protobuf parses it).
  const auto tensor = [&](const Field& t, std::string& lean, std::optional<Payload>& raw) {
    return rewrite(t.body, t.end, lean, [&](const Field& f, bool&) {
      if (f.number != kTensorRawData || f.wire != kLengthDelimited) return false;
      raw = Payload{f.body - base, f.end - f.body};
      return true;
    });
  };
  const auto graph = [&](const Field& g, std::string& lean) {
    return rewrite(g.body, g.end, lean, [&](const Field& f, bool& ok) {
      if (f.number != kGraphInitializer || f.wire != kLengthDelimited) return false;
      std::string t;
      std::optional<Payload> raw;
      ok = tensor(f, t, raw);
      put_message(lean, kGraphInitializer, t);
      out.initializers.push_back(raw);
      return true;
    });
  };
  // Repeated graph fields merge into one message, their initializers in order: so do these.
  const bool whole = rewrite(base, base + model.size(), out.lean, [&](const Field& f, bool& ok) {
    if (f.number != kModelGraph || f.wire != kLengthDelimited) return false;
    std::string g;
    ok = graph(f, g);
    put_message(out.lean, kModelGraph, g);
    return true;
  });
  if (!whole) return std::nullopt;
  return out;
}

void PayloadReader::read(const Payload& p, std::byte* dst, const std::string& where) const {
  if (p.size == 0) return;
  if (fd_ < 0) {
    std::memcpy(dst, bytes_.data() + p.offset, static_cast<size_t>(p.size));
    return;
  }
  int64_t done = 0;
  while (done < p.size) {
    const ssize_t n = ::pread(fd_, dst + done, static_cast<size_t>(p.size - done),
                              static_cast<off_t>(p.offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      fail(ErrorCode::kInvalidArgument,
           where + ": reading its raw_data from the model file failed" +
               (n < 0 ? std::string(": ") + std::strerror(errno) : " (the file got shorter)"));
    done += n;
  }
}

}  // namespace geon::importer
