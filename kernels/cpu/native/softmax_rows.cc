// Softmax rows (softmax_rows.h). The max and the sums fold in the lanes of a GCC vector (the
// lanes combined at the end), which the compiler cannot do by itself for a float sum without
// reassociating it; the exponentials are a plain loop over float_math::exp, which it vectorises.
#include "kernels/cpu/native/softmax_rows.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/engine/float_math.h"

namespace geon::cpu {
namespace {

typedef float Floats8 __attribute__((vector_size(32)));
constexpr int64_t kLanes = 8;

Floats8 load(const float* p) {
  Floats8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The row's max over its numbers. A NaN needs no care here: its exponential makes the sum,
// and so every result of the row, NaN.
float row_max(const float* x, int64_t n) {
  constexpr float kLowest = -std::numeric_limits<float>::infinity();
  Floats8 m = {kLowest, kLowest, kLowest, kLowest, kLowest, kLowest, kLowest, kLowest};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const Floats8 v = load(x + i);
    m = v > m ? v : m;
  }
  float r = kLowest;
  for (int l = 0; l < kLanes; ++l) r = m[l] > r ? m[l] : r;
  for (; i < n; ++i) r = x[i] > r ? x[i] : r;
  return r;
}

float row_sum(const float* v, int64_t n) {
  Floats8 acc = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) acc += load(v + i);
  float s = 0;
  for (int l = 0; l < kLanes; ++l) s += acc[l];
  for (; i < n; ++i) s += v[i];
  return s;
}

void exps(const float* x, float* e, int64_t n, float m) {
  for (int64_t i = 0; i < n; ++i) e[i] = float_math::exp(x[i] - m);
}

}  // namespace

void softmax_rows(bool log, const float* x, float* y, int64_t rows, int64_t n) {
  constexpr int64_t kChunk = 512;
  float chunk[kChunk];
  for (int64_t r = 0; r < rows; ++r, x += n, y += n) {
    const float m = row_max(x, n);
    if (log) {
      // Through a chunk on the stack: y may be x, which the last pass still reads.
      float sum = 0;
      for (int64_t i = 0; i < n; i += kChunk) {
        const int64_t len = std::min(kChunk, n - i);
        exps(x + i, chunk, len, m);
        sum += row_sum(chunk, len);
      }
      // (x - m) - log(sum): x - m is exact near the max, where the result is smallest.
      const float lse = float_math::log(sum);
      for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) - lse;
    } else {
      exps(x, y, n, m);
      const float inv = 1.0f / row_sum(y, n);
      for (int64_t i = 0; i < n; ++i) y[i] *= inv;
    }
  }
}

}  // namespace geon::cpu
