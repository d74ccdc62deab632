// cpu.generic QLinearConv against the naive convolution requantized by the spec's formula (the
// multiplier in float, the rest in double): every window form of the ConvInteger cases, int8 and
// uint8, with a bias and per-channel weight scales and zero points, and a bad x_zero_point.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/generic/quant/reference.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

using quant::random_q;

const KernelSet& gen() { return generic_kernels(); }

using quant::Case;
using quant::cases;
using quant::reference_conv;
using quant::set_window;

TEST(CpuGenericQLinearConv, RequantizesWithBiasAndPerChannelScales) {
  std::mt19937 rng(14);
  for (const Case& c : cases()) {
    for (DType t : {DType::kUInt8, DType::kInt8}) {
      const int64_t M = c.w[0];
      const Host x = random_q(t, c.x, rng), w = random_q(t, c.w, rng);
      const Host sx = Host::of(DType::kFloat, {}, {0.02});
      const Host zx = random_q(t, {}, rng);
      const Host sw = Host::random(DType::kFloat, {M}, rng, 0.001, 0.02);
      const Host zw = random_q(t, {M}, rng);
      const Host sy = Host::of(DType::kFloat, {}, {0.7});
      const Host zy = random_q(t, {}, rng);
      const Host bias = Host::random(DType::kInt32, {M}, rng, -5000, 5000);
      NodeGraph ng("QLinearConv", 10);
      ng.in(x).in(sx).in(zx).in(w).in(sw).in(zw).in(sy).in(zy).in(bias).out(t);
      set_window(ng, c.win);
      ASSERT_EQ(ng.supports(gen()), std::nullopt);
      Dims out;
      const std::vector<double> acc = reference_conv(x, w, zx.at(0), &zw, c.win, out);
      const int64_t per = element_count(out) / out[0] / M;
      const double lo = t == DType::kUInt8 ? 0 : -128, hi = t == DType::kUInt8 ? 255 : 127;
      expect_values(
          ng.run(gen())[0], out,
          [&](int64_t i) {
            const int64_t m = (i / per) % M;
            const double mult = static_cast<float>(static_cast<float>(0.02f * sw.at(m)) / 0.7f);
            return std::clamp(std::nearbyint((acc[i] + bias.at(m)) * mult + zy.at(0)), lo, hi);
          },
          0);
    }
  }
}

TEST(CpuGenericQLinearConv, AZeroPointOfManyValuesForXIsAnError) {
  std::mt19937 rng(20);
  const Host x = random_q(DType::kUInt8, {1, 4, 5, 5}, rng);
  NodeGraph ng("QLinearConv", 10);  // a 1-D x_zero_point
  const Host s = Host::of(DType::kFloat, {}, {1});
  const Host z = Host::of(DType::kUInt8, {}, {0});
  ng.in(x).in(s).in(random_q(DType::kUInt8, {4}, rng));
  ng.in(random_q(DType::kUInt8, {2, 4, 1, 1}, rng)).in(s).in(z).in(s).in(z).out(DType::kUInt8);
  expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"x_zero_point"});
}

}  // namespace
}  // namespace geon::cpu::testing
