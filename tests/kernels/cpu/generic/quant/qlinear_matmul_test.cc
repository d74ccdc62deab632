// cpu.generic QLinearMatMul against the naive product requantized by the spec's formula: int8
// and uint8, per tensor and per row / column scales and zero points, float16 scales (the
// multiplier in half precision), a float8 product, and the error for a scale of the wrong length.
#include <gtest/gtest.h>

#include <cmath>

#include "core/dtype/half.h"

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/generic/quant/reference.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

using quant::random_q;

const KernelSet& gen() { return generic_kernels(); }

using quant::reference_product;

void expect_qlinear(DType ta, DType tb, DType ty, DType st, const Dims& ash, const Dims& bsh,
                    bool per_row, std::mt19937& rng) {
  const Host a = random_q(ta, ash, rng), b = random_q(tb, bsh, rng);
  const int64_t M = ash[ash.size() - 2], N = bsh.back();
  const Host sa = Host::random(st, per_row ? Dims{M} : Dims{}, rng, 0.001, 0.05);
  const Host sb = Host::random(st, per_row ? Dims{N} : Dims{}, rng, 0.001, 0.05);
  const Host za = random_q(ta, per_row ? Dims{M} : Dims{}, rng);
  const Host zb = random_q(tb, per_row ? Dims{N} : Dims{}, rng);
  const Host sy = Host::of(st, {}, {0.05});
  const Host zy = random_q(ty, {}, rng);
  NodeGraph ng("QLinearMatMul", st == DType::kFloat ? 10 : 21);
  ng.in(a).in(sa).in(za).in(b).in(sb).in(zb).in(sy).in(zy).out(ty);
  ASSERT_EQ(ng.supports(gen()), std::nullopt);
  Dims out;
  const std::vector<double> acc = reference_product(a, b, &za, &zb, out);
  const double lo = ty == DType::kUInt8 ? 0 : -128, hi = ty == DType::kUInt8 ? 255 : 127;
  auto in_type = [&](double v) {
    return st == DType::kFloat ? double(static_cast<float>(v))
                               : double(half_to_float(double_to_half(v)));
  };
  expect_values(
      ng.run(gen())[0], out,
      [&](int64_t i) {
        const int64_t row = (i / N) % M, col = i % N;
        const double m =
            in_type(in_type(sa.at(per_row ? row : 0) * sb.at(per_row ? col : 0)) / sy.at(0));
        return std::clamp(std::nearbyint(acc[i] * m + zy.at(0)), lo, hi);
      },
      0);
}

TEST(CpuGenericQLinearMatMul, Int8AndUint8PerTensorAndPerRowColumn) {
  std::mt19937 rng(11);
  for (DType ta : {DType::kUInt8, DType::kInt8})
    for (DType ty : {DType::kUInt8, DType::kInt8})
      for (bool per_row : {false, true}) {
        expect_qlinear(ta, ta, ty, DType::kFloat, {4, 6}, {6, 3}, per_row, rng);
        expect_qlinear(ta, ta == DType::kInt8 ? DType::kUInt8 : DType::kInt8, ty, DType::kFloat16,
                       {2, 3, 5}, {1, 5, 4}, per_row, rng);
      }
}

TEST(CpuGenericQLinearMatMul, Float8OperandsMultiplyTheirDecodedValues) {
  const Host a = Host::of(DType::kFloat8E4M3FN, {2, 2}, {1, 2, -0.5, 4});
  const Host b = Host::of(DType::kFloat8E4M3FN, {2, 1}, {3, 0.25});
  const Host one = Host::of(DType::kFloat, {}, {1});
  const Host half = Host::of(DType::kFloat, {}, {0.5});
  const Host z = Host::of(DType::kFloat8E4M3FN, {}, {0});
  NodeGraph ng("QLinearMatMul", 21);
  ng.in(a).in(one).in(z).in(b).in(one).in(z).in(half).in(z).out(DType::kFloat8E4M3FN);
  ASSERT_EQ(ng.supports(gen()), std::nullopt);
  // (1*3 + 2*0.25) / 0.5 = 7, (-0.5*3 + 4*0.25) / 0.5 = -1
  const std::vector<double> want = {7, -1};
  expect_values(
      ng.run(gen())[0], {2, 1}, [&](int64_t i) { return want[i]; }, 0);
}

TEST(CpuGenericQLinearMatMul, ScalesOfTheWrongLengthAreErrors) {
  std::mt19937 rng(12);
  const Host a = random_q(DType::kUInt8, {2, 3}, rng), b = random_q(DType::kUInt8, {3, 4}, rng);
  const Host s = Host::of(DType::kFloat, {}, {0.1});
  const Host z = Host::of(DType::kUInt8, {}, {0});
  NodeGraph ng("QLinearMatMul", 10);
  ng.in(a).in(Host::of(DType::kFloat, {3}, {1, 1, 1})).in(z).in(b).in(s).in(z).in(s).in(z);
  ng.out(DType::kUInt8);
  expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"QLinearMatMul", "a_scale", "row"});
}

}  // namespace
}  // namespace geon::cpu::testing
