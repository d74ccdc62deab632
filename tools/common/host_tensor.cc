#include "tools/common/host_tensor.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace geon::tools {
namespace {

template <typename T>
T load(const HostTensor& t, int64_t i) {
  T v;
  std::memcpy(&v, t.data.data() + static_cast<size_t>(i) * sizeof(T), sizeof(T));
  return v;
}

float half_to_float(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1u;
  const int exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ffu;
  float mag;
  if (exp == 0) {
    mag = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    mag = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else {
    mag = std::ldexp(static_cast<float>(mant | 0x400u), exp - 25);
  }
  return sign ? -mag : mag;
}

// The float8 formats: `mant_bits` mantissa bits, exponent bias, and how NaN / inf are coded.
double float8_to_double(uint8_t b, int mant_bits, int bias, bool fnuz, bool has_inf) {
  if (fnuz && b == 0x80) return std::numeric_limits<double>::quiet_NaN();
  const bool neg = (b & 0x80) != 0;
  const int exp_bits = 7 - mant_bits;
  const int exp = (b >> mant_bits) & ((1 << exp_bits) - 1);
  const int mant = b & ((1 << mant_bits) - 1);
  const int max_exp = (1 << exp_bits) - 1;
  if (!fnuz) {
    if (has_inf && exp == max_exp) {  // E5M2: IEEE-like
      if (mant == 0) return neg ? -INFINITY : INFINITY;
      return std::numeric_limits<double>::quiet_NaN();
    }
    if (!has_inf && exp == max_exp && mant == (1 << mant_bits) - 1) {  // E4M3FN: only NaN
      return std::numeric_limits<double>::quiet_NaN();
    }
  }
  double mag =
      exp == 0 ? std::ldexp(static_cast<double>(mant), 1 - bias - mant_bits)
               : std::ldexp(static_cast<double>(mant | (1 << mant_bits)), exp - bias - mant_bits);
  return neg ? -mag : mag;
}

double fp4_to_double(uint8_t nibble) {
  static constexpr double kValues[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  const double mag = kValues[nibble & 7];
  return (nibble & 8) ? -mag : mag;
}

// Sub-byte types pack elements from the low bits of each byte up.
uint8_t nibble(const HostTensor& t, int64_t i) {
  const auto byte = std::to_integer<uint8_t>(t.data[static_cast<size_t>(i / 2)]);
  return (i % 2 == 0) ? (byte & 0x0f) : (byte >> 4);
}

uint8_t crumb(const HostTensor& t, int64_t i) {
  const auto byte = std::to_integer<uint8_t>(t.data[static_cast<size_t>(i / 4)]);
  return static_cast<uint8_t>((byte >> (2 * (i % 4))) & 3);
}

}  // namespace

bool dtype_is_floating(int32_t dtype) {
  switch (dtype) {
    case kFloat:
    case kFloat16:
    case kDouble:
    case kBfloat16:
    case kComplex64:
    case kComplex128:
    case kFloat8E4M3FN:
    case kFloat8E4M3FNUZ:
    case kFloat8E5M2:
    case kFloat8E5M2FNUZ:
    case kFloat4E2M1:
    case kFloat8E8M0:
      return true;
    default:
      return false;
  }
}

int64_t element_count(const std::vector<int64_t>& shape, const std::string& what, int64_t limit) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw ToolError(what + ": negative dimension " + std::to_string(d));
    if (d != 0 && n > limit / d) {
      throw ToolError(what + ": shape " + shape_string(shape) + " has more than " +
                      std::to_string(limit) + " elements");
    }
    n *= d;
  }
  return n;
}

size_t byte_size(int32_t dtype, int64_t count, const std::string& what) {
  const int bits = dtype_bits(dtype);
  if (bits == 0) throw ToolError(what + ": dtype " + dtype_name(dtype) + " is not supported");
  return static_cast<size_t>((count * bits + 7) / 8);
}

double element_value(const HostTensor& t, int64_t i) {
  switch (t.dtype) {
    case kFloat:
      return load<float>(t, i);
    case kDouble:
      return load<double>(t, i);
    case kFloat16:
      return half_to_float(load<uint16_t>(t, i));
    case kBfloat16:
      return std::bit_cast<float>(uint32_t{load<uint16_t>(t, i)} << 16);
    case kComplex64:
      return load<float>(t, 2 * i);
    case kComplex128:
      return load<double>(t, 2 * i);
    case kBool:
      return load<uint8_t>(t, i) != 0 ? 1.0 : 0.0;
    case kUint8:
      return load<uint8_t>(t, i);
    case kInt8:
      return load<int8_t>(t, i);
    case kUint16:
      return load<uint16_t>(t, i);
    case kInt16:
      return load<int16_t>(t, i);
    case kInt32:
      return load<int32_t>(t, i);
    case kUint32:
      return load<uint32_t>(t, i);
    case kInt64:
      return static_cast<double>(load<int64_t>(t, i));
    case kUint64:
      return static_cast<double>(load<uint64_t>(t, i));
    case kFloat8E4M3FN:
      return float8_to_double(load<uint8_t>(t, i), 3, 7, false, false);
    case kFloat8E4M3FNUZ:
      return float8_to_double(load<uint8_t>(t, i), 3, 8, true, false);
    case kFloat8E5M2:
      return float8_to_double(load<uint8_t>(t, i), 2, 15, false, true);
    case kFloat8E5M2FNUZ:
      return float8_to_double(load<uint8_t>(t, i), 2, 16, true, false);
    case kUint4:
      return nibble(t, i);
    case kInt4: {
      const int v = nibble(t, i);
      return v >= 8 ? v - 16 : v;
    }
    case kFloat4E2M1:
      return fp4_to_double(nibble(t, i));
    case kFloat8E8M0: {
      const uint8_t b = load<uint8_t>(t, i);
      return b == 0xff ? std::numeric_limits<double>::quiet_NaN() : std::ldexp(1.0, b - 127);
    }
    case kUint2:
      return crumb(t, i);
    case kInt2: {
      const int v = crumb(t, i);
      return v >= 2 ? v - 4 : v;
    }
    default:
      throw ToolError(t.name + ": dtype " + dtype_name(t.dtype) + " has no numeric value");
  }
}

double element_imag(const HostTensor& t, int64_t i) {
  if (t.dtype == kComplex64) return load<float>(t, 2 * i + 1);
  if (t.dtype == kComplex128) return load<double>(t, 2 * i + 1);
  return 0.0;
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

void set_strings(HostTensor& t, std::vector<std::string> strings) {
  t.dtype = kString;
  t.strings = std::move(strings);
  t.data.resize(t.strings.size() * sizeof(GeonString));
  auto* h = reinterpret_cast<GeonString*>(t.data.data());
  for (size_t i = 0; i < t.strings.size(); ++i) h[i] = {t.strings[i].data(), t.strings[i].size()};
}

}  // namespace geon::tools
