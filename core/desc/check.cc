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

void bad_count(std::span<const int64_t> shape, const char* fn, const char* arg) {
  for (int64_t len : shape)
    if (len < 0)
      invalid(fn, std::string(arg) + " " + dims_str(shape) + " has a negative length " +
                      std::to_string(len));
  out_of_range(fn,
               std::string(arg) + " " + dims_str(shape) + " has more elements than int64 holds");
}

void overflowed(const char* fn, const char* what) {
  out_of_range(fn, std::string(what) + " overflows int64");
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
