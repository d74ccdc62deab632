// The activations the AVX2 kernels of this folder apply before their one store (the
// epilogue). Include it after a file's `#pragma GCC target("avx2,fma")`: the functions here
// take the file's target.
#pragma once

#include <immintrin.h>

#include "kernels/cpu/native/conv_tiles.h"

namespace geon::cpu::native {

struct Epilogue {
  __m256 zero, alpha, lo, hi;
  TileActivation act;
};

// alpha: LeakyRelu's slope; lo and hi: Clip's bounds.
inline Epilogue make_epilogue(TileActivation act, float alpha, float beta) {
  return Epilogue{_mm256_setzero_ps(), _mm256_set1_ps(alpha), _mm256_set1_ps(alpha),
                  _mm256_set1_ps(beta), act};
}

inline __m256 activate(__m256 v, const Epilogue& e) {
  switch (e.act) {
    case TileActivation::kNone:
      return v;
    case TileActivation::kRelu:
      return _mm256_max_ps(e.zero, v);  // NaN stays NaN: the second operand wins
    case TileActivation::kLeakyRelu:
      return _mm256_blendv_ps(v, _mm256_mul_ps(v, e.alpha), _mm256_cmp_ps(v, e.zero, _CMP_LT_OQ));
    case TileActivation::kClip:
      return _mm256_min_ps(e.hi, _mm256_max_ps(e.lo, v));
  }
  return v;
}

}  // namespace geon::cpu::native
