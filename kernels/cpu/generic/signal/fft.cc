// FftPlan (fft.h): radix-2 decimation in time with precomputed twiddles, and Bluestein's
// algorithm for other lengths. Angles are reduced exactly in integers (k^2 mod 2n) before the
// sine and cosine, so long transforms keep full double accuracy.
#include "kernels/cpu/generic/signal/fft.h"

#include <cmath>
#include <numbers>

namespace geon::cpu::signal {
namespace {

bool is_pow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// exp(i * sign * pi * num / den) with num reduced into [0, 2 den).
Complex unit(int64_t num, int64_t den, double sign) {
  const double a = sign * std::numbers::pi * static_cast<double>(num) / static_cast<double>(den);
  return {std::cos(a), std::sin(a)};
}

}  // namespace

FftPlan::FftPlan(int64_t n, bool inverse) : n_(n), inverse_(inverse) {
  int64_t len = n;
  if (!is_pow2(n)) {
    m_ = 1;
    while (m_ < 2 * n - 1) m_ *= 2;
    len = m_;
  }
  // Forward twiddles of `len`: w^k = exp(-2 pi i k / len), k < len / 2.
  twiddle_.resize(static_cast<size_t>(len / 2));
  for (int64_t k = 0; k < len / 2; ++k) twiddle_[k] = unit(2 * k, len, -1);
  if (m_ == 0) return;
  // Bluestein: X_k = c_k * sum_j (x_j c_j) conj(c)_{k-j}, with c_k = exp(sign i pi k^2 / n).
  const double sign = inverse ? 1 : -1;
  chirp_.resize(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    const auto k2 = static_cast<int64_t>((static_cast<__int128>(k) * k) % (2 * n));
    chirp_[k] = unit(k2, n, sign);
  }
  filter_.assign(static_cast<size_t>(m_), Complex(0, 0));
  filter_[0] = std::conj(chirp_[0]);
  for (int64_t k = 1; k < n; ++k) filter_[k] = filter_[m_ - k] = std::conj(chirp_[k]);
  radix2(filter_.data(), m_, false);
}

void FftPlan::radix2(Complex* a, int64_t len, bool inverse) const {
  for (int64_t i = 1, j = 0; i < len; ++i) {
    int64_t bit = len >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  const int64_t full = static_cast<int64_t>(twiddle_.size()) * 2;  // the length twiddles are for
  for (int64_t half = 1; half < len; half *= 2) {
    const int64_t step = full / (2 * half);
    for (int64_t s = 0; s < len; s += 2 * half) {
      for (int64_t k = 0; k < half; ++k) {
        Complex w = twiddle_[k * step];
        if (inverse) w = std::conj(w);
        const Complex u = a[s + k], v = a[s + k + half] * w;
        a[s + k] = u + v;
        a[s + k + half] = u - v;
      }
    }
  }
}

void FftPlan::run(Complex* data, std::vector<Complex>& work) const {
  if (n_ == 1) return;
  if (m_ == 0) {
    radix2(data, n_, inverse_);
    return;
  }
  work.assign(static_cast<size_t>(m_), Complex(0, 0));
  for (int64_t k = 0; k < n_; ++k) work[k] = data[k] * chirp_[k];
  radix2(work.data(), m_, false);
  for (int64_t k = 0; k < m_; ++k) work[k] *= filter_[k];
  radix2(work.data(), m_, true);
  const double scale = 1.0 / static_cast<double>(m_);
  for (int64_t k = 0; k < n_; ++k) data[k] = work[k] * scale * chirp_[k];
}

}  // namespace geon::cpu::signal
