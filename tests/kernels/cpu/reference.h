// Naive references for the kernel tests: numpy broadcasting by explicit index arithmetic, and
// comparison of a kernel's output with expected values.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "tests/kernels/cpu/harness.h"

namespace geon::cpu::testing {

// Element of h that numpy broadcasting maps to row-major index i of `out`.
inline double bcast_at(const Host& h, const Dims& out, int64_t i) {
  const int r = static_cast<int>(out.size()), hr = h.desc.rank();
  int64_t src = 0, scale = 1;
  for (int k = r - 1; k >= 0; --k) {
    const int64_t coord = i % out[k];
    i /= out[k];
    const int hk = k - (r - hr);
    if (hk < 0) continue;
    const int64_t len = h.desc.shape[hk];
    src += (len == 1 ? 0 : coord) * scale;
    scale *= len;
  }
  return h.at(src);
}

// Element i of the (M, N) product of a (M, K) (any leading dims folded into M) with B as
// stored, (K, N) or (N, K) when `tb`: a naive loop in double.
inline double matmul_product(const Host& a, const Host& b, bool tb, int64_t n_len, int64_t i) {
  const int64_t k_len = a.desc.shape.back(), m = i / n_len, n = i % n_len;
  double s = 0;
  for (int64_t k = 0; k < k_len; ++k)
    s += a.at(m * k_len + k) * b.at(tb ? n * k_len + k : k * n_len + n);
  return s;
}

// Expects `got` to have `shape` and got[i] ≈ want(i) for every i.
inline void expect_values(const Host& got, const Dims& shape,
                          const std::function<double(int64_t)>& want, double tol = 1e-5) {
  ASSERT_EQ(got.shape(), shape);
  for (int64_t i = 0; i < element_count(shape); ++i) {
    const double w = want(i), g = got.at(i);
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << "at " << i;
    } else {
      ASSERT_NEAR(g, w, tol * std::max(1.0, std::abs(w))) << "at " << i;
    }
  }
}

// A random shape of `rank` dims in [1, max_len].
inline Dims random_shape(std::mt19937& rng, int rank, int64_t max_len = 5) {
  Dims d(rank);
  for (auto& x : d) x = std::uniform_int_distribution<int64_t>(1, max_len)(rng);
  return d;
}
// A copy of `shape` where some dims (chosen at random) are 1 and some leading ones dropped, so
// it broadcasts to `shape`.
inline Dims broadcastable(std::mt19937& rng, const Dims& shape) {
  Dims d = shape;
  for (auto& x : d)
    if (rng() % 3 == 0) x = 1;
  const size_t drop = rng() % (d.size() + 1);
  return Dims(d.begin() + static_cast<int64_t>(drop), d.end());
}

}  // namespace geon::cpu::testing
