#include "tools/common/value_proto.h"

#include <cstring>

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

HostValue parse_map(std::span<const std::byte> bytes, const std::string& what);

// SequenceProto: name = 1, elem_type = 2, tensor_values = 3 (repeated TensorProto),
// map_values = 6 (repeated MapProto: a sequence of maps); the sparse, sequence and optional
// element fields (4, 5, 7) are not supported.
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
    } else if (field == 6 && wire == kLengthDelimited) {
      HostValue m =
          parse_map(r.length_delimited(), what + " map " + std::to_string(v.tensors.size() / 2));
      if (!v.tensors.empty() && v.kind != GEON_VALUE_MAP_SEQUENCE)
        throw UnsupportedData(what + ": a sequence of both tensors and maps");
      v.kind = GEON_VALUE_MAP_SEQUENCE;
      for (HostTensor& t : m.tensors) v.tensors.push_back(std::move(t));
    } else if (field >= 4 && field <= 7) {
      throw UnsupportedData(what +
                            ": sequences of sparse tensors, sequences or optionals are "
                            "not supported");
    } else {
      r.skip(wire);
    }
  }
  return v;
}

// MapProto: name = 1, key_type = 2, keys = 3 (int64, packed or not), string_keys = 4,
// values = 5 (a SequenceProto of one scalar tensor per key). Read as the C ABI passes a map:
// its keys, then its values, as two 1-D tensors.
HostValue parse_map(std::span<const std::byte> bytes, const std::string& what) {
  HostValue v;
  v.kind = GEON_VALUE_MAP;
  std::vector<int64_t> int_keys;
  std::vector<std::string> string_keys;
  int32_t key_type = 0;
  HostValue values;
  WireReader r(bytes, what);
  while (!r.done()) {
    const uint64_t key = r.varint();
    const auto field = static_cast<uint32_t>(key >> 3), wire = static_cast<uint32_t>(key & 7);
    if (field == 1 && wire == kLengthDelimited) {
      v.name = text_of(r.length_delimited());
    } else if (field == 2 && wire == kVarint) {
      key_type = static_cast<int32_t>(r.varint());
    } else if (field == 3 && wire == kVarint) {
      int_keys.push_back(static_cast<int64_t>(r.varint()));
    } else if (field == 3 && wire == kLengthDelimited) {
      WireReader packed(r.length_delimited(), what + " keys");
      while (!packed.done()) int_keys.push_back(static_cast<int64_t>(packed.varint()));
    } else if (field == 4 && wire == kLengthDelimited) {
      string_keys.push_back(text_of(r.length_delimited()));
    } else if (field == 5 && wire == kLengthDelimited) {
      values = parse_sequence(r.length_delimited(), what + " values");
    } else {
      r.skip(wire);
    }
  }
  HostTensor keys;
  keys.name = v.name;
  keys.dtype = key_type;
  if (key_type == kString) {
    keys.shape = {static_cast<int64_t>(string_keys.size())};
    set_strings(keys, std::move(string_keys));
  } else if (key_type == kInt64) {
    keys.shape = {static_cast<int64_t>(int_keys.size())};
    keys.data.resize(int_keys.size() * sizeof(int64_t));
    if (!int_keys.empty()) std::memcpy(keys.data.data(), int_keys.data(), keys.data.size());
  } else {
    throw UnsupportedData(what + ": map keys of type " + std::to_string(key_type) +
                          " are not supported (int64 and string are)");
  }
  if (values.kind != GEON_VALUE_SEQUENCE ||
      values.tensors.size() != static_cast<size_t>(keys.shape[0]))
    throw UnsupportedData(what + ": the values must be one scalar tensor per key");
  // The scalars side by side, as one 1-D tensor.
  HostTensor column;
  column.name = v.name;
  column.dtype = values.tensors.empty() ? kFloat : values.tensors[0].dtype;
  column.shape = {keys.shape[0]};
  std::vector<std::string> texts;
  for (HostTensor& t : values.tensors) {
    if (t.dtype != column.dtype || element_count(t.shape, what + " values") != 1)
      throw UnsupportedData(what + ": the values must be scalars of one type");
    if (t.dtype == kString) {
      texts.push_back(std::move(t.strings.at(0)));
    } else {
      column.data.insert(column.data.end(), t.data.begin(), t.data.end());
    }
  }
  if (column.dtype == kString) set_strings(column, std::move(texts));
  v.tensors.push_back(std::move(keys));
  v.tensors.push_back(std::move(column));
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
  return starts_with(type, "seq(") || starts_with(type, "optional(") || starts_with(type, "map(");
}

HostValue read_value_file(const std::string& path, const std::string& type) {
  if (!is_value_type(type)) {
    HostTensor t = read_tensor_file(path);
    HostValue v;
    v.name = t.name;
    v.tensors.push_back(std::move(t));
    return v;
  }
  const std::vector<std::byte> bytes = read_file_bytes(path);
  if (starts_with(type, "map(")) return parse_map(bytes, path);
  if (starts_with(type, "seq(map(")) {
    HostValue v = parse_sequence(bytes, path);
    if (v.tensors.empty()) v.kind = GEON_VALUE_MAP_SEQUENCE;  // an empty sequence of maps
    return v;
  }
  if (!starts_with(inner_type(type), "tensor(") && !starts_with(inner_type(type), "seq(tensor("))
    throw UnsupportedData(path + ": values of type " + type + " are not supported");
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
