#include "tools/common/compare.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace geon::tools {
namespace {

std::string number(double v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}

bool close(double got, double want, const Tolerance& tol) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (std::isinf(got) || std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tol.atol + tol.rtol * std::fabs(want);
}

// Integers compare by their bytes: exact, and with no precision lost above 2^53.
bool same_bytes(const HostTensor& a, const HostTensor& b, int64_t i, int bytes) {
  return std::memcmp(a.data.data() + i * bytes, b.data.data() + i * bytes,
                     static_cast<size_t>(bytes)) == 0;
}

std::string value_string(const HostTensor& t, int64_t i) {
  if (t.dtype == kInt64) {
    int64_t v;
    std::memcpy(&v, t.data.data() + i * 8, 8);
    return std::to_string(v);
  }
  if (t.dtype == kUint64) {
    uint64_t v;
    std::memcpy(&v, t.data.data() + i * 8, 8);
    return std::to_string(v);
  }
  if (t.dtype == kComplex64 || t.dtype == kComplex128) {
    return "(" + number(element_value(t, i)) + ", " + number(element_imag(t, i)) + ")";
  }
  if (t.dtype == kBool) return element_value(t, i) != 0 ? "true" : "false";
  return number(element_value(t, i));
}

}  // namespace

std::optional<Mismatch> compare_tensors(const HostTensor& got, const HostTensor& expected,
                                        const Tolerance& tol) {
  if (got.dtype != expected.dtype) {
    return Mismatch{"dtype", -1, dtype_name(got.dtype), dtype_name(expected.dtype), 0};
  }
  if (got.shape != expected.shape) {
    return Mismatch{"shape", -1, shape_string(got.shape), shape_string(expected.shape), 0};
  }
  const int64_t n = element_count(expected.shape, expected.name);
  if (expected.dtype == kString) {  // exact, element by element
    Mismatch first{"value", -1, "", "", 0};
    for (int64_t i = 0; i < n; ++i) {
      const std::string& g = i < static_cast<int64_t>(got.strings.size()) ? got.strings[i] : "";
      const std::string& e =
          i < static_cast<int64_t>(expected.strings.size()) ? expected.strings[i] : "";
      if (g != e && first.mismatches++ == 0) {
        first.index = i;
        first.got = "\"" + g + "\"";
        first.expected = "\"" + e + "\"";
      }
    }
    if (got.strings.size() != expected.strings.size())
      return Mismatch{"size", -1, std::to_string(got.strings.size()) + " strings",
                      std::to_string(expected.strings.size()) + " strings", 0};
    if (first.mismatches == 0) return std::nullopt;
    return first;
  }
  const size_t need = byte_size(expected.dtype, n, expected.name);
  if (got.data.size() != need || expected.data.size() != need) {
    return Mismatch{"size", -1, std::to_string(got.data.size()) + " bytes",
                    std::to_string(expected.data.size()) + " bytes", 0};
  }
  const bool floating = dtype_is_floating(expected.dtype);
  const int bits = dtype_bits(expected.dtype);
  Mismatch first{"value", -1, "", "", 0};
  for (int64_t i = 0; i < n; ++i) {
    bool ok;
    if (floating) {
      ok = close(element_value(got, i), element_value(expected, i), tol) &&
           close(element_imag(got, i), element_imag(expected, i), tol);
    } else if (bits >= 8 && expected.dtype != kBool) {
      ok = same_bytes(got, expected, i, bits / 8);
    } else {
      ok = element_value(got, i) == element_value(expected, i);
    }
    if (!ok && first.mismatches++ == 0) {
      first.index = i;
      first.got = value_string(got, i);
      first.expected = value_string(expected, i);
    }
  }
  if (first.mismatches == 0) return std::nullopt;
  return first;
}

std::string describe(const Mismatch& m, const std::string& output_name) {
  std::string s = "output '" + output_name + "': ";
  if (m.what != "value") return s + m.what + " " + m.got + ", expected " + m.expected;
  return s + "value at index " + std::to_string(m.index) + " (of " + std::to_string(m.mismatches) +
         " mismatches): got " + m.got + ", expected " + m.expected;
}

}  // namespace geon::tools
