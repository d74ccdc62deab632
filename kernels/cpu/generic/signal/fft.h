// The discrete Fourier transform of one complex sequence in double: an iterative radix-2 FFT for
// power-of-two lengths and Bluestein's chirp-z transform (three power-of-two FFTs) for every
// other length, so any n costs O(n log n) and keeps the rounding of an FFT. A plan holds the
// twiddles for one length and direction and is read-only once made, so threads share it.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

namespace geon::cpu::signal {

using Complex = std::complex<double>;

class FftPlan {
 public:
  // inverse: the exponent's sign is +; no 1/n scaling either way. n >= 1.
  FftPlan(int64_t n, bool inverse);
  int64_t size() const { return n_; }
  // data[0..n) is replaced by its transform; `work` is scratch the caller keeps per thread.
  void run(Complex* data, std::vector<Complex>& work) const;

 private:
  int64_t n_;
  bool inverse_;
  int64_t m_ = 0;                 // the power-of-two length Bluestein convolves at (0: radix-2)
  std::vector<Complex> twiddle_;  // radix-2 twiddles of the power-of-two length used
  std::vector<Complex> chirp_;    // Bluestein: exp(sign * i * pi * k^2 / n), k < n
  std::vector<Complex> filter_;   // Bluestein: the FFT of the conjugate chirp, length m

  void radix2(Complex* a, int64_t len, bool inverse) const;
};

}  // namespace geon::cpu::signal
