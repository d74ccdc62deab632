// cpu.generic STFT against naive per-frame DFTs in long double: with and without a window,
// frame_length given or taken from the window, onesided or full, complex signals, odd frame
// lengths (Bluestein), steps that leave samples over; and the errors for a frame longer than
// the signal, a window that disagrees with frame_length and a non-positive step.
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

void expect_stft(const Host& x, int64_t step, std::optional<Host> window,
                 std::optional<int64_t> frame_length, bool onesided, double tol = 1e-5) {
  NodeGraph ng("STFT", 17);
  ng.in(x).in(Host::of(DType::kInt64, {}, {static_cast<double>(step)}));
  if (window)
    ng.in(*window);
  else if (frame_length)
    ng.omitted();
  if (frame_length) ng.in(Host::of(DType::kInt64, {}, {static_cast<double>(*frame_length)}));
  ng.out(x.desc.dtype).attr_i("onesided", onesided);
  const Dims s = x.shape();
  const int64_t fl = frame_length ? *frame_length : window ? window->shape()[0] : s[1];
  const int64_t frames = 1 + (s[1] - fl) / step, bins = onesided ? fl / 2 + 1 : fl;
  const Dims os{s[0], frames, bins, 2};
  expect_values(
      ng.run(gen())[0], os,
      [&](int64_t i) {
        const int64_t part = i % 2, k = (i / 2) % bins, f = (i / (2 * bins)) % frames,
                      b = i / (2 * bins * frames);
        std::complex<long double> acc(0, 0);
        for (int64_t j = 0; j < fl; ++j) {
          const int64_t e = (b * s[1] + f * step + j) * s[2];
          const long double w = window ? window->at(j) : 1;
          const std::complex<long double> v(x.at(e) * w, s[2] == 2 ? x.at(e + 1) * w : 0);
          const long double ang =
              -2 * std::numbers::pi_v<long double> * static_cast<long double>((j * k) % fl) / fl;
          acc += v * std::complex<long double>(std::cos(ang), std::sin(ang));
        }
        return static_cast<double>(part ? acc.imag() : acc.real());
      },
      tol);
}

TEST(CpuGenericSTFT, FramesMatchNaiveTransforms) {
  std::mt19937 rng(1);
  const Host x = Host::random(DType::kFloat, {2, 40, 1}, rng);
  const Host w8 = Host::random(DType::kFloat, {8}, rng, 0, 1);
  expect_stft(x, 4, w8, std::nullopt, true);
  expect_stft(x, 5, w8, 8, false);
  expect_stft(x, 3, std::nullopt, 7, true);
  expect_stft(x, 6, std::nullopt, 16, false);
  expect_stft(x, 1, std::nullopt, std::nullopt, true);
  const Host cx = Host::random(DType::kDouble, {1, 30, 2}, rng);
  expect_stft(cx, 7, Host::random(DType::kDouble, {9}, rng), std::nullopt, false, 1e-10);
  expect_stft(Host::random(DType::kFloat16, {1, 16, 1}, rng, -1, 1), 4, std::nullopt, 8, true,
              2e-2);
}

TEST(CpuGenericSTFT, BadFramesAreErrors) {
  const Host x = Host::dense(DType::kFloat, {1, 10, 1});
  NodeGraph longer("STFT", 17);
  longer.in(x).in(Host::of(DType::kInt64, {}, {2})).omitted();
  longer.in(Host::of(DType::kInt64, {}, {11})).out(DType::kFloat);
  expect_error(longer, gen(), ErrorCode::kInvalidArgument, {"STFT", "fewer than one frame"});
  NodeGraph disagree("STFT", 17);
  disagree.in(x).in(Host::of(DType::kInt64, {}, {2})).in(Host::dense(DType::kFloat, {4}));
  disagree.in(Host::of(DType::kInt64, {}, {5})).out(DType::kFloat);
  expect_error(disagree, gen(), ErrorCode::kInvalidArgument, {"window has 4"});
  NodeGraph step("STFT", 17);
  step.in(x).in(Host::of(DType::kInt64, {}, {0})).out(DType::kFloat);
  expect_error(step, gen(), ErrorCode::kInvalidArgument, {"frame_step"});
}

}  // namespace
}  // namespace geon::cpu::testing
