// cpu.generic Trilu and EyeLike against naive loops over (row, column): batched and strided
// inputs, every diagonal k from far below to far above (huge k included), k as a constant or a
// run-time input, integer, bool, half and complex dtypes, and the rank error.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

void expect_trilu(const Host& x, bool upper, std::optional<int64_t> k, bool const_k) {
  NodeGraph ng("Trilu", 14);
  ng.in(x);
  if (k) {
    // Written as bytes: int64 extremes do not survive a trip through double.
    Host kh = Host::dense(DType::kInt64, {});
    std::memcpy(kh.bytes->data(), &*k, sizeof(int64_t));
    ng.in(kh, const_k);
  }
  ng.out(x.desc.dtype).attr_i("upper", upper ? 1 : 0);
  const Dims s = x.shape();
  const int64_t rows = s[s.size() - 2], cols = s.back(), kk = k.value_or(0);
  expect_values(ng.run(gen())[0], s, [&](int64_t i) {
    const int64_t j = i % cols, r = (i / cols) % rows;
    const bool keep = upper ? j - r >= kk : j - r <= kk;
    return keep ? x.at(i) : 0.0;
  });
}

TEST(CpuGenericTrilu, MatchesMaskOverBatchesAndDiagonals) {
  std::mt19937 rng(1);
  for (int trial = 0; trial < 30; ++trial) {
    const Dims s = random_shape(rng, 2 + trial % 3, 6);
    const Host x = Host::random(DType::kFloat, s, rng);
    const int64_t k = static_cast<int64_t>(rng() % 15) - 7;
    expect_trilu(x, trial % 2 == 0, k, trial % 3 == 0);
  }
  std::mt19937 rng2(2);
  const Host x = Host::random(DType::kFloat, {3, 4}, rng2);
  expect_trilu(x, true, std::nullopt, false);
  expect_trilu(x, false, std::nullopt, false);
}

TEST(CpuGenericTrilu, HugeDiagonalsKeepOrZeroEverything) {
  std::mt19937 rng(3);
  const Host x = Host::random(DType::kFloat, {2, 3, 5}, rng);
  for (int64_t k : {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()})
    for (bool upper : {true, false}) expect_trilu(x, upper, k, false);
}

TEST(CpuGenericTrilu, StridedInputAndOtherDtypes) {
  std::mt19937 rng(4);
  const Host x = Host::random(DType::kFloat, {3, 4, 5}, rng).strided({2, 0, 1});
  expect_trilu(x, true, 1, false);
  expect_trilu(x, false, -1, true);
  for (DType t : {DType::kInt32, DType::kInt64, DType::kUInt8, DType::kFloat16, DType::kBFloat16,
                  DType::kDouble, DType::kBool, DType::kInt8}) {
    const Host y = Host::random(t, {2, 4, 3}, rng, 0, 5);
    expect_trilu(y, static_cast<int>(t) % 2 == 0, 0, false);
  }
}

// Complex elements move whole: the real and imaginary floats of each kept element survive and
// both parts of each masked one become 0.
TEST(CpuGenericTrilu, ComplexElementsMoveWhole) {
  std::mt19937 rng(5);
  const Host parts = Host::random(DType::kFloat, {2, 3, 4, 2}, rng);
  const Host x{row_major(DType::kComplex64, Dims{2, 3, 4}), parts.bytes};
  NodeGraph ng("Trilu", 14);
  ng.in(x).in(ints({1}), true).out(DType::kComplex64).attr_i("upper", 0);
  const Host got = ng.run(gen())[0];
  const Host floats{row_major(DType::kFloat, Dims{2, 3, 4, 2}), got.bytes};
  expect_values(floats, {2, 3, 4, 2}, [&](int64_t i) {
    const int64_t e = i / 2, col = e % 4, row = (e / 4) % 3;
    return col - row <= 1 ? parts.at(i) : 0.0;
  });
}

TEST(CpuGenericTrilu, RankOneIsAnError) {
  NodeGraph ng("Trilu", 14);
  ng.in(Host::dense(DType::kFloat, {4})).out(DType::kFloat);
  expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"Trilu", "rank >= 2"});
}

void expect_eye(const Dims& s, int64_t k, DType in, DType out) {
  NodeGraph ng("EyeLike", 22);
  ng.in(Host::dense(in, s)).out(out).attr_i("k", k);
  expect_values(ng.run(gen())[0], s, [&](int64_t i) {
    const int64_t r = i / s[1], c = i % s[1];
    return c - r == k ? 1.0 : 0.0;
  });
}

TEST(CpuGenericEyeLike, OnesOnDiagonalKForEveryShapeAndDtype) {
  for (const Dims& s : {Dims{3, 3}, Dims{2, 5}, Dims{6, 2}, Dims{1, 1}, Dims{0, 3}})
    for (int64_t k = -7; k <= 7; ++k) expect_eye(s, k, DType::kFloat, DType::kFloat);
  for (DType t :
       {DType::kInt32, DType::kUInt64, DType::kBool, DType::kFloat16, DType::kDouble, DType::kInt8})
    expect_eye({4, 5}, 1, DType::kInt64, t);
  expect_eye({4, 5}, std::numeric_limits<int64_t>::max(), DType::kFloat, DType::kFloat);
  expect_eye({4, 5}, std::numeric_limits<int64_t>::min(), DType::kFloat, DType::kFloat);
}

}  // namespace
}  // namespace geon::cpu::testing
