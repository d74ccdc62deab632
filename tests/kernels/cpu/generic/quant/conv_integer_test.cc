// cpu.generic ConvInteger against a naive N-D convolution loop over the zero-point-shifted
// operands: 1-D, 2-D and 3-D inputs, pads, strides, dilations, groups, every auto_pad mode,
// per-channel weight zero points, a strided x, and the errors for channel mismatches, a window
// larger than the input and hostile attribute values.
#include <gtest/gtest.h>

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

TEST(CpuGenericConvInteger, EveryWindowFormWithPerChannelWeightZeroPoints) {
  std::mt19937 rng(13);
  int trial = 0;
  for (const Case& c : cases()) {
    for (DType tx : {DType::kUInt8, DType::kInt8}) {
      const DType tw = ++trial % 2 ? DType::kInt8 : DType::kUInt8;
      Host x = random_q(tx, c.x, rng);
      const Host w = random_q(tw, c.w, rng);
      const Host zx = random_q(tx, {}, rng);
      const Host zw = trial % 3 ? random_q(tw, {c.w[0]}, rng) : random_q(tw, {}, rng);
      NodeGraph ng("ConvInteger", 10);
      // A strided x on the 4-D cases: storage in (N, H, W, C) order.
      ng.in(c.x.size() == 4 ? x.strided({0, 2, 3, 1}) : x).in(w).in(zx).in(zw).out(DType::kInt32);
      set_window(ng, c.win);
      ASSERT_EQ(ng.supports(gen()), std::nullopt);
      Dims out;
      const std::vector<double> want = reference_conv(x, w, zx.at(0), &zw, c.win, out);
      expect_values(
          ng.run(gen())[0], out, [&](int64_t i) { return want[i]; }, 0);
    }
  }
}

TEST(CpuGenericConvInteger, BadShapesAndHostileAttributesAreErrors) {
  std::mt19937 rng(15);
  const Host x = random_q(DType::kUInt8, {1, 4, 5, 5}, rng);
  {
    NodeGraph ng("ConvInteger", 10);  // 4 channels, w takes 3 per group
    ng.in(x).in(random_q(DType::kUInt8, {2, 3, 2, 2}, rng)).out(DType::kInt32);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"ConvInteger", "channels"});
  }
  {
    NodeGraph ng("ConvInteger", 10);  // a 7x7 window over 5x5
    ng.in(x).in(random_q(DType::kUInt8, {2, 4, 7, 7}, rng)).out(DType::kInt32);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"ConvInteger", "window"});
  }
  {
    NodeGraph ng("ConvInteger", 10);  // pads so large the output would not fit in memory
    ng.in(x).in(random_q(DType::kUInt8, {2, 4, 1, 1}, rng)).out(DType::kInt32);
    ng.attr_ints("pads", {int64_t{1} << 30, int64_t{1} << 30, int64_t{1} << 30, int64_t{1} << 30});
    EXPECT_EQ(ng.supports(gen()), std::nullopt);
    expect_error(ng, gen(), ErrorCode::kResourceExhausted, {"ConvInteger"});
  }
  {
    NodeGraph ng("ConvInteger", 10);
    ng.in(x).in(random_q(DType::kUInt8, {2, 4, 1, 1}, rng)).out(DType::kInt32);
    ng.attr_ints("strides", {INT64_MAX, 1});
    EXPECT_NE(ng.supports(gen()), std::nullopt);
  }
}

}  // namespace
}  // namespace geon::cpu::testing
