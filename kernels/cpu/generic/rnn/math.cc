// The arithmetic under the recurrent layers: the ONNX activation functions (with alpha, beta
// and clip) applied to rows of gates, and the dense GEMM used for the input projection of many
// time steps at once and for H·R^T at every step.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/generic/rnn/rnn.h"

namespace geon::cpu::rnn {
namespace {

// e^x in float without a library call: 2^n times a degree-7 polynomial for e^r, |r| <= ln2/2
// (relative error below 3e-7 on [-87, 88]; inputs outside are clamped, where sigmoid and tanh
// are flat anyway). The scalar form serves the tails of the eight-wide one below.
inline float exp_f(float x) {
  if (x != x) return x;  // NaN: the int conversion below would be undefined
  x = std::min(std::max(x, -87.f), 88.f);
  const float n = std::floor(x * 1.44269504f + 0.5f);
  const float r = x - n * 0.693145751953125f - n * 1.428606765e-6f;  // ln 2 in two parts
  float p = 1.f / 5040;
  p = p * r + 1.f / 720;
  p = p * r + 1.f / 120;
  p = p * r + 1.f / 24;
  p = p * r + 1.f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.f;
  p = p * r + 1.f;
  return p * std::bit_cast<float>((static_cast<int32_t>(n) + 127) << 23);
}

inline float sigmoid_f(float x) { return 1.f / (1.f + exp_f(-x)); }

// (1 - e^-2|x|) / (1 + e^-2|x|) with x's sign; near 0 that difference cancels, so a Taylor
// polynomial takes |x| < 1/16 (its error there is below 1e-9).
inline float tanh_f(float x) {
  const float a = std::abs(x), x2 = x * x;
  if (a < 0.0625f) return x * (1.f + x2 * (-1.f / 3 + x2 * (2.f / 15 + x2 * (-17.f / 315))));
  const float e = exp_f(-2.f * a);
  return std::copysign((1.f - e) / (1.f + e), x);
}

// The same functions eight floats at a time, in GCC/Clang vector extensions: under the default
// -ftrapping-math the compiler will not turn the clamps and selects of the scalar forms into
// vector code itself, and libm's tanhf and expf were most of an LSTM step's time.
using F8 = float __attribute__((vector_size(32)));
using I8 = int32_t __attribute__((vector_size(32)));

inline F8 exp8(F8 x) {
  const F8 in = x;
  x = x < -87.f ? F8{} - 87.f : x;
  x = x > 88.f ? F8{} + 88.f : x;
  x = in == in ? x : F8{};  // NaN lanes computed on 0, restored below
  // x * log2(e) + 0.5 lies in (-126, 128): offset to positive, truncation is the floor.
  const I8 ni = __builtin_convertvector(x * 1.44269504f + 128.5f, I8) - 128;
  const F8 n = __builtin_convertvector(ni, F8);
  const F8 r = x - n * 0.693145751953125f - n * 1.428606765e-6f;
  F8 p = r * (1.f / 5040) + 1.f / 720;
  p = p * r + 1.f / 120;
  p = p * r + 1.f / 24;
  p = p * r + 1.f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.f;
  p = p * r + 1.f;
  const F8 y = p * std::bit_cast<F8>(I8((ni + 127) << 23));
  return in == in ? y : in;
}

inline F8 sigmoid8(F8 x) { return 1.f / (1.f + exp8(-x)); }

inline F8 tanh8(F8 x) {
  const F8 a = x < 0.f ? -x : x, x2 = x * x;
  const F8 e = exp8(-2.f * a);
  const F8 big = (1.f - e) / (1.f + e);
  const F8 small = x * (1.f + x2 * (-1.f / 3 + x2 * (2.f / 15 + x2 * (-17.f / 315))));
  return a < 0.0625f ? small : (x < 0.f ? -big : big);
}

// x[i] = f(x[i]): eight at a time by f8, the tail by f1.
template <class F8Fn, class F1Fn>
void map_f(float* x, int64_t n, F8Fn f8, F1Fn f1) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    F8 v;
    std::memcpy(&v, x + i, sizeof v);
    v = f8(v);
    std::memcpy(x + i, &v, sizeof v);
  }
  for (; i < n; ++i) x[i] = f1(x[i]);
}

}  // namespace

template <class T>
void activate(const Activation& a, float clip, T* x, int64_t n) {
  if (clip > 0) {
    const T lo = -static_cast<T>(clip), hi = static_cast<T>(clip);
    for (int64_t i = 0; i < n; ++i) x[i] = std::min(std::max(x[i], lo), hi);
  }
  const T alpha = a.alpha, beta = a.beta;
  using K = Activation::Kind;
  switch (a.kind) {
    case K::kRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] <= 0 ? T(0) : x[i];  // NaN stays NaN
      break;
    case K::kTanh:
      if constexpr (std::is_same_v<T, float>)
        map_f(x, n, tanh8, tanh_f);
      else
        for (int64_t i = 0; i < n; ++i) x[i] = std::tanh(x[i]);
      break;
    case K::kSigmoid:
      if constexpr (std::is_same_v<T, float>) {
        map_f(x, n, sigmoid8, sigmoid_f);
        break;
      }
      // Written so that exp never overflows: for x < 0, e^x / (1 + e^x).
      for (int64_t i = 0; i < n; ++i) {
        const T e = std::exp(-std::abs(x[i]));
        x[i] = x[i] >= 0 ? T(1) / (T(1) + e) : e / (T(1) + e);
      }
      break;
    case K::kAffine:
      for (int64_t i = 0; i < n; ++i) x[i] = alpha * x[i] + beta;
      break;
    case K::kLeakyRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] >= 0 ? x[i] : alpha * x[i];
      break;
    case K::kThresholdedRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] > alpha ? x[i] : T(0);
      break;
    case K::kScaledTanh:
      if constexpr (std::is_same_v<T, float>)
        map_f(
            x, n, [&](F8 v) { return alpha * tanh8(beta * v); },
            [&](float v) { return alpha * tanh_f(beta * v); });
      else
        for (int64_t i = 0; i < n; ++i) x[i] = alpha * std::tanh(beta * x[i]);
      break;
    case K::kHardSigmoid:
      for (int64_t i = 0; i < n; ++i) x[i] = std::min(std::max(alpha * x[i] + beta, T(0)), T(1));
      break;
    case K::kElu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] >= 0 ? x[i] : alpha * (std::exp(x[i]) - T(1));
      break;
    case K::kSoftsign:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] / (T(1) + std::abs(x[i]));
      break;
    case K::kSoftplus:
      // log(1 + e^x) = max(x, 0) + log1p(e^-|x|), which neither overflows nor loses small x.
      for (int64_t i = 0; i < n; ++i)
        x[i] = std::max(x[i], T(0)) + std::log1p(std::exp(-std::abs(x[i])));
      break;
  }
}

namespace {

// A kMr x kNr tile of c += a·b over all of K, accumulated in registers: the fixed trip counts
// let the compiler keep acc in sixteen 256-bit registers (128 bytes of columns per row).
template <class T>
constexpr int64_t kNr = 128 / sizeof(T);
constexpr int64_t kMr = 4;

template <class T>
void gemm_tile(int64_t K, const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc) {
  constexpr int64_t nr = kNr<T>;
  T acc[kMr][nr] = {};
  for (int64_t k = 0; k < K; ++k) {
    const T* br = b + k * ldb;
    for (int64_t r = 0; r < kMr; ++r) {
      const T av = a[r * lda + k];
      for (int64_t j = 0; j < nr; ++j) acc[r][j] += av * br[j];
    }
  }
  for (int64_t r = 0; r < kMr; ++r)
    for (int64_t j = 0; j < nr; ++j) c[r * ldc + j] += acc[r][j];
}

// Any rows and columns, one row at a time (the edges the tiles leave).
template <class T>
void gemm_edge(int64_t m0, int64_t m1, int64_t n0, int64_t n1, int64_t K, const T* a, int64_t lda,
               const T* b, int64_t ldb, T* c, int64_t ldc) {
  for (int64_t m = m0; m < m1; ++m) {
    T* cr = c + m * ldc;
    for (int64_t k = 0; k < K; ++k) {
      const T av = a[m * lda + k];
      const T* br = b + k * ldb;
      for (int64_t j = n0; j < n1; ++j) cr[j] += av * br[j];
    }
  }
}

// Rows [m0, m1) and columns [n0, n1) of c += a·b: column panels of b (K x kNr, kept in cache)
// swept by tiles of kMr rows.
template <class T>
void gemm_block(int64_t m0, int64_t m1, int64_t n0, int64_t n1, int64_t K, const T* a, int64_t lda,
                const T* b, int64_t ldb, T* c, int64_t ldc) {
  constexpr int64_t nr = kNr<T>;
  const int64_t mt = m0 + (m1 - m0) / kMr * kMr, nt = n0 + (n1 - n0) / nr * nr;
  for (int64_t n = n0; n < nt; n += nr)
    for (int64_t m = m0; m < mt; m += kMr)
      gemm_tile(K, a + m * lda, lda, b + n, ldb, c + m * ldc + n, ldc);
  gemm_edge(m0, mt, nt, n1, K, a, lda, b, ldb, c, ldc);
  gemm_edge(mt, m1, n0, n1, K, a, lda, b, ldb, c, ldc);
}

}  // namespace

template <class T>
void gemm(int64_t M, int64_t N, int64_t K, const T* a, int64_t lda, const T* b, int64_t ldb, T* c,
          int64_t ldc) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  const double work = static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  ThreadPool& pool = default_thread_pool();
  // Below ~64k multiply-adds the wake-up of the workers costs more than it saves; above, one
  // part per ~32k of them, at most one per thread.
  int parts = 1;
  if (work >= 65536.0) parts = static_cast<int>(std::min<double>(pool.size(), work / 32768.0));
  if (parts <= 1) {
    gemm_block(0, M, 0, N, K, a, lda, b, ldb, c, ldc);
    return;
  }
  // Many rows (the projection over all steps): split rows in whole tiles. Few rows (one
  // step of a small batch): split columns, in whole tiles.
  if (M >= kMr * parts) {
    const int64_t chunk = (M + parts - 1) / parts;
    const int64_t rows = (chunk + kMr - 1) / kMr * kMr;
    pool.run(parts, [&](int p) {
      const int64_t m0 = std::min(M, p * rows), m1 = std::min(M, m0 + rows);
      gemm_block(m0, m1, 0, N, K, a, lda, b, ldb, c, ldc);
    });
  } else {
    const int64_t chunk = (N + parts - 1) / parts;
    const int64_t cols = (chunk + kNr<T> - 1) / kNr<T> * kNr<T>;
    pool.run(parts, [&](int p) {
      const int64_t n0 = std::min(N, p * cols), n1 = std::min(N, n0 + cols);
      gemm_block(0, M, n0, n1, K, a, lda, b, ldb, c, ldc);
    });
  }
}

template void activate<float>(const Activation&, float, float*, int64_t);
template void activate<double>(const Activation&, float, double*, int64_t);
template void gemm<float>(int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t,
                          float*, int64_t);
template void gemm<double>(int64_t, int64_t, int64_t, const double*, int64_t, const double*,
                           int64_t, double*, int64_t);

}  // namespace geon::cpu::rnn
