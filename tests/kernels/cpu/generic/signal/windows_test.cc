// cpu.generic HannWindow, HammingWindow, BlackmanWindow and MelWeightMatrix against their
// formulas (the windows as sums of cosines, written here in their sin^2 / textbook forms;
// MelWeightMatrix as ONNX's reference loop): periodic and symmetric, sizes 0 to 33, int32
// size inputs, double, float16 and integer outputs; and the errors for a negative size, an
// edge above the Nyquist frequency and a huge size.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }
constexpr double kPi = std::numbers::pi;

double window_value(const std::string& op, int64_t k, double period) {
  if (op == "HannWindow") return std::pow(std::sin(kPi * k / period), 2);
  if (op == "HammingWindow")
    return 0.54347826086956519 - 0.45652173913043481 * std::cos(2 * kPi * k / period);
  return 0.42 - 0.5 * std::cos(2 * kPi * k / period) + 0.08 * std::cos(4 * kPi * k / period);
}

void expect_window(const std::string& op, int64_t size, bool periodic, DType t, DType size_t_,
                   double tol = 1e-5) {
  NodeGraph ng(op, 17);
  ng.in(Host::of(size_t_, {}, {static_cast<double>(size)})).out(t);
  ng.attr_i("periodic", periodic).attr_i("output_datatype", static_cast<int64_t>(t));
  const double period = static_cast<double>(periodic ? size : size - 1);
  expect_values(
      ng.run(gen())[0], {size},
      [&](int64_t k) {
        const double v = window_value(op, k, period);
        return is_integer(t) ? std::trunc(v) : v;
      },
      tol);
}

TEST(CpuGenericWindows, PeriodicAndSymmetricOfEverySize) {
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"})
    for (int64_t size : {0, 2, 3, 8, 10, 33})
      for (bool periodic : {true, false}) {
        expect_window(op, size, periodic, DType::kFloat, DType::kInt64);
        expect_window(op, size, periodic, DType::kDouble, DType::kInt32, 1e-12);
      }
  expect_window("HannWindow", 16, true, DType::kFloat16, DType::kInt64, 2e-3);
  expect_window("HammingWindow", 16, true, DType::kInt32, DType::kInt64);
  expect_window("BlackmanWindow", 1, true, DType::kFloat, DType::kInt64);
}

TEST(CpuGenericWindows, NegativeAndHugeSizesAreErrors) {
  NodeGraph neg("HannWindow", 17);
  neg.in(Host::of(DType::kInt64, {}, {-3})).out(DType::kFloat);
  expect_error(neg, gen(), ErrorCode::kInvalidArgument, {"HannWindow", "negative"});
  NodeGraph huge("HannWindow", 17);
  huge.in(Host::of(DType::kInt64, {}, {1e15})).out(DType::kFloat);
  expect_error(huge, gen(), ErrorCode::kResourceExhausted, {"limit"});
}

// ONNX's reference loop (onnx/reference/ops/op_mel_weight_matrix.py).
std::vector<double> mel_reference(int64_t bins, int64_t n, int64_t rate, double lo, double hi) {
  const int64_t spec = n / 2 + 1;
  const double lo_mel = 2595 * std::log10(1 + lo / 700), hi_mel = 2595 * std::log10(1 + hi / 700);
  const double step = (hi_mel - lo_mel) / (bins + 2);
  std::vector<int64_t> f;
  for (int64_t i = 0; i < bins + 2; ++i) {
    const double hz = 700 * (std::pow(10.0, (i * step + lo_mel) / 2595) - 1);
    f.push_back(static_cast<int64_t>(std::floor((n + 1) * hz / rate)));
  }
  std::vector<double> out(static_cast<size_t>(spec * bins), 0.0);
  for (int64_t i = 0; i < bins; ++i) {
    if (f[i + 1] == f[i])
      out[f[i + 1] * bins + i] = 1;
    else
      for (int64_t j = f[i]; j <= f[i + 1]; ++j)
        out[j * bins + i] = static_cast<double>(j - f[i]) / (f[i + 1] - f[i]);
    for (int64_t j = f[i + 1]; j < f[i + 2]; ++j)
      out[j * bins + i] = static_cast<double>(f[i + 2] - j) / (f[i + 2] - f[i + 1]);
  }
  return out;
}

void expect_mel(int64_t bins, int64_t n, int64_t rate, double lo, double hi, DType t) {
  NodeGraph ng("MelWeightMatrix", 17);
  for (int64_t v : {bins, n, rate}) ng.in(Host::of(DType::kInt64, {}, {static_cast<double>(v)}));
  ng.in(Host::of(DType::kFloat, {}, {lo})).in(Host::of(DType::kFloat, {}, {hi}));
  ng.out(t).attr_i("output_datatype", static_cast<int64_t>(t));
  const std::vector<double> want = mel_reference(bins, n, rate, lo, hi);
  expect_values(
      ng.run(gen())[0], {n / 2 + 1, bins}, [&](int64_t i) { return want[i]; }, 1e-3);
}

TEST(CpuGenericMelWeightMatrix, MatchesTheReferenceTriangles) {
  expect_mel(8, 16, 8192, 0, 4096, DType::kFloat);
  expect_mel(20, 512, 16000, 20, 8000, DType::kFloat);
  expect_mel(5, 64, 1000, 100, 400, DType::kDouble);
  expect_mel(4, 32, 8000, 0, 4000, DType::kFloat16);
  expect_mel(3, 10, 100, 0, 50, DType::kInt32);
}

TEST(CpuGenericMelWeightMatrix, EdgesOutsideTheSpectrumAreErrors) {
  NodeGraph ng("MelWeightMatrix", 17);
  for (double v : {8.0, 16.0, 8000.0}) ng.in(Host::of(DType::kInt64, {}, {v}));
  ng.in(Host::of(DType::kFloat, {}, {0})).in(Host::of(DType::kFloat, {}, {16000}));
  ng.out(DType::kFloat);
  expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"MelWeightMatrix", "outside"});
}

}  // namespace
}  // namespace geon::cpu::testing
