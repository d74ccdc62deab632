#include "tools/common/tensor_proto.h"

#include <cstring>
#include <optional>
#include <vector>

#include "tools/common/file_bytes.h"
#include "tools/common/wire_reader.h"

namespace geon::tools {
namespace {

// A repeated scalar field: packed (one length-delimited run) or one value per tag.
template <typename T, typename ReadOne>
void read_repeated(WireReader& r, uint32_t wire_type, uint32_t single_type, std::vector<T>& out,
                   const std::string& what, ReadOne read_one) {
  if (wire_type == kLengthDelimited) {
    WireReader packed(r.length_delimited(), what);
    while (!packed.done()) out.push_back(read_one(packed));
  } else if (wire_type == single_type) {
    out.push_back(read_one(r));
  } else {
    r.fail("unexpected wire type " + std::to_string(wire_type) + " for a repeated field");
  }
}

struct Fields {
  std::vector<int64_t> dims;
  std::optional<int32_t> data_type;
  std::vector<float> float_data;
  std::vector<int32_t> int32_data;
  std::vector<int64_t> int64_data;
  std::vector<double> double_data;
  std::vector<uint64_t> uint64_data;
  std::optional<std::span<const std::byte>> raw_data;
  size_t string_count = 0;
  std::vector<std::string> strings;  // string_data
  bool has_segment = false;
  bool external = false;
  std::string name;
};

Fields read_fields(std::span<const std::byte> bytes, const std::string& what) {
  WireReader r(bytes, what);
  Fields f;
  auto varint_i64 = [](WireReader& w) { return static_cast<int64_t>(w.varint()); };
  auto varint_i32 = [](WireReader& w) { return static_cast<int32_t>(w.varint()); };
  auto varint_u64 = [](WireReader& w) { return w.varint(); };
  while (!r.done()) {
    const uint64_t tag = r.varint();
    const auto field = static_cast<uint32_t>(tag >> 3);
    const auto wire = static_cast<uint32_t>(tag & 7);
    switch (field) {
      case 1:
        read_repeated(r, wire, kVarint, f.dims, what, varint_i64);
        break;
      case 2:
        if (wire != kVarint) r.fail("data_type is not a varint");
        f.data_type = static_cast<int32_t>(r.varint());
        break;
      case 3:
        f.has_segment = true;
        r.skip(wire);
        break;
      case 4:
        read_repeated(r, wire, kFixed32, f.float_data, what,
                      [](WireReader& w) { return w.fixed<float>(); });
        break;
      case 5:
        read_repeated(r, wire, kVarint, f.int32_data, what, varint_i32);
        break;
      case 6: {
        if (wire != kLengthDelimited) r.fail("string_data is not length-delimited");
        const auto s = r.length_delimited();
        f.strings.emplace_back(reinterpret_cast<const char*>(s.data()), s.size());
        ++f.string_count;
        break;
      }
      case 7:
        read_repeated(r, wire, kVarint, f.int64_data, what, varint_i64);
        break;
      case 8: {
        if (wire != kLengthDelimited) r.fail("name is not length-delimited");
        const auto s = r.length_delimited();
        f.name.assign(reinterpret_cast<const char*>(s.data()), s.size());
        break;
      }
      case 9:
        if (wire != kLengthDelimited) r.fail("raw_data is not length-delimited");
        f.raw_data = r.length_delimited();
        break;
      case 10:
        read_repeated(r, wire, kFixed64, f.double_data, what,
                      [](WireReader& w) { return w.fixed<double>(); });
        break;
      case 11:
        read_repeated(r, wire, kVarint, f.uint64_data, what, varint_u64);
        break;
      case 14:
        if (wire != kVarint) r.fail("data_location is not a varint");
        f.external = r.varint() == 1;
        break;
      default:
        r.skip(wire);
        break;  // doc_string, external_data entries, metadata, unknown
    }
  }
  return f;
}

template <typename T>
void put(std::vector<std::byte>& out, size_t i, T v) {
  std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
}

// Fills `out` (already sized) from the typed field that holds `dtype`'s values.
void from_typed_fields(const Fields& f, int32_t dtype, int64_t count, std::vector<std::byte>& out,
                       const std::string& what) {
  auto expect = [&](size_t have, size_t want, const char* field) {
    if (have != want) {
      throw ToolError(what + ": " + field + " has " + std::to_string(have) + " values, shape " +
                      shape_string(f.dims) + " of " + dtype_name(dtype) + " needs " +
                      std::to_string(want));
    }
  };
  const auto n = static_cast<size_t>(count);
  switch (dtype) {
    case kFloat:
    case kComplex64: {
      const size_t want = dtype == kComplex64 ? 2 * n : n;
      expect(f.float_data.size(), want, "float_data");
      for (size_t i = 0; i < want; ++i) put(out, i, f.float_data[i]);
      return;
    }
    case kDouble:
    case kComplex128: {
      const size_t want = dtype == kComplex128 ? 2 * n : n;
      expect(f.double_data.size(), want, "double_data");
      for (size_t i = 0; i < want; ++i) put(out, i, f.double_data[i]);
      return;
    }
    case kInt64:
      expect(f.int64_data.size(), n, "int64_data");
      for (size_t i = 0; i < n; ++i) put(out, i, f.int64_data[i]);
      return;
    case kUint64:
      expect(f.uint64_data.size(), n, "uint64_data");
      for (size_t i = 0; i < n; ++i) put(out, i, f.uint64_data[i]);
      return;
    case kUint32:
      expect(f.uint64_data.size(), n, "uint64_data");
      for (size_t i = 0; i < n; ++i) put(out, i, static_cast<uint32_t>(f.uint64_data[i]));
      return;
    case kInt32:
      expect(f.int32_data.size(), n, "int32_data");
      for (size_t i = 0; i < n; ++i) put(out, i, f.int32_data[i]);
      return;
    case kInt16:
    case kUint16:
    case kFloat16:
    case kBfloat16:  // 16-bit values (or bit patterns) in the low half of each int32
      expect(f.int32_data.size(), n, "int32_data");
      for (size_t i = 0; i < n; ++i) put(out, i, static_cast<uint16_t>(f.int32_data[i]));
      return;
    case kInt8:
    case kUint8:
    case kBool:
    case kFloat8E4M3FN:
    case kFloat8E4M3FNUZ:
    case kFloat8E5M2:
    case kFloat8E5M2FNUZ:
    case kFloat8E8M0:
      expect(f.int32_data.size(), n, "int32_data");
      for (size_t i = 0; i < n; ++i) put(out, i, static_cast<uint8_t>(f.int32_data[i]));
      return;
    case kUint4:
    case kInt4:
    case kFloat4E2M1:  // two elements per int32 entry, already packed as a byte
      expect(f.int32_data.size(), (n + 1) / 2, "int32_data");
      for (size_t i = 0; i < (n + 1) / 2; ++i) put(out, i, static_cast<uint8_t>(f.int32_data[i]));
      return;
    case kUint2:
    case kInt2:  // four elements per int32 entry, packed as a byte
      expect(f.int32_data.size(), (n + 3) / 4, "int32_data");
      for (size_t i = 0; i < (n + 3) / 4; ++i) put(out, i, static_cast<uint8_t>(f.int32_data[i]));
      return;
    default:
      throw UnsupportedData(what + ": dtype " + dtype_name(dtype) + " is not supported");
  }
}

}  // namespace

HostTensor parse_tensor_proto(std::span<const std::byte> bytes, const std::string& what) {
  Fields f = read_fields(bytes, what);
  if (!f.data_type || *f.data_type == 0) throw ToolError(what + ": TensorProto has no data_type");
  HostTensor t;
  t.name = f.name;
  t.dtype = *f.data_type;
  t.shape = f.dims;
  const std::string label = f.name.empty() ? what : what + " (" + f.name + ")";
  if (f.external) throw UnsupportedData(label + ": tensors with external data are not supported");
  if (t.dtype == kString || f.string_count > 0) {
    if (t.dtype != kString || f.has_segment)
      throw UnsupportedData(label + ": string_data in a tensor of dtype " + dtype_name(t.dtype));
    const int64_t count = element_count(t.shape, label);
    if (count != static_cast<int64_t>(f.strings.size()))
      throw ToolError(label + ": shape " + shape_string(t.shape) + " needs " +
                      std::to_string(count) + " strings but string_data holds " +
                      std::to_string(f.strings.size()));
    set_strings(t, std::move(f.strings));
    return t;
  }
  // Field 3 is a TensorProto's segment, but also the tensor(s) of a SequenceProto or an
  // OptionalProto, whose other fields look like a tensor's: the likelier reading is named.
  if (f.has_segment) {
    throw UnsupportedData(label +
                          ": not a plain tensor (a SequenceProto or OptionalProto, or a segmented "
                          "TensorProto); only tensors are supported");
  }
  if (dtype_bits(t.dtype) == 0)
    throw UnsupportedData(label + ": dtype " + dtype_name(t.dtype) + " is not supported");
  // The count is bounded by the bytes present before anything is allocated from it.
  const int64_t count = element_count(t.shape, label);
  const size_t need = byte_size(t.dtype, count, label);
  if (f.raw_data) {
    if (f.raw_data->size() != need) {
      throw ToolError(label + ": raw_data has " + std::to_string(f.raw_data->size()) +
                      " bytes, shape " + shape_string(t.shape) + " of " + dtype_name(t.dtype) +
                      " needs " + std::to_string(need));
    }
    t.data.assign(f.raw_data->begin(), f.raw_data->end());
    return t;
  }
  if (need > bytes.size() * 8 + 8) {
    // Typed fields hold at least one byte per value (a packed 4-bit pair per int32), so a
    // tensor this large cannot be in this file.
    throw ToolError(label + ": shape " + shape_string(t.shape) +
                    " needs more values than the file holds");
  }
  t.data.resize(need);
  from_typed_fields(f, t.dtype, count, t.data, label);
  return t;
}

HostTensor read_tensor_proto(const std::string& path) {
  return parse_tensor_proto(read_file_bytes(path), path);
}

}  // namespace geon::tools
