// Accumulation for reductions into a smaller destination: values are combined in a wide
// accumulator type (double for floating results, int64/uint64 for integers and bools) in a
// dense buffer shaped like the destination, then converted into it once at the end.
#pragma once

#include <cstdint>

#include "core/dtype/dtype.h"

namespace geon {

enum class Reduce;

DType accumulator_dtype(DType result);
// Fills n accumulator elements with the reduction's identity (0, 1, -inf/min, +inf/max).
void fill_identity(Reduce r, DType acc, void* data, int64_t n);
// Combines n values of dtype `value` (contiguous) into acc. With acc_stride 0 all n values
// fold into the single element acc[0]; otherwise value i goes to acc[i * acc_stride].
void accumulate(Reduce r, DType acc_dtype, void* acc, int64_t acc_stride, DType value,
                const void* values, int64_t n);
// accumulate(r, acc_dtype, acc, 0, kFloat, a*b, n) without the products stored: a sum of float
// products into one element (sum((x - y)^2), dot products) folds them as they are made, with
// the same roundings and order. False, doing nothing, for any other reduction or dtype.
bool accumulate_products(Reduce r, DType acc_dtype, void* acc, int64_t acc_stride, DType value,
                         const void* a, const void* b, int64_t n);
// accumulate_products(r, acc_dtype, acc, acc_stride, kFloat, d, d, n) for d = a - b, with
// neither the differences nor their squares stored: sum((x - y)^2) reads x and y once and
// writes nothing. The same roundings and order as the stored path.
bool accumulate_squared_differences(Reduce r, DType acc_dtype, void* acc, int64_t acc_stride,
                                    DType value, const void* a, const void* b, int64_t n);
// acc[i] = combine(acc[i], other[i]) for two dense accumulators (per-thread partials).
void combine_partials(Reduce r, DType acc_dtype, void* acc, const void* other, int64_t n);
// acc[i] /= count, for the mean.
void divide_by_count(DType acc_dtype, void* acc, int64_t n, int64_t count);

}  // namespace geon
