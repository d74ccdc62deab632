// max_abs_avx2 of magnitude.h, compiled for AVX2 as the other _avx2 files are.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/cpu/native/magnitude.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

namespace geon::cpu::native {
namespace {

__m256i abs_bits(const float* x) {
  return _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x)),
                          _mm256_set1_epi32(0x7FFFFFFF));
}

}  // namespace

float max_abs_avx2(const float* x, int64_t n) {
  // On |x|'s bits as integers finite floats keep their order, infinity comes next and every
  // NaN after it, so an integer max finds the largest magnitude and sees any NaN as well.
  __m256i m0 = _mm256_setzero_si256(), m1 = m0, m2 = m0, m3 = m0;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    m0 = _mm256_max_epi32(m0, abs_bits(x + i));
    m1 = _mm256_max_epi32(m1, abs_bits(x + i + 8));
    m2 = _mm256_max_epi32(m2, abs_bits(x + i + 16));
    m3 = _mm256_max_epi32(m3, abs_bits(x + i + 24));
  }
  const __m256i m = _mm256_max_epi32(_mm256_max_epi32(m0, m1), _mm256_max_epi32(m2, m3));
  alignas(32) int32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), m);
  int32_t top = 0;
  for (const int32_t l : lanes) top = std::max(top, l);
  for (; i < n; ++i) {
    int32_t b;
    std::memcpy(&b, x + i, 4);
    top = std::max(top, b & 0x7FFFFFFF);
  }
  constexpr int32_t kInfinityBits = 0x7F800000;
  if (top >= kInfinityBits) return std::numeric_limits<float>::infinity();
  float f;
  std::memcpy(&f, &top, 4);
  return f;
}

}  // namespace geon::cpu::native

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
