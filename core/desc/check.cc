// Argument checks and overflow-checked arithmetic for the desc/ sources (see check.h), and the
// public normalize_axis, which is the same axis check without a caller to name.
#include "core/desc/check.h"

#include <limits>

#include "core/desc/views.h"

namespace geon {
namespace desc_detail {

std::string dims_str(std::span<const int64_t> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

void invalid(const char* fn, const std::string& what) {
  fail(ErrorCode::kInvalidArgument, std::string(fn) + ": " + what);
}

void out_of_range(const char* fn, const std::string& what) {
  fail(ErrorCode::kOutOfRange, std::string(fn) + ": " + what);
}

int64_t count_elements(std::span<const int64_t> shape, const char* fn, const char* arg) {
  // One pass with the multiply's overflow flag: this runs for several views of every node of
  // every run. A zero length makes the count 0 even when a partial product overflowed.
  bool zero = false, overflow = false;
  int64_t n = 1;
  for (int64_t len : shape) {
    if (len < 0)
      invalid(fn, std::string(arg) + " " + dims_str(shape) + " has a negative length " +
                      std::to_string(len));
    zero = zero || len == 0;
    overflow = overflow || __builtin_mul_overflow(n, len, &n);
  }
  if (zero) return 0;
  if (overflow)
    out_of_range(fn,
                 std::string(arg) + " " + dims_str(shape) + " has more elements than int64 holds");
  return n;
}

void check_desc(const TensorDesc& d, const char* fn) {
  if (d.strides.size() != d.shape.size())
    invalid(fn, "desc has shape " + dims_str(d.shape) + " but strides " + dims_str(d.strides) +
                    " (one stride per dim expected)");
  count_elements(d.shape, fn, "desc shape");
}

int axis_in(int64_t axis, int rank, const char* fn, const char* arg) {
  if (axis < -rank || axis >= rank)
    out_of_range(fn, std::string(arg) + " " + std::to_string(axis) + " is out of range [" +
                         std::to_string(-rank) + ", " + std::to_string(rank - 1) + "] for rank " +
                         std::to_string(rank));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::optional<int64_t> add(int64_t a, int64_t b) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if ((b > 0 && a > kMax - b) || (b < 0 && a < kMin - b)) return std::nullopt;
  return a + b;
}

std::optional<int64_t> mul(int64_t a, int64_t b) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if (a == 0 || b == 0) return 0;
  // INT64_MIN has no positive counterpart: refused as an operand, so no result is it either.
  if (a == kMin || b == kMin) return std::nullopt;
  // The overflow flag of one multiply, not a division: this runs for every shape of every run.
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r) || r == kMin) return std::nullopt;
  return r;
}

int64_t add_or_fail(int64_t a, int64_t b, const char* fn, const char* what) {
  auto r = add(a, b);
  if (!r) out_of_range(fn, std::string(what) + " overflows int64");
  return *r;
}

int64_t mul_or_fail(int64_t a, int64_t b, const char* fn, const char* what) {
  auto r = mul(a, b);
  if (!r) out_of_range(fn, std::string(what) + " overflows int64");
  return *r;
}

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t ceil_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0))) ++q;
  return q;
}

int64_t unit_dim_stride(std::optional<int64_t> next_length, int64_t next_stride) {
  if (!next_length) return 1;
  auto s = mul(next_stride, *next_length);
  return (s && *s != 0) ? *s : 1;
}

}  // namespace desc_detail

int normalize_axis(int64_t axis, int rank) {
  return desc_detail::axis_in(axis, rank, "normalize_axis", "axis");
}

}  // namespace geon
