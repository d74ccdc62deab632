// Shared by the desc/ sources only: argument checks whose messages name the calling function,
// the argument and its value, and int64 arithmetic that reports overflow instead of wrapping.
// Not part of the public contract (desc.h, views.h).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>

#include "core/base/error.h"
#include "core/desc/desc.h"

namespace geon::desc_detail {

// "[5,3,2]"
std::string dims_str(std::span<const int64_t> dims);

[[noreturn]] void invalid(const char* fn, const std::string& what);
[[noreturn]] void out_of_range(const char* fn, const std::string& what);

// count_elements' error: the first negative length, else the overflow.
[[noreturn]] void bad_count(std::span<const int64_t> shape, const char* fn, const char* arg);
// "<what> overflows int64", out of range.
[[noreturn]] void overflowed(const char* fn, const char* what);

// Product of `shape`; negative lengths are invalid, products beyond int64 out of range. A zero
// length anywhere makes it 0, however large the others are. Inline, as the arithmetic below:
// it runs for several views of every node of every run, and a call per multiply showed in the
// small models' profiles.
inline int64_t count_elements(std::span<const int64_t> shape, const char* fn, const char* arg) {
  // One pass with the multiply's overflow flag; a zero length makes the count 0 even when a
  // partial product overflowed.
  bool negative = false, zero = false, overflow = false;
  int64_t n = 1;
  for (int64_t len : shape) {
    negative = negative || len < 0;
    zero = zero || len == 0;
    overflow = overflow || __builtin_mul_overflow(n, len, &n);
  }
  if (negative || (overflow && !zero)) bad_count(shape, fn, arg);
  return zero ? 0 : n;
}
// The description itself is well formed: one stride per dim, no negative length, element
// count within int64.
void check_desc(const TensorDesc& d, const char* fn);
// `axis` in [-rank, rank-1], returned in [0, rank-1]; `arg` names the argument in the message.
int axis_in(int64_t axis, int rank, const char* fn, const char* arg);

// nullopt on int64 overflow.
inline std::optional<int64_t> add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> mul(int64_t a, int64_t b) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if (a == 0 || b == 0) return 0;
  // INT64_MIN has no positive counterpart: refused as an operand, so no result is it either.
  if (a == kMin || b == kMin) return std::nullopt;
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r) || r == kMin) return std::nullopt;
  return r;
}
// The same, throwing an out-of-range Error that names fn and what overflowed.
inline int64_t add_or_fail(int64_t a, int64_t b, const char* fn, const char* what) {
  const std::optional<int64_t> r = add(a, b);
  if (!r) overflowed(fn, what);
  return *r;
}
inline int64_t mul_or_fail(int64_t a, int64_t b, const char* fn, const char* what) {
  const std::optional<int64_t> r = mul(a, b);
  if (!r) overflowed(fn, what);
  return *r;
}

// Rounding divisions for any signs (b != 0).
int64_t floor_div(int64_t a, int64_t b);
int64_t ceil_div(int64_t a, int64_t b);

// A stride for a length-1 dim placed just before a dim of (length, stride), or at the end
// when there is none: what a dense layout would give it. Length-1 dims never move the index,
// so any value is correct; this one keeps the layout looking dense (and never 0, which reads
// as broadcast).
int64_t unit_dim_stride(std::optional<int64_t> next_length, int64_t next_stride);

}  // namespace geon::desc_detail
