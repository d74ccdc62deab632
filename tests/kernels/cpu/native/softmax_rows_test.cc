// softmax_rows (kernels/cpu/native) against the definition in double: rows of every length
// around the vector width and LogSoftmax's stack chunk, large and tiny values, -inf entries,
// NaN anywhere in a row (the whole row NaN), and x and y the same buffer.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cpu/native/softmax_rows.h"

namespace geon::cpu {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<double> reference(bool log, const std::vector<float>& x, int64_t rows, int64_t n) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = &x[r * n];
    double m = -INFINITY, sum = 0;
    bool nan = false;
    for (int64_t i = 0; i < n; ++i) {
      nan = nan || std::isnan(row[i]);
      m = std::max(m, double(row[i]));
    }
    for (int64_t i = 0; i < n; ++i) sum += std::exp(double(row[i]) - m);
    for (int64_t i = 0; i < n; ++i)
      y[r * n + i] = nan   ? NAN
                     : log ? (double(row[i]) - m) - std::log(sum)
                           : std::exp(double(row[i]) - m) / sum;
  }
  return y;
}

void expect_rows(bool log, const std::vector<float>& x, int64_t rows, int64_t n, bool in_place) {
  std::vector<float> y = in_place ? x : std::vector<float>(x.size(), -7.0f);
  softmax_rows(log, in_place ? y.data() : x.data(), y.data(), rows, n);
  const std::vector<double> want = reference(log, x, rows, n);
  for (size_t i = 0; i < y.size(); ++i) {
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(y[i])) << (log ? "log " : "") << "n " << n << " at " << i;
    } else if (std::isinf(want[i])) {
      ASSERT_EQ(y[i], want[i]) << (log ? "log " : "") << "n " << n << " at " << i;
    } else {
      // A few float roundings of each step: exp within 2 ulp, the sum of n terms.
      ASSERT_NEAR(y[i], want[i], 2e-6 * std::fabs(want[i]) + 1e-6 * (log ? 1 : want[i]))
          << (log ? "log " : "") << "n " << n << " at " << i << " of " << y.size();
    }
  }
}

TEST(NativeSoftmaxRows, EveryRowLengthAroundTheLanesAndTheChunk) {
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> u(-6.0f, 6.0f);
  for (int64_t n : {1, 2, 7, 8, 9, 15, 16, 17, 31, 128, 511, 512, 513, 1100}) {
    const int64_t rows = 3;
    std::vector<float> x(static_cast<size_t>(rows * n));
    for (float& v : x) v = u(gen);
    for (bool log : {false, true}) {
      expect_rows(log, x, rows, n, false);
      expect_rows(log, x, rows, n, true);
    }
  }
}

TEST(NativeSoftmaxRows, LargeValuesMinusInfinityAndNaN) {
  // Values far from zero (the max subtracted first), a -inf entry (probability 0, log -inf), a
  // row with its max in the tail past the last full vector, and NaN in the lanes and the tail.
  const int64_t n = 21;
  std::vector<float> x(static_cast<size_t>(5 * n));
  for (int64_t i = 0; i < n; ++i) {
    x[i] = 80.0f + 0.5f * float(i % 7);
    x[n + i] = -90.0f + float(i);
    x[2 * n + i] = i == 3 ? -kInf : 0.25f * float(i);
    x[3 * n + i] = i == 11 ? std::numeric_limits<float>::quiet_NaN() : 1.0f;
    x[4 * n + i] = i == 20 ? std::numeric_limits<float>::quiet_NaN() : -1.0f;
  }
  for (bool log : {false, true}) expect_rows(log, x, 5, n, false);
}

}  // namespace
}  // namespace geon::cpu
