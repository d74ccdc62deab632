// cpu.generic DFT (17 and 20) against a naive O(n^2) transform in long double: power-of-two,
// prime and composite lengths (radix-2 and Bluestein), dft_length truncating and padding,
// onesided, inverse and the one-sided real inverse (irfft), the axis as attribute or input
// (negative too), complex and strided inputs, float16 and double, a long transform held to a
// tight tolerance, and the errors for a bad axis, a non-positive or huge length.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }
using C = std::complex<long double>;

struct Spec {
  int64_t axis = 1;
  std::optional<int64_t> n;
  bool inverse = false, onesided = false;
};

// The expected output of DFT over x ([..., 1 or 2]) as ONNX's reference computes it.
std::vector<double> naive_dft(const Host& x, const Spec& s, Dims& out_shape) {
  const Dims sh = x.shape();
  const int r = static_cast<int>(sh.size());
  const int a = static_cast<int>(s.axis < 0 ? s.axis + r : s.axis);
  const int64_t len = sh[a], ch = sh[r - 1];
  const bool irfft = s.inverse && s.onesided;
  const int64_t n = s.n.value_or(irfft ? 2 * (len - 1) : len);
  const int64_t out_len = !s.inverse && s.onesided ? n / 2 + 1 : n;
  out_shape = sh;
  out_shape[a] = out_len;
  out_shape[r - 1] = irfft ? 1 : 2;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < a; ++d) outer *= sh[d];
  for (int d = a + 1; d < r - 1; ++d) inner *= sh[d];
  const int64_t oc = out_shape[r - 1];
  std::vector<double> out(static_cast<size_t>(element_count(out_shape)));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<C> in(static_cast<size_t>(n), C(0, 0));
      const int64_t used = std::min(len, irfft ? n / 2 + 1 : n);
      for (int64_t j = 0; j < used; ++j) {
        const int64_t e = ((o * len + j) * inner + i) * ch;
        in[j] = C(x.at(e), ch == 2 ? x.at(e + 1) : 0);
      }
      if (irfft)
        for (int64_t k = n / 2 + 1; k < n; ++k) in[k] = std::conj(in[n - k]);
      const long double sign = s.inverse ? 1 : -1;
      std::vector<C> unit(static_cast<size_t>(n));  // exp(sign 2 pi i m / n), m < n
      for (int64_t m = 0; m < n; ++m) {
        const long double ang = sign * 2 * std::numbers::pi_v<long double> * m / n;
        unit[m] = C(std::cos(ang), std::sin(ang));
      }
      for (int64_t k = 0; k < out_len; ++k) {
        C acc(0, 0);
        for (int64_t j = 0; j < n; ++j) acc += in[j] * unit[(j * k) % n];
        if (s.inverse) acc /= static_cast<long double>(n);
        const int64_t e = ((o * out_len + k) * inner + i) * oc;
        out[e] = static_cast<double>(acc.real());
        if (oc == 2) out[e + 1] = static_cast<double>(acc.imag());
      }
    }
  return out;
}

void expect_dft(const Host& x, const Spec& s, int opset, double tol = 1e-5,
                bool axis_as_input = true) {
  NodeGraph ng("DFT", opset);
  ng.in(x);
  if (s.n)
    ng.in(Host::of(DType::kInt64, {}, {static_cast<double>(*s.n)}));
  else if (opset >= 20 && axis_as_input)
    ng.omitted();
  if (opset >= 20 && axis_as_input)
    ng.in(Host::of(DType::kInt64, {}, {static_cast<double>(s.axis)}));
  if (opset < 20) ng.attr_i("axis", s.axis);
  ng.out(x.desc.dtype).attr_i("inverse", s.inverse).attr_i("onesided", s.onesided);
  Dims shape;
  const std::vector<double> want = naive_dft(x, s, shape);
  expect_values(
      ng.run(gen())[0], shape, [&](int64_t i) { return want[i]; }, tol);
}

TEST(CpuGenericDFT, RadixTwoAndBluesteinLengthsMatchTheNaiveTransform) {
  std::mt19937 rng(1);
  for (int64_t n : {1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 30, 64, 97}) {
    const Host real = Host::random(DType::kDouble, {2, n, 1}, rng);
    expect_dft(real, {1, std::nullopt, false, false}, 17, 1e-10);
    const Host cx = Host::random(DType::kDouble, {n, 3, 2}, rng);
    expect_dft(cx, {0, std::nullopt, n % 2 == 1, false}, 17, 1e-10);
  }
}

TEST(CpuGenericDFT, LengthsOnesidedInverseAndIrfft) {
  std::mt19937 rng(2);
  const Host x = Host::random(DType::kFloat, {3, 10, 1}, rng);
  expect_dft(x, {1, 16, false, false}, 17);           // zero-padded
  expect_dft(x, {1, 7, false, true}, 17);             // truncated, one-sided
  expect_dft(x, {1, std::nullopt, false, true}, 20);  // rfft
  const Host spec = Host::random(DType::kFloat, {2, 6, 2}, rng);
  expect_dft(spec, {-2, std::nullopt, true, true}, 20);  // irfft: n = 10
  expect_dft(spec, {1, 9, true, true}, 20);              // irfft, odd n
  expect_dft(spec, {1, 4, true, true}, 20);              // irfft, fewer bins read
  expect_dft(spec, {1, std::nullopt, true, false}, 17);  // complex inverse
}

TEST(CpuGenericDFT, AxesStridesAndDtypes) {
  std::mt19937 rng(3);
  const Host x = Host::random(DType::kFloat, {4, 5, 6, 2}, rng);
  for (int64_t axis : {0, 1, 2, -2, -3, -4}) expect_dft(x, {axis, std::nullopt, false, false}, 20);
  expect_dft(x, {1, std::nullopt, false, false}, 17);
  expect_dft(x.strided({3, 2, 0, 1}), {2, std::nullopt, false, true}, 20);
  // Opset 20 without the axis input: the default -2.
  expect_dft(x, {-2, std::nullopt, false, false}, 20, 1e-5, false);
  expect_dft(Host::random(DType::kFloat16, {2, 8, 1}, rng, -1, 1), {1, std::nullopt, false, false},
             17, 1e-2);
  expect_dft(Host::random(DType::kBFloat16, {6, 1}, rng, -1, 1), {0, std::nullopt, false, false},
             17, 5e-2);
}

TEST(CpuGenericDFT, LongTransformsKeepDoubleAccuracy) {
  std::mt19937 rng(4);
  for (int64_t n : {1000, 1024, 4099}) {
    const Host x = Host::random(DType::kDouble, {n, 2}, rng);
    expect_dft(x, {0, std::nullopt, false, false}, 17, 1e-9);
  }
}

TEST(CpuGenericDFT, BadAxisAndLengthsAreErrors) {
  const Host x = Host::dense(DType::kFloat, {2, 4, 1});
  NodeGraph last("DFT", 20);
  last.in(x).omitted().in(Host::of(DType::kInt64, {}, {-1})).out(DType::kFloat);
  expect_error(last, gen(), ErrorCode::kInvalidArgument, {"DFT", "last dim"});
  NodeGraph range("DFT", 20);
  range.in(x).omitted().in(Host::of(DType::kInt64, {}, {5})).out(DType::kFloat);
  expect_error(range, gen(), ErrorCode::kInvalidArgument, {"axis 5", "out of range"});
  NodeGraph zero("DFT", 17);
  zero.in(x).in(Host::of(DType::kInt64, {}, {0})).out(DType::kFloat);
  expect_error(zero, gen(), ErrorCode::kInvalidArgument, {"must be positive"});
  NodeGraph huge("DFT", 17);
  huge.in(x).in(Host::of(DType::kInt64, {}, {1e15})).out(DType::kFloat);
  expect_error(huge, gen(), ErrorCode::kResourceExhausted, {"limit"});
  NodeGraph chans("DFT", 17);
  chans.in(Host::dense(DType::kFloat, {2, 4, 3})).out(DType::kFloat);
  expect_error(chans, gen(), ErrorCode::kInvalidArgument, {"1 (real) or 2 (complex)"});
}

}  // namespace
}  // namespace geon::cpu::testing
