// cpu.generic QuantizeLinear against a naive loop of the spec's formula (divide in the scale's
// type, round half to even, add the zero point, saturate): every integer output type per tensor,
// per axis (strided x, negative axis) and per block (with a remainder block), float8 with and
// without saturate, float4, float16 arithmetic, and the errors for mismatched parameter shapes.
#include <gtest/gtest.h>

#include <cmath>

#include "core/dtype/float8.h"
#include "core/dtype/half.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

struct Range {
  double lo, hi;
};
Range range_of(DType t) {
  switch (t) {
    case DType::kUInt8:
      return {0, 255};
    case DType::kInt8:
      return {-128, 127};
    case DType::kUInt16:
      return {0, 65535};
    case DType::kInt16:
      return {-32768, 32767};
    case DType::kUInt4:
      return {0, 15};
    case DType::kInt4:
      return {-8, 7};
    case DType::kUInt2:
      return {0, 3};
    default:
      return {-2, 1};  // int2
  }
}

// The parameter index of element i of x: per tensor (block 0, one scale), per axis, per block.
int64_t param_of(const Dims& x, int64_t i, int axis, int64_t block, int64_t scale_count) {
  if (scale_count == 1) return 0;
  int64_t inner = 1;
  for (size_t d = axis + 1; d < x.size(); ++d) inner *= x[d];
  const int64_t a = (i / inner) % x[axis];
  if (block == 0) return a;
  const int64_t outer = i / (inner * x[axis]);
  const int64_t blocks = (x[axis] + block - 1) / block;
  return (outer * blocks + a / block) * inner + i % inner;
}

// Integer quantization of x (float) by s and z (may be empty) into t.
void expect_integer(const Host& x, const Host& s, const Host* z, DType t, int axis, int64_t block,
                    int opset, bool strided_x = false) {
  NodeGraph ng("QuantizeLinear", opset);
  ng.in(x).in(s);
  if (z) ng.in(*z);
  ng.out(t);
  if (opset >= 13) ng.attr_i("axis", axis);
  if (block) ng.attr_i("block_size", block);
  if (!z) ng.attr_i("output_dtype", static_cast<int64_t>(t));
  ASSERT_EQ(ng.supports(gen()), std::nullopt);
  SCOPED_TRACE(strided_x ? "strided x" : "dense x");
  const Dims xs = x.shape();
  const int ax = axis < 0 ? axis + static_cast<int>(xs.size()) : axis;
  const Range r = range_of(t);
  expect_values(
      ng.run(gen())[0], xs,
      [&](int64_t i) {
        const int64_t p = param_of(xs, i, ax, block, element_count(s.shape()));
        const float q = static_cast<float>(x.at(i)) / static_cast<float>(s.at(p));
        const double v = std::nearbyint(q) + (z ? z->at(p) : 0.0);
        return std::min(std::max(v, r.lo), r.hi);
      },
      0);
}

TEST(CpuGenericQuantizeLinear, EveryIntegerTypePerTensor) {
  std::mt19937 rng(1);
  for (DType t : {DType::kUInt8, DType::kInt8, DType::kUInt16, DType::kInt16, DType::kUInt4,
                  DType::kInt4, DType::kUInt2, DType::kInt2}) {
    const Range r = range_of(t);
    const Host x = Host::random(DType::kFloat, {3, 5, 7}, rng, -40, 40);
    const Host s =
        Host::of(DType::kFloat, {}, {t == DType::kUInt16 || t == DType::kInt16 ? 0.01 : 0.37});
    const Host z = Host::of(t, {}, {std::round((r.lo + r.hi) / 3)});
    expect_integer(x, s, &z, t, 1, 0, 21);
    expect_integer(x, s, nullptr, t, 1, 0, 21);  // output_dtype, no zero point
  }
}

TEST(CpuGenericQuantizeLinear, RoundsHalfToEvenThenSaturates) {
  const Host x = Host::of(DType::kFloat, {8}, {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1000, -1000});
  const Host s = Host::of(DType::kFloat, {}, {1});
  const Host z = Host::of(DType::kUInt8, {}, {10});
  NodeGraph ng("QuantizeLinear", 13);
  ng.in(x).in(s).in(z).out(DType::kUInt8);
  const std::vector<double> want = {10, 12, 12, 10, 8, 8, 255, 0};
  expect_values(
      ng.run(gen())[0], {8}, [&](int64_t i) { return want[i]; }, 0);
}

// x and y laid out alike but not row-major (channels-last, as between quantized convolutions):
// the per-tensor 8-bit path loops over the memory as it lies. NaN goes to the low end of the
// range (as the double path's saturate_round puts it), infinities to the ends.
TEST(CpuGenericQuantizeLinear, ChannelsLastValuesAndNonFiniteInputs) {
  std::mt19937 rng(11);
  const Dims shape{2, 3, 4, 5};
  const std::vector<int64_t> nhwc{0, 2, 3, 1};
  for (DType t : {DType::kUInt8, DType::kInt8}) {
    SCOPED_TRACE(dtype_name(t));
    Host dense = Host::random(DType::kFloat, shape, rng, -60, 60);
    dense.set(0, std::nan(""));
    dense.set(7, INFINITY);
    dense.set(9, -INFINITY);
    dense.set(11, 2.5 * 0.37);  // a tie, up to the float rounding of the product
    const Host x = dense.strided(nhwc);
    const Host s = Host::of(DType::kFloat, {}, {0.37});
    const Host z = Host::of(t, {}, {t == DType::kUInt8 ? 100.0 : -3.0});
    Host out = Host::dense(t, shape).strided(nhwc);
    struct LaidOut : FakeContext {
      LaidOut(std::vector<Host> in, Host o) : FakeContext(std::move(in), {o.desc.dtype}), out(o) {
        ref.desc = out.desc;
        ref.data = out.bytes->data();
      }
      TensorRef& output(int, const Dims&) override { return ref; }
      Host out;
      TensorRef ref;
    } ctx({x, s, z}, out);
    NodeGraph ng("QuantizeLinear", 13);
    ng.in(x).in(s).in(z).out(t);
    find_kernel(gen(), *ng.node)->create(ng.g, *ng.node)->compute(ctx);
    const Range r = range_of(t);
    expect_values(
        out, shape,
        [&](int64_t i) {
          const float q = static_cast<float>(x.at(i)) / 0.37f;
          if (std::isnan(q)) return r.lo;
          return std::min(std::max(std::nearbyint(q) + z.at(0), r.lo), r.hi);
        },
        0);
  }
}

TEST(CpuGenericQuantizeLinear, PerAxisOnStridedInputWithNegativeAxis) {
  std::mt19937 rng(2);
  for (int axis : {0, 1, 2, -1, -3}) {
    const Host x = Host::random(DType::kFloat, {4, 3, 5}, rng, -10, 10).strided({2, 0, 1});
    const int ax = axis < 0 ? axis + 3 : axis;
    const int64_t len = x.shape()[ax];
    const Host s = Host::random(DType::kFloat, {len}, rng, 0.05, 0.5);
    const Host z = Host::random(DType::kInt8, {len}, rng, -20, 20);
    expect_integer(x, s, &z, DType::kInt8, axis, 0, 13, true);
  }
}

TEST(CpuGenericQuantizeLinear, BlockedWithARemainderBlock) {
  std::mt19937 rng(3);
  for (int axis : {0, 1}) {
    for (int64_t block : {1, 2, 3, 7}) {
      const Dims xs = {7, 5};
      Dims ss = xs;
      ss[axis] = (xs[axis] + block - 1) / block;
      const Host x = Host::random(DType::kFloat, xs, rng, -10, 10);
      const Host s = Host::random(DType::kFloat, ss, rng, 0.1, 1);
      const Host z = Host::random(DType::kInt4, ss, rng, -3, 3);
      expect_integer(x, s, &z, DType::kInt4, axis, block, 21);
    }
  }
}

TEST(CpuGenericQuantizeLinear, Float8SaturatesOrOverflowsByTheAttribute) {
  const Host x = Host::of(DType::kFloat, {6}, {0.3, -1.7, 100, 1e6, -1e6, 3.14159});
  const Host s = Host::of(DType::kFloat, {}, {0.5});
  for (bool sat : {true, false}) {
    for (DType t : {DType::kFloat8E4M3FN, DType::kFloat8E4M3FNUZ, DType::kFloat8E5M2,
                    DType::kFloat8E5M2FNUZ}) {
      NodeGraph ng("QuantizeLinear", 21);
      ng.in(x).in(s).out(t).attr_i("output_dtype", static_cast<int64_t>(t)).attr_i("saturate", sat);
      ASSERT_EQ(ng.supports(gen()), std::nullopt);
      const Host y = ng.run(gen())[0];
      for (int64_t i = 0; i < 6; ++i) {
        const double q = static_cast<float>(x.at(i)) / 0.5f;
        double want = 0;
        switch (t) {
          case DType::kFloat8E4M3FN:
            want = float8e4m3fn_to_float(float_to_float8e4m3fn(q, sat));
            break;
          case DType::kFloat8E4M3FNUZ:
            want = float8e4m3fnuz_to_float(float_to_float8e4m3fnuz(q, sat));
            break;
          case DType::kFloat8E5M2:
            want = float8e5m2_to_float(float_to_float8e5m2(q, sat));
            break;
          default:
            want = float8e5m2fnuz_to_float(float_to_float8e5m2fnuz(q, sat));
        }
        if (std::isnan(want))
          EXPECT_TRUE(std::isnan(y.at(i))) << i;
        else
          EXPECT_EQ(y.at(i), want) << i;  // inf included
      }
      if (!sat) {  // 2e6 is past every float8 range: NaN, or inf for e5m2
        const double big = y.at(3);
        EXPECT_TRUE(std::isnan(big) || std::isinf(big)) << big;
      }
    }
  }
}

TEST(CpuGenericQuantizeLinear, Float4E2M1ClampsToSix) {
  const Host x = Host::of(DType::kFloat, {5}, {0.2, 1.3, -2.4, 50, -50});
  const Host s = Host::of(DType::kFloat, {}, {0.5});
  NodeGraph ng("QuantizeLinear", 23);
  ng.in(x).in(s).out(DType::kFloat4E2M1).attr_i("output_dtype", 23);
  expect_values(
      ng.run(gen())[0], {5},
      [&](int64_t i) { return double(float4e2m1_to_float(float_to_float4e2m1(x.at(i) / 0.5))); },
      0);
}

TEST(CpuGenericQuantizeLinear, Float16DividesInHalfPrecision) {
  std::mt19937 rng(4);
  const Host x = Host::random(DType::kFloat16, {64}, rng, -60, 60);
  const Host s = Host::of(DType::kFloat16, {}, {0.3});
  NodeGraph ng("QuantizeLinear", 19);
  ng.in(x).in(s).in(Host::of(DType::kInt8, {}, {0})).out(DType::kInt8);
  expect_values(
      ng.run(gen())[0], {64},
      [&](int64_t i) {
        const double q = half_to_float(double_to_half(x.at(i) / s.at(0)));
        return std::min(std::max(std::nearbyint(q), -128.0), 127.0);
      },
      0);
}

// From opset 23 the scale's type (or `precision`) sets the division's precision, not x's.
TEST(CpuGenericQuantizeLinear, DivisionInTheScalesTypeOrPrecision) {
  std::mt19937 rng(19);
  const Host x = Host::random(DType::kFloat, {200}, rng, -300, 300);
  const Host s = Host::of(DType::kFloat16, {}, {0.7});
  for (int64_t precision : {0, 1}) {
    NodeGraph ng("QuantizeLinear", 25);
    ng.in(x).in(s).in(Host::of(DType::kInt16, {}, {3})).out(DType::kInt16);
    if (precision) ng.attr_i("precision", precision);
    ASSERT_EQ(ng.supports(gen()), std::nullopt);
    expect_values(
        ng.run(gen())[0], {200},
        [&](int64_t i) {
          const double q =
              precision ? double(static_cast<float>(x.at(i)) / static_cast<float>(s.at(0)))
                        : double(half_to_float(
                              double_to_half(half_to_float(double_to_half(x.at(i))) / s.at(0))));
          return std::nearbyint(q) + 3;
        },
        0);
  }
}

TEST(CpuGenericQuantizeLinear, Int32InputToInt16) {
  const Host x = Host::of(DType::kInt32, {4}, {100000, -7, 25, 2147483});
  const Host s = Host::of(DType::kFloat, {}, {10});
  NodeGraph ng("QuantizeLinear", 23);
  ng.in(x).in(s).in(Host::of(DType::kInt16, {}, {0})).out(DType::kInt16);
  const std::vector<double> want = {10000, -1, 2, 32767};
  expect_values(
      ng.run(gen())[0], {4}, [&](int64_t i) { return want[i]; }, 0);
}

TEST(CpuGenericQuantizeLinear, MismatchedParametersAreClearErrors) {
  const Host x = Host::of(DType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  {
    NodeGraph ng("QuantizeLinear", 13);  // axis 1 has length 3, the scale 2
    ng.in(x).in(Host::of(DType::kFloat, {2}, {1, 1})).out(DType::kUInt8);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"QuantizeLinear", "y_scale", "axis 1"});
  }
  {
    NodeGraph ng("QuantizeLinear", 13);
    ng.in(x).in(Host::of(DType::kFloat, {3}, {1, 1, 1})).in(Host::of(DType::kUInt8, {2}, {0, 0}));
    ng.out(DType::kUInt8);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"y_zero_point", "y_scale"});
  }
  {
    NodeGraph ng("QuantizeLinear", 21);  // 3 in blocks of 2 needs 2 scales, not 3
    ng.in(x).in(Host::of(DType::kFloat, {2, 3}, {1, 1, 1, 1, 1, 1})).out(DType::kUInt8);
    ng.attr_i("block_size", 2);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"block_size 2", "y_scale"});
  }
  {
    NodeGraph ng("QuantizeLinear", 13);  // axis out of range
    ng.in(x).in(Host::of(DType::kFloat, {3}, {1, 1, 1})).out(DType::kUInt8).attr_i("axis", 5);
    expect_error(ng, gen(), ErrorCode::kOutOfRange, {"QuantizeLinear", "axis 5"});
  }
}

}  // namespace
}  // namespace geon::cpu::testing
