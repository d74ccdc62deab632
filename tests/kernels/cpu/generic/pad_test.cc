// cpu.generic Pad against a per-element reference: each output coordinate is walked back into
// the input by bouncing (reflect), wrapping (wrap) or clamping (edge) step by step, so pads
// longer than the input, negative pads (crops), strided inputs and every opset's form of the
// parameters are checked against index arithmetic that shares nothing with the kernel.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// The input coordinate that output coordinate o copies along an axis of length len whose pads
// are (b, e); -1 for the constant.
int64_t source_of(const std::string& mode, int64_t o, int64_t len, int64_t b, int64_t e) {
  // Crop first: the kept input is [max(-b, 0), len - max(-e, 0)).
  const int64_t first = std::max<int64_t>(-b, 0), kept = len - first - std::max<int64_t>(-e, 0);
  int64_t x = o - std::max<int64_t>(b, 0);
  if (x >= 0 && x < kept) return first + x;
  if (mode == "constant") return -1;
  if (mode == "edge") return first + (x < 0 ? 0 : kept - 1);
  if (mode == "wrap") {
    while (x < 0) x += kept;
    while (x >= kept) x -= kept;
    return first + x;
  }
  if (kept == 1) return first;
  while (x < 0 || x >= kept) x = x < 0 ? -x : 2 * (kept - 1) - x;  // reflect: bounce
  return first + x;
}

// Expects y == Pad(x) with per-axis pads (b[k], e[k]) and the constant c.
void expect_padded(const Host& y, const Host& x, const std::string& mode, const Dims& b,
                   const Dims& e, double c) {
  const Dims& s = x.shape();
  const int r = static_cast<int>(s.size());
  Dims shape(r);
  for (int k = 0; k < r; ++k) shape[k] = s[k] + b[k] + e[k];
  expect_values(y, shape, [&](int64_t i) {
    int64_t src = 0;
    for (int k = 0; k < r; ++k) {
      int64_t stride = 1;
      for (int j = k + 1; j < r; ++j) stride *= shape[j];
      const int64_t o = i / stride % shape[k];
      const int64_t at = source_of(mode, o, s[k], b[k], e[k]);
      if (at < 0) return c;
      src = src * s[k] + at;
    }
    return x.at(src);
  });
}

TEST(CpuGenericPad, EveryModeMatchesTheReferenceOnRandomShapes) {
  std::mt19937 rng(21);
  for (const char* mode : {"constant", "reflect", "edge", "wrap"}) {
    for (int trial = 0; trial < 12; ++trial) {
      const int r = 1 + trial % 4;
      const Dims s = random_shape(rng, r, 5);
      Host x = Host::random(DType::kFloat, s, rng);
      if (r > 1 && trial % 2) {
        std::vector<int64_t> perm(r);
        for (int k = 0; k < r; ++k) perm[k] = r - 1 - k;
        x = x.strided(perm);
      }
      // Pads up to three times the length (repeated reflections and wraps) and crops that
      // leave at least one element.
      Dims b(r), e(r), pads;
      for (int k = 0; k < r; ++k) {
        b[k] = std::uniform_int_distribution<int64_t>(-(s[k] - 1) / 2, 3 * s[k])(rng);
        e[k] = std::uniform_int_distribution<int64_t>(-(s[k] - 1) / 2, 3 * s[k])(rng);
      }
      pads = b;
      pads.insert(pads.end(), e.begin(), e.end());
      NodeGraph ng("Pad", 19);
      ng.in(x).in(ints(pads), true).in(Host::of(DType::kFloat, {}, {2.5})).out(DType::kFloat);
      ng.attr_s("mode", mode);
      expect_padded(ng.run(gen())[0], x, mode, b, e, 2.5);
    }
  }
}

TEST(CpuGenericPad, PackedDtypesTakeTheAssignPath) {
  // uint4 cannot be gathered by whole bytes: assigns between views fill the slabs instead.
  std::mt19937 rng(13);
  for (const char* mode : {"constant", "reflect", "edge", "wrap"}) {
    const Host x = Host::random(DType::kUInt4, {3, 5}, rng, 0, 15);
    NodeGraph ng("Pad", 19);
    ng.in(x).in(ints({4, -1, 1, 7}), true).in(Host::of(DType::kUInt4, {}, {9}));
    ng.out(DType::kUInt4, {8, 11}).attr_s("mode", mode);
    SCOPED_TRACE(mode);
    expect_padded(ng.run(gen())[0], x, mode, {4, -1}, {1, 7}, 9);
  }
}

TEST(CpuGenericPad, AttributeFormsAndIntegerConstants) {
  std::mt19937 rng(5);
  const Host x = Host::random(DType::kInt32, {3, 4}, rng, -9, 9);
  NodeGraph v1("Pad", 1);
  v1.in(x).out(DType::kInt32, {4, 7}).attr_ints("paddings", {1, 0, 0, 3}).attr_f("value", 7);
  expect_padded(v1.run(gen())[0], x, "constant", {1, 0}, {0, 3}, 7);
  NodeGraph v2("Pad", 2);
  v2.in(x).out(DType::kInt32, {3, 6}).attr_ints("pads", {0, 2, 0, 0}).attr_s("mode", "reflect");
  expect_padded(v2.run(gen())[0], x, "reflect", {0, 2}, {0, 0}, 0);
  // Opset 11: pads and the constant as run-time inputs; a large int64 constant stays exact.
  const Host big = Host::random(DType::kInt64, {2, 3}, rng, -9, 9);
  Host c = Host::dense(DType::kInt64, {});
  *reinterpret_cast<int64_t*>(c.bytes->data()) = (int64_t{1} << 60) + 1;
  NodeGraph v11("Pad", 11);
  v11.in(big).in(ints({1, 0, 0, 1})).in(c).out(DType::kInt64, {3, 4});
  const Host y = v11.run(gen())[0];
  EXPECT_EQ(reinterpret_cast<const int64_t*>(y.bytes->data())[0], (int64_t{1} << 60) + 1);
  EXPECT_EQ(y.at(4), big.at(0));
}

TEST(CpuGenericPad, AxesInputPadsOnlyTheNamedAxes) {
  std::mt19937 rng(8);
  const Host x = Host::random(DType::kFloat, {2, 3, 4}, rng);
  NodeGraph ng("Pad", 18);
  ng.in(x).in(ints({1, -1, 2, 1}), true).omitted().in(ints({-1, 0}), true);  // (b, e) of axes 2, 0
  ng.out(DType::kFloat, {2, 3, 7}).attr_s("mode", "edge");
  expect_padded(ng.run(gen())[0], x, "edge", {-1, 0, 1}, {1, 0, 2}, 0);
}

TEST(CpuGenericPad, EmptyAxesOnlyGrowWithAConstant) {
  const Host x = Host::dense(DType::kFloat, {0, 2});
  NodeGraph c("Pad", 13);
  c.in(x).in(ints({1, 0, 1, 0}), true).out(DType::kFloat, {2, 2});
  expect_values(c.run(gen())[0], {2, 2}, [](int64_t) { return 0.0; });
  NodeGraph e("Pad", 13);
  e.in(x).in(ints({1, 0, 1, 0}), true).out(DType::kFloat, {2, 2}).attr_s("mode", "edge");
  expect_error(e, gen(), ErrorCode::kInvalidArgument, {"Pad", "axis 0"});
  NodeGraph neg("Pad", 13);
  neg.in(Host::dense(DType::kFloat, {2})).in(ints({-2, -1}), true).out(DType::kFloat);
  expect_error(neg, gen(), ErrorCode::kInvalidArgument, {"negative"});
  NodeGraph wrap_old("Pad", 18);
  wrap_old.in(x).in(ints({0, 0, 0, 0}), true).out(DType::kFloat).attr_s("mode", "wrap");
  EXPECT_TRUE(wrap_old.supports(gen()));
}

}  // namespace
}  // namespace geon::cpu::testing
