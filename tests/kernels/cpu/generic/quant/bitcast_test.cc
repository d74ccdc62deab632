// cpu.generic BitCast against memcpy of the element bits: every same-width pair of 8, 16, 32 and
// 64 bits (float8 and bool included), 4-bit packed types, a strided input, and the refusal of
// pairs of different widths.
#include <gtest/gtest.h>

#include <cstring>

#include "core/dtype/scalar.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// Element i's bits of a dense host tensor of dtype t with `bits` per element.
uint64_t bits_at(const Host& h, int64_t i) {
  const int b = dtype_bits(h.desc.dtype);
  const auto* p = reinterpret_cast<const uint8_t*>(h.bytes->data());
  if (b < 8) return (p[i * b / 8] >> (i * b % 8)) & ((1u << b) - 1);
  uint64_t v = 0;
  std::memcpy(&v, p + i * (b / 8), static_cast<size_t>(b / 8));
  return v;
}

TEST(CpuGenericBitCast, SameWidthPairsKeepEveryBit) {
  std::mt19937 rng(17);
  const std::vector<std::vector<DType>> groups = {
      {DType::kUInt8, DType::kInt8, DType::kBool, DType::kFloat8E4M3FN, DType::kFloat8E5M2},
      {DType::kUInt16, DType::kInt16, DType::kFloat16, DType::kBFloat16},
      {DType::kUInt32, DType::kInt32, DType::kFloat},
      {DType::kUInt64, DType::kInt64, DType::kDouble},
      {DType::kUInt4, DType::kInt4, DType::kFloat4E2M1}};
  for (const auto& g : groups)
    for (DType from : g)
      for (DType to : g) {
        Host x = Host::random(from, {3, 5}, rng, from == DType::kBool ? 0 : -6, 6);
        NodeGraph ng("BitCast", 26);
        ng.in(x).out(to).attr_i("to", static_cast<int64_t>(to));
        ASSERT_EQ(ng.supports(gen()), std::nullopt);
        const Host y = ng.run(gen())[0];
        ASSERT_EQ(y.shape(), x.shape());
        for (int64_t i = 0; i < 15; ++i)
          EXPECT_EQ(bits_at(y, i), bits_at(x, i))
              << dtype_name(from) << " -> " << dtype_name(to) << " at " << i;
      }
}

TEST(CpuGenericBitCast, StridedInputIsReadInLogicalOrder) {
  std::mt19937 rng(18);
  const Host x = Host::random(DType::kFloat, {4, 3}, rng);
  NodeGraph ng("BitCast", 26);
  ng.in(x.strided({1, 0})).out(DType::kInt32).attr_i("to", 6);
  const Host y = ng.run(gen())[0];
  for (int64_t i = 0; i < 12; ++i) {
    const float f = static_cast<float>(x.at(i));
    int32_t want = 0;
    std::memcpy(&want, &f, 4);
    EXPECT_EQ(y.at(i), want);
  }
}

TEST(CpuGenericBitCast, DifferentWidthsAreRefused) {
  NodeGraph ng("BitCast", 26);
  ng.in(Host::of(DType::kFloat, {2}, {1, 2})).out(DType::kInt64).attr_i("to", 7);
  EXPECT_NE(ng.supports(gen()), std::nullopt);
}

}  // namespace
}  // namespace geon::cpu::testing
