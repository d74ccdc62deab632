// How large a kernel's float inputs are, and whether its sums can leave float's range: a NaN
// or infinity in an input, or an overflow of finite ones into +inf - inf inside a sum, makes
// NaN where activations that drop it (oneDNN's relu) or transforms that mix a tile's inputs
// (Winograd's) would hide it or spread it to outputs that never read it.
#pragma once

#include <cstdint>

namespace geon::cpu::native {

// The largest |x[i]| over [0, n) (0 for none), +infinity where one is NaN or infinite. AVX2;
// the caller checks the CPU.
float max_abs_avx2(const float* x, int64_t n);

// Whether sums of `terms` products of factors up to `a` and `b` in magnitude, plus addends up
// to `c`, stay far below float's largest value (3.4e38), in any order and through Winograd
// F(4x4, 3x3)'s transforms, which grow values by up to ~100 on the way in and 361 on the way
// out: then no partial sum overflows and none is NaN. False where an argument is NaN or
// infinite (0 * inf included).
inline bool sums_stay_finite(double terms, float a, float b, float c = 0.0f) {
  constexpr double kLargestSafeSum = 1e30;
  return terms * double{a} * double{b} + double{c} < kLargestSafeSum;
}

}  // namespace geon::cpu::native
