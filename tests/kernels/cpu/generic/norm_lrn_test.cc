// cpu.generic LRN against the ONNX formula written as a naive loop: odd and even window sizes
// (the window is not symmetric for even sizes), windows wider than the channels, ranks 3 to 5,
// strided inputs, and beta = 0.75 (its own path) as well as other betas.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

TEST(CpuGenericLrn, MatchesWindowedSumOfSquares) {
  std::mt19937 rng(31);
  int trial = 0;
  for (int64_t size : {1, 2, 3, 4, 5, 9}) {
    for (int rank = 3; rank <= 5; ++rank, ++trial) {
      const Dims s = random_shape(rng, rank, 5);
      Host x = Host::random(DType::kFloat, s, rng);
      if (trial % 2) {
        std::vector<int64_t> perm;
        for (int k = rank - 1; k >= 0; --k) perm.push_back(k);
        x = x.strided(perm);
      }
      const double alpha = 2e-2, beta = trial % 3 ? 0.75 : 0.6, bias = 1.5;  // 0.75: sqrt path
      const int64_t c = s[1], spatial = element_count(s) / (s[0] * c);
      NodeGraph ng("LRN", 13);
      ng.in(x).out(DType::kFloat, s).attr_i("size", size).attr_f("alpha", float(alpha));
      ng.attr_f("beta", float(beta)).attr_f("bias", float(bias));
      SCOPED_TRACE("size " + std::to_string(size) + " " + to_string(x.desc));
      expect_values(ng.run(generic_kernels())[0], s, [&](int64_t i) {
        const int64_t n = i / (c * spatial), ch = i / spatial % c, sp = i % spatial;
        const int64_t lo = std::max<int64_t>(0, ch - (size - 1) / 2);
        const int64_t hi = std::min<int64_t>(c - 1, ch + size / 2);  // ceil((size-1)/2)
        double sq = 0;
        for (int64_t k = lo; k <= hi; ++k) {
          const double v = x.at((n * c + k) * spatial + sp);
          sq += v * v;
        }
        return x.at(i) / std::pow(bias + alpha / size * sq, beta);
      });
    }
  }
}

}  // namespace
}  // namespace geon::cpu::testing
