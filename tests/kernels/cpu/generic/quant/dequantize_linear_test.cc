// cpu.generic DequantizeLinear against a naive loop of (x - zero point) * scale: every
// quantized input type (integers, packed, float8, float4, int32), per tensor, per axis over a
// strided input, per block, float16 and bfloat16 outputs (the scale's dtype or output_dtype),
// and the errors for parameter shapes that fit no granularity.
#include <gtest/gtest.h>

#include "core/dtype/half.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

TEST(CpuGenericDequantizeLinear, EveryQuantizedTypePerTensor) {
  std::mt19937 rng(5);
  for (DType t :
       {DType::kUInt8, DType::kInt8, DType::kUInt16, DType::kInt16, DType::kUInt4, DType::kInt4,
        DType::kUInt2, DType::kInt2, DType::kInt32, DType::kFloat8E4M3FN, DType::kFloat8E4M3FNUZ,
        DType::kFloat8E5M2, DType::kFloat8E5M2FNUZ, DType::kFloat4E2M1}) {
    const bool fl = is_floating(t);
    const double lo =
        t == DType::kUInt2 || t == DType::kUInt4 || t == DType::kUInt8 || t == DType::kUInt16 ? 0
                                                                                              : -2;
    const Host x = Host::random(t, {4, 9}, rng, lo, t == DType::kUInt2 ? 3 : 4);
    const Host s = Host::of(DType::kFloat, {}, {0.25});
    const Host z = Host::of(t, {}, {fl ? 0.0 : 1.0});
    NodeGraph ng("DequantizeLinear", 25);
    ng.in(x).in(s).in(z).out(DType::kFloat);
    ASSERT_EQ(ng.supports(gen()), std::nullopt) << dtype_name(t);
    expect_values(
        ng.run(gen())[0], {4, 9}, [&](int64_t i) { return (x.at(i) - z.at(0)) * 0.25; }, 1e-7);
  }
}

// x and y laid out alike but not row-major (channels-last): the per-tensor 8-bit path loops over
// the memory as it lies.
TEST(CpuGenericDequantizeLinear, ChannelsLastValues) {
  std::mt19937 rng(12);
  const Dims shape{2, 3, 4, 5};
  const std::vector<int64_t> nhwc{0, 2, 3, 1};
  for (DType t : {DType::kUInt8, DType::kInt8}) {
    SCOPED_TRACE(dtype_name(t));
    const Host x =
        Host::random(t, shape, rng, t == DType::kUInt8 ? 0 : -128, t == DType::kUInt8 ? 255 : 127)
            .strided(nhwc);
    const Host s = Host::of(DType::kFloat, {}, {0.37});
    const Host z = Host::of(t, {}, {t == DType::kUInt8 ? 100.0 : -3.0});
    Host out = Host::dense(DType::kFloat, shape).strided(nhwc);
    struct LaidOut : FakeContext {
      LaidOut(std::vector<Host> in, Host o) : FakeContext(std::move(in), {DType::kFloat}), out(o) {
        ref.desc = out.desc;
        ref.data = out.bytes->data();
      }
      TensorRef& output(int, const Dims&) override { return ref; }
      Host out;
      TensorRef ref;
    } ctx({x, s, z}, out);
    NodeGraph ng("DequantizeLinear", 13);
    ng.in(x).in(s).in(z).out(DType::kFloat);
    find_kernel(gen(), *ng.node)->create(ng.g, *ng.node)->compute(ctx);
    expect_values(
        out, shape,
        [&](int64_t i) {
          return static_cast<double>(static_cast<float>(x.at(i) - z.at(0)) * 0.37f);
        },
        0);
  }
}

// X channels-last (or a view with gaps) into the dense row-major Y a graph gives it: the engine's
// strided conversion, then the same float arithmetic in place, exactly the flat loop's values.
TEST(CpuGenericDequantizeLinear, ChannelsLastOrGappedInputIntoADenseOutput) {
  std::mt19937 rng(13);
  const Dims shape{2, 6, 3, 5};
  for (DType t : {DType::kUInt8, DType::kInt8}) {
    SCOPED_TRACE(dtype_name(t));
    const double lo = t == DType::kUInt8 ? 0 : -128, hi = t == DType::kUInt8 ? 255 : 127;
    const Host nhwc = Host::random(t, shape, rng, lo, hi).strided({0, 2, 3, 1});
    Host wide = Host::random(t, {2, 12, 3, 5}, rng, lo, hi);
    wide.desc.shape[1] = 6, wide.desc.strides[1] *= 2;  // every other channel: gaps
    for (const Host& x : {nhwc, wide}) {
      const Host s = Host::of(DType::kFloat, {}, {0.37});
      const Host z = Host::of(t, {}, {t == DType::kUInt8 ? 100.0 : -3.0});
      NodeGraph ng("DequantizeLinear", 13);
      ng.in(x).in(s).in(z).out(DType::kFloat);
      const Host y = ng.run(gen())[0];
      expect_values(
          y, shape,
          [&](int64_t i) {
            return static_cast<double>(static_cast<float>(x.at(i) - z.at(0)) * 0.37f);
          },
          0);
    }
  }
}

TEST(CpuGenericDequantizeLinear, PerAxisOnAStridedInput) {
  std::mt19937 rng(6);
  for (int axis : {0, 1, 2, -2}) {
    const Host x = Host::random(DType::kUInt8, {3, 4, 5}, rng, 0, 255).strided({1, 2, 0});
    const int ax = axis < 0 ? axis + 3 : axis;
    const int64_t len = x.shape()[ax];
    const Host s = Host::random(DType::kFloat, {len}, rng, 0.01, 1);
    const Host z = Host::random(DType::kUInt8, {len}, rng, 0, 255);
    NodeGraph ng("DequantizeLinear", 13);
    ng.in(x).in(s).in(z).out(DType::kFloat).attr_i("axis", axis);
    int64_t inner = 1;
    for (int d = ax + 1; d < 3; ++d) inner *= x.shape()[d];
    expect_values(
        ng.run(gen())[0], x.shape(),
        [&](int64_t i) {
          const int64_t p = (i / inner) % len;
          return double(static_cast<float>(x.at(i) - z.at(p)) * static_cast<float>(s.at(p)));
        },
        1e-7);
  }
}

TEST(CpuGenericDequantizeLinear, BlockedToFloat16AndBFloat16) {
  std::mt19937 rng(7);
  for (DType out : {DType::kFloat16, DType::kBFloat16}) {
    const Host x = Host::random(DType::kInt4, {5, 6}, rng, -8, 7);
    const Host s = Host::random(out, {2, 6}, rng, 0.1, 2);  // axis 0 in blocks of 4: 4 + 1
    const Host z = Host::random(DType::kInt4, {2, 6}, rng, -2, 2);
    NodeGraph ng("DequantizeLinear", 21);
    ng.in(x).in(s).in(z).out(out).attr_i("axis", 0).attr_i("block_size", 4);
    ASSERT_EQ(ng.supports(gen()), std::nullopt);
    expect_values(
        ng.run(gen())[0], {5, 6},
        [&](int64_t i) {
          const int64_t p = (i / 6 / 4) * 6 + i % 6;
          const float v = static_cast<float>(x.at(i) - z.at(p)) * static_cast<float>(s.at(p));
          return out == DType::kFloat16 ? double(half_to_float(float_to_half(v)))
                                        : double(bfloat16_to_float(float_to_bfloat16(v)));
        },
        0);
  }
}

TEST(CpuGenericDequantizeLinear, OutputDtypeAttributeOverridesTheScale) {
  const Host x = Host::of(DType::kInt8, {3}, {-100, 3, 127});
  NodeGraph ng("DequantizeLinear", 23);
  ng.in(x).in(Host::of(DType::kFloat, {}, {0.1})).out(DType::kFloat16).attr_i("output_dtype", 10);
  expect_values(
      ng.run(gen())[0], {3},
      [&](int64_t i) {
        return double(half_to_float(float_to_half(static_cast<float>(x.at(i)) * 0.1f)));
      },
      0);
}

TEST(CpuGenericDequantizeLinear, ParametersThatFitNoGranularityAreErrors) {
  const Host x = Host::of(DType::kUInt8, {2, 3}, {1, 2, 3, 4, 5, 6});
  {
    NodeGraph ng("DequantizeLinear", 13);
    ng.in(x).in(Host::of(DType::kFloat, {2, 3}, {1, 1, 1, 1, 1, 1})).out(DType::kFloat);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"DequantizeLinear", "x_scale"});
  }
  {
    NodeGraph ng("DequantizeLinear", 13);
    ng.in(x).in(Host::of(DType::kFloat, {}, {1})).in(Host::of(DType::kUInt8, {3}, {1, 1, 1}));
    ng.out(DType::kFloat);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"x_zero_point"});
  }
  {
    NodeGraph ng("DequantizeLinear", 13);  // a 1-D scale for a scalar x
    ng.in(Host::of(DType::kUInt8, {}, {1})).in(Host::of(DType::kFloat, {2}, {1, 1}));
    ng.out(DType::kFloat);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"scalar"});
  }
}

}  // namespace
}  // namespace geon::cpu::testing
