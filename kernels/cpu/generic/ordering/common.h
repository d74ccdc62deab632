// What the ordering kernels (ArgMax/ArgMin, TopK, CumSum/CumProd) share: the one small dtype
// switch that picks the C++ type they compare or accumulate in, and the [outer, n, inner] split
// of a dense tensor around the axis they run along.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/base/error.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu::ordering {

// The dtype a T array is staged in (stage_input / stage_output).
template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return DType::kFloat;
  if constexpr (std::is_same_v<T, double>) return DType::kDouble;
  if constexpr (std::is_same_v<T, int8_t>) return DType::kInt8;
  if constexpr (std::is_same_v<T, int16_t>) return DType::kInt16;
  if constexpr (std::is_same_v<T, int32_t>) return DType::kInt32;
  if constexpr (std::is_same_v<T, int64_t>) return DType::kInt64;
  if constexpr (std::is_same_v<T, uint8_t>) return DType::kUInt8;
  if constexpr (std::is_same_v<T, uint16_t>) return DType::kUInt16;
  if constexpr (std::is_same_v<T, uint32_t>) return DType::kUInt32;
  return DType::kUInt64;
}

// Whether `t` has a compute type here: every real number type of 8 bits or more. float16 and
// bfloat16 compute in float (exactly: both convert to float and back without loss).
inline bool has_compute_type(DType t) {
  switch (t) {
    case DType::kFloat:
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kDouble:
    case DType::kInt8:
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64:
    case DType::kUInt8:
    case DType::kUInt16:
    case DType::kUInt32:
    case DType::kUInt64:
      return true;
    default:
      return false;
  }
}

// A reason unless `t` has a compute type; `what` names the operand.
inline Reason compute_type_reason(DType t, std::string_view what) {
  if (has_compute_type(t)) return std::nullopt;
  return std::string(what) + " has dtype " + std::string(dtype_name(t)) +
         "; only the real number types of 8 bits or more are implemented";
}

// Calls f(T{}) with the compute type of `t`; throws kNotSupported for the others.
template <class F>
void with_compute_type(DType t, F&& f) {
  switch (t) {
    case DType::kFloat:
    case DType::kFloat16:
    case DType::kBFloat16:
      return f(float{});
    case DType::kDouble:
      return f(double{});
    case DType::kInt8:
      return f(int8_t{});
    case DType::kInt16:
      return f(int16_t{});
    case DType::kInt32:
      return f(int32_t{});
    case DType::kInt64:
      return f(int64_t{});
    case DType::kUInt8:
      return f(uint8_t{});
    case DType::kUInt16:
      return f(uint16_t{});
    case DType::kUInt32:
      return f(uint32_t{});
    case DType::kUInt64:
      return f(uint64_t{});
    default:
      fail(ErrorCode::kNotSupported, "dtype " + std::string(dtype_name(t)) + " is not implemented");
  }
}

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(v);
  else
    return false;
}

// A dense row-major tensor seen as [outer, n, inner] around `axis`.
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};
inline AxisSplit split_at(const Dims& shape, int axis) {
  AxisSplit s;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    if (d < axis)
      s.outer *= shape[d];
    else if (d == axis)
      s.n = shape[d];
    else
      s.inner *= shape[d];
  }
  return s;
}

// `axis` in [-rank, rank) made non-negative; a kInvalidArgument naming `what` otherwise.
inline int checked_axis(int64_t axis, int rank, std::string_view what) {
  require(axis >= -rank && axis < rank, [&] {
    return std::string(what) + " " + std::to_string(axis) +
           " is out of range for an input of rank " + std::to_string(rank);
  });
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

// Work items of the column loops: blocks of up to kColumns columns of one outer index, so a
// per-column state (running sums, best values) stays small and in cache.
inline constexpr int64_t kColumns = 256;

}  // namespace geon::cpu::ordering
