// Views of a part of a tensor along one dim: ONNX Slice (clamped, any step), plain narrowing,
// selecting one index (the dim disappears), and the vector and matrix shorthands over narrow.
// Each moves the offset to the first element kept and, for steps, scales that dim's stride.
#include <algorithm>
#include <limits>
#include <string>

#include "core/desc/check.h"
#include "core/desc/views.h"

namespace geon {
namespace {

// Shared by narrow, sub_vector and sub_matrix, so that errors name the function called.
TensorDesc narrow_in(const char* fn, const TensorDesc& d, int axis, int64_t start, int64_t length,
                     const char* start_arg = "start", const char* length_arg = "length") {
  desc_detail::check_desc(d, fn);
  const int ax = desc_detail::axis_in(axis, d.rank(), fn, "axis");
  const int64_t len = d.shape[ax];
  if (length < 0)
    desc_detail::invalid(fn,
                         std::string(length_arg) + " " + std::to_string(length) + " is negative");
  if (start < 0 || start > len || length > len - start)
    desc_detail::out_of_range(fn, std::string(start_arg) + " " + std::to_string(start) + " with " +
                                      length_arg + " " + std::to_string(length) + " leaves [0, " +
                                      std::to_string(len) + ") along axis " + std::to_string(ax) +
                                      " of shape " + desc_detail::dims_str(d.shape));
  TensorDesc out = d;
  out.shape[ax] = length;
  if (length > 0)
    out.offset = desc_detail::add_or_fail(
        d.offset, desc_detail::mul_or_fail(start, d.strides[ax], fn, "start * stride"), fn,
        "offset");
  return out;
}

}  // namespace

TensorDesc slice(const TensorDesc& d, int axis, int64_t start, int64_t stop, int64_t step) {
  desc_detail::check_desc(d, "slice");
  const int ax = desc_detail::axis_in(axis, d.rank(), "slice", "axis");
  if (step == 0)
    desc_detail::invalid("slice", "step 0 is not allowed (axis " + std::to_string(ax) + ")");
  const int64_t len = d.shape[ax];
  // Negative positions count from the end; adding len to a negative value cannot overflow.
  if (start < 0) start += len;
  if (stop < 0) stop += len;
  int64_t count = 0;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, len);
    stop = std::clamp<int64_t>(stop, 0, len);
    if (stop > start) count = 1 + (stop - start - 1) / step;
  } else if (len > 0) {
    // Walking down, the last reachable stop is -1 (just before element 0).
    start = std::clamp<int64_t>(start, 0, len - 1);
    stop = std::clamp<int64_t>(stop, -1, len - 1);
    // Dividing by the negative step directly: -step would overflow for INT64_MIN.
    if (start > stop) count = 1 - (start - stop - 1) / step;
  }
  TensorDesc out = d;
  out.shape[ax] = count;
  if (count > 0)
    out.offset = desc_detail::add_or_fail(
        d.offset, desc_detail::mul_or_fail(start, d.strides[ax], "slice", "start * stride"),
        "slice", "offset");
  // With one element left the step is never taken; keeping the old stride avoids a product that
  // may not fit in int64 (step up to INT64_MAX).
  if (count > 1)
    out.strides[ax] = desc_detail::mul_or_fail(d.strides[ax], step, "slice", "stride * step");
  return out;
}

TensorDesc narrow(const TensorDesc& d, int axis, int64_t start, int64_t length) {
  return narrow_in("narrow", d, axis, start, length);
}

TensorDesc select(const TensorDesc& d, int axis, int64_t index) {
  desc_detail::check_desc(d, "select");
  const int ax = desc_detail::axis_in(axis, d.rank(), "select", "axis");
  const int64_t len = d.shape[ax];
  if (index < -len || index >= len)
    desc_detail::out_of_range("select", "index " + std::to_string(index) + " is out of range [" +
                                            std::to_string(-len) + ", " + std::to_string(len - 1) +
                                            "] along axis " + std::to_string(ax) + " of shape " +
                                            desc_detail::dims_str(d.shape));
  if (index < 0) index += len;
  TensorDesc out = d;
  out.offset = desc_detail::add_or_fail(
      d.offset, desc_detail::mul_or_fail(index, d.strides[ax], "select", "index * stride"),
      "select", "offset");
  out.shape.erase(out.shape.begin() + ax);
  out.strides.erase(out.strides.begin() + ax);
  return out;
}

TensorDesc sub_vector(const TensorDesc& d, int64_t start, int64_t length) {
  if (d.rank() != 1)
    desc_detail::invalid("sub_vector", "desc of shape " + desc_detail::dims_str(d.shape) +
                                           " is not a vector (rank " + std::to_string(d.rank()) +
                                           ")");
  return narrow_in("sub_vector", d, 0, start, length);
}

TensorDesc sub_matrix(const TensorDesc& d, int64_t row, int64_t col, int64_t rows, int64_t cols) {
  if (d.rank() != 2)
    desc_detail::invalid("sub_matrix", "desc of shape " + desc_detail::dims_str(d.shape) +
                                           " is not a matrix (rank " + std::to_string(d.rank()) +
                                           ")");
  const TensorDesc picked_rows = narrow_in("sub_matrix", d, 0, row, rows, "row", "rows");
  return narrow_in("sub_matrix", picked_rows, 1, col, cols, "col", "cols");
}

}  // namespace geon
