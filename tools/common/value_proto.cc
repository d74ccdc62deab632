#include "tools/common/value_proto.h"

#include "tools/common/file_bytes.h"
#include "tools/common/tensor_file.h"
#include "tools/common/tensor_proto.h"
#include "tools/common/wire_reader.h"

namespace geon::tools {
namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// What the inner type of "optional(T)" or "seq(T)" is.
std::string inner_type(const std::string& type) {
  const size_t open = type.find('(');
  return open == std::string::npos || type.back() != ')'
             ? std::string()
             : type.substr(open + 1, type.size() - open - 2);
}

std::string text_of(std::span<const std::byte> s) {
  return std::string(reinterpret_cast<const char*>(s.data()), s.size());
}

// SequenceProto: name = 1, elem_type = 2, tensor_values = 3 (repeated TensorProto); the
// sparse, sequence, map and optional element fields (4-7) are not supported.
HostValue parse_sequence(std::span<const std::byte> bytes, const std::string& what) {
  HostValue v;
  v.kind = GEON_VALUE_SEQUENCE;
  WireReader r(bytes, what);
  while (!r.done()) {
    const uint64_t key = r.varint();
    const auto field = static_cast<uint32_t>(key >> 3), wire = static_cast<uint32_t>(key & 7);
    if (field == 1 && wire == kLengthDelimited) {
      v.name = text_of(r.length_delimited());
    } else if (field == 3 && wire == kLengthDelimited) {
      v.tensors.push_back(parse_tensor_proto(
          r.length_delimited(), what + " element " + std::to_string(v.tensors.size())));
    } else if (field >= 4 && field <= 7) {
      throw UnsupportedData(what + ": sequences of non-tensors are not supported");
    } else {
      r.skip(wire);
    }
  }
  return v;
}

// OptionalProto: name = 1, elem_type = 2, tensor_value = 3, sequence_value = 5; no value
// field means the optional is empty.
HostValue parse_optional(std::span<const std::byte> bytes, const std::string& what) {
  HostValue v;
  v.kind = GEON_VALUE_NONE;
  WireReader r(bytes, what);
  while (!r.done()) {
    const uint64_t key = r.varint();
    const auto field = static_cast<uint32_t>(key >> 3), wire = static_cast<uint32_t>(key & 7);
    if (field == 1 && wire == kLengthDelimited) {
      v.name = text_of(r.length_delimited());
    } else if (field == 3 && wire == kLengthDelimited) {
      v.kind = GEON_VALUE_TENSOR;
      v.tensors = {parse_tensor_proto(r.length_delimited(), what)};
    } else if (field == 5 && wire == kLengthDelimited) {
      const std::string name = v.name;
      v = parse_sequence(r.length_delimited(), what);
      v.name = name;
    } else if (field == 4 || field == 6 || field == 7) {
      throw UnsupportedData(what + ": optionals of this kind are not supported");
    } else {
      r.skip(wire);
    }
  }
  return v;
}

}  // namespace

bool is_value_type(const std::string& type) {
  return starts_with(type, "seq(") || starts_with(type, "optional(");
}

HostValue read_value_file(const std::string& path, const std::string& type) {
  if (!is_value_type(type)) {
    HostTensor t = read_tensor_file(path);
    HostValue v;
    v.name = t.name;
    v.tensors.push_back(std::move(t));
    return v;
  }
  if (!starts_with(inner_type(type), "tensor(") && !starts_with(inner_type(type), "seq(tensor("))
    throw UnsupportedData(path + ": values of type " + type + " are not supported");
  const std::vector<std::byte> bytes = read_file_bytes(path);
  return starts_with(type, "seq(") ? parse_sequence(bytes, path) : parse_optional(bytes, path);
}

geon::api::ValueFeed to_value_feed(const HostValue& v) {
  geon::api::ValueFeed f;
  f.name = v.name;
  f.kind = v.kind;
  for (const HostTensor& t : v.tensors) f.tensors.push_back(to_feed(t));
  return f;
}

HostValue value_from_result(const geon::api::Result& r, size_t i) {
  const GeonValue g = r.value_view(i);
  HostValue v;
  v.name = r.name(i);
  v.kind = static_cast<GeonValueKind>(g.kind);
  for (uint64_t k = 0; k < g.count; ++k)
    v.tensors.push_back(from_view(g.tensors[k], v.name + " element " + std::to_string(k)));
  return v;
}

}  // namespace geon::tools
