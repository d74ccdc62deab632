#include "tools/common/npy.h"

#include <cstring>
#include <string_view>

#include "tools/common/file_bytes.h"

namespace geon::tools {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

struct DescrEntry {
  std::string_view code;  // without the byte-order character
  int32_t dtype;
};

constexpr DescrEntry kDescrs[] = {
    {"f4", kFloat},  {"f8", kDouble}, {"f2", kFloat16},   {"i1", kInt8},       {"u1", kUint8},
    {"i2", kInt16},  {"u2", kUint16}, {"i4", kInt32},     {"u4", kUint32},     {"i8", kInt64},
    {"u8", kUint64}, {"b1", kBool},   {"c8", kComplex64}, {"c16", kComplex128}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

// The text after `'key':` in the header dict, up to the end of the header.
std::string_view value_of(std::string_view header, std::string_view key, const std::string& what) {
  const std::string quoted = "'" + std::string(key) + "'";
  const size_t at = header.find(quoted);
  if (at == std::string_view::npos)
    throw ToolError(what + ": npy header has no '" + std::string(key) + "'");
  std::string_view rest = header.substr(at + quoted.size());
  rest = trim(rest);
  if (rest.empty() || rest.front() != ':')
    throw ToolError(what + ": npy header: ':' expected after '" + std::string(key) + "'");
  return trim(rest.substr(1));
}

int32_t parse_descr(std::string_view v, const std::string& what) {
  if (v.size() < 2 || v.front() != '\'')
    throw ToolError(what + ": npy 'descr' is not a simple type string");
  const size_t end = v.find('\'', 1);
  if (end == std::string_view::npos) throw ToolError(what + ": npy 'descr' is unterminated");
  std::string_view d = v.substr(1, end - 1);
  if (d.empty()) throw ToolError(what + ": npy 'descr' is empty");
  const char order = d.front();
  if (order == '>')
    throw ToolError(what + ": big-endian npy data ('" + std::string(d) + "') is not supported");
  if (order == '<' || order == '|' || order == '=') d.remove_prefix(1);
  for (const auto& e : kDescrs) {
    if (d == e.code) return e.dtype;
  }
  throw ToolError(what + ": npy dtype '" + std::string(d) + "' is not supported");
}

std::vector<int64_t> parse_shape(std::string_view v, const std::string& what) {
  if (v.empty() || v.front() != '(') throw ToolError(what + ": npy 'shape' is not a tuple");
  const size_t end = v.find(')');
  if (end == std::string_view::npos) throw ToolError(what + ": npy 'shape' is unterminated");
  std::vector<int64_t> shape;
  std::string_view body = v.substr(1, end - 1);
  while (true) {
    body = trim(body);
    if (body.empty()) break;
    int64_t d = 0;
    size_t k = 0;
    while (k < body.size() && body[k] >= '0' && body[k] <= '9') {
      if (d > (int64_t{1} << 50)) throw ToolError(what + ": npy dimension too large");
      d = d * 10 + (body[k] - '0');
      ++k;
    }
    if (k == 0) throw ToolError(what + ": npy 'shape' has a malformed entry");
    if (k < body.size() && body[k] == 'L') ++k;  // Python 2 longs
    shape.push_back(d);
    body = trim(body.substr(k));
    if (body.empty()) break;
    if (body.front() != ',') throw ToolError(what + ": npy 'shape' has a malformed entry");
    body.remove_prefix(1);
  }
  return shape;
}

void put_u16(std::string& s, uint16_t v) {
  s.push_back(static_cast<char>(v & 0xff));
  s.push_back(static_cast<char>(v >> 8));
}

std::string descr_of(int32_t dtype, const std::string& what) {
  for (const auto& e : kDescrs) {
    if (e.dtype == dtype)
      return (dtype == kBool || dtype == kInt8 || dtype == kUint8 ? "|" : "<") +
             std::string(e.code);
  }
  throw ToolError(what + ": dtype " + dtype_name(dtype) + " cannot be written as .npy");
}

}  // namespace

HostTensor parse_npy(std::span<const std::byte> bytes, const std::string& what) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < 10 || std::memcmp(p, kMagic.data(), kMagic.size()) != 0) {
    throw ToolError(what + ": not a .npy file (no \\x93NUMPY magic)");
  }
  const int major = p[6];
  size_t header_len = 0;
  size_t header_at = 0;
  if (major == 1) {
    header_len = p[8] | (size_t{p[9]} << 8);
    header_at = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw ToolError(what + ": truncated .npy header");
    header_len = p[8] | (size_t{p[9]} << 8) | (size_t{p[10]} << 16) | (size_t{p[11]} << 24);
    header_at = 12;
  } else {
    throw ToolError(what + ": .npy version " + std::to_string(major) + " is not supported");
  }
  if (header_len > bytes.size() - header_at) throw ToolError(what + ": truncated .npy header");
  const std::string_view header(reinterpret_cast<const char*>(p + header_at), header_len);

  HostTensor t;
  t.dtype = parse_descr(value_of(header, "descr", what), what);
  const std::string_view fortran = value_of(header, "fortran_order", what);
  t.shape = parse_shape(value_of(header, "shape", what), what);
  const int64_t count = element_count(t.shape, what);
  if (fortran.substr(0, 4) == "True" && t.shape.size() > 1 && count > 1) {
    throw ToolError(what +
                    ": Fortran-order .npy arrays are not supported (save a C-order copy: "
                    "np.ascontiguousarray)");
  } else if (fortran.substr(0, 4) != "True" && fortran.substr(0, 5) != "False") {
    throw ToolError(what + ": npy 'fortran_order' is neither True nor False");
  }
  const size_t need = byte_size(t.dtype, count, what);
  const size_t data_at = header_at + header_len;
  const size_t have = bytes.size() - data_at;
  if (have < need) {
    throw ToolError(what + ": truncated .npy data: shape " + shape_string(t.shape) + " of " +
                    dtype_name(t.dtype) + " needs " + std::to_string(need) +
                    " bytes, the file has " + std::to_string(have));
  }
  if (have > need) {
    throw ToolError(what + ": .npy data has " + std::to_string(have - need) +
                    " bytes more than shape " + shape_string(t.shape) + " needs");
  }
  t.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_at), bytes.end());
  return t;
}

HostTensor read_npy(const std::string& path) { return parse_npy(read_file_bytes(path), path); }

std::string format_npy(const HostTensor& t) {
  // Join with ", " as NumPy does; a one-element tuple keeps its trailing comma.
  std::string joined = "(";
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (i) joined += ", ";
    joined += std::to_string(t.shape[i]);
  }
  if (t.shape.size() == 1) joined += ",";
  joined += ")";
  std::string header = "{'descr': '" + descr_of(t.dtype, t.name) +
                       "', 'fortran_order': False, 'shape': " + joined + ", }";
  // The header, with its magic and length, is padded with spaces to a multiple of 64 bytes
  // and ends in a newline.
  const size_t unpadded = kMagic.size() + 4 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string out(kMagic);
  out.push_back('\x01');
  out.push_back('\x00');
  put_u16(out, static_cast<uint16_t>(header.size()));
  out += header;
  if (!t.data.empty()) out.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
  return out;
}

void write_npy(const std::string& path, const HostTensor& t) {
  write_file_text(path, format_npy(t));
}

}  // namespace geon::tools
