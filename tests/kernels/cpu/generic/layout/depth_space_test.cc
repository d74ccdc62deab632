// cpu.generic DepthToSpace (DCR and CRD) and SpaceToDepth against the index formulas of the
// ONNX spec: random shapes and block sizes, strided inputs, integer, bool, half and complex
// dtypes, a round trip, and the errors for channels or spatial dims that the block does not
// divide.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// Row-major index of (a, b, c, d) in shape s.
int64_t at4(const Dims& s, int64_t a, int64_t b, int64_t c, int64_t d) {
  return ((a * s[1] + b) * s[2] + c) * s[3] + d;
}

void expect_d2s(const Host& x, int64_t b, const std::string& mode) {
  NodeGraph ng("DepthToSpace", 13);
  ng.in(x).out(x.desc.dtype).attr_i("blocksize", b).attr_s("mode", mode);
  const Dims s = x.shape();
  const int64_t oc = s[1] / (b * b);
  const Dims os{s[0], oc, s[2] * b, s[3] * b};
  expect_values(ng.run(gen())[0], os, [&](int64_t i) {
    const int64_t w = i % os[3], h = (i / os[3]) % os[2], c = (i / (os[3] * os[2])) % oc,
                  n = i / (os[3] * os[2] * oc);
    const int64_t bi = h % b, bj = w % b;
    const int64_t ic = mode == "DCR" ? (bi * b + bj) * oc + c : c * b * b + bi * b + bj;
    return x.at(at4(s, n, ic, h / b, w / b));
  });
}

void expect_s2d(const Host& x, int64_t b) {
  NodeGraph ng("SpaceToDepth", 13);
  ng.in(x).out(x.desc.dtype).attr_i("blocksize", b);
  const Dims s = x.shape();
  const Dims os{s[0], s[1] * b * b, s[2] / b, s[3] / b};
  expect_values(ng.run(gen())[0], os, [&](int64_t i) {
    const int64_t w = i % os[3], h = (i / os[3]) % os[2], oc = (i / (os[3] * os[2])) % os[1],
                  n = i / (os[3] * os[2] * os[1]);
    const int64_t c = oc % s[1], blk = oc / s[1], bi = blk / b, bj = blk % b;
    return x.at(at4(s, n, c, h * b + bi, w * b + bj));
  });
}

TEST(CpuGenericDepthToSpace, BothModesOverRandomShapes) {
  std::mt19937 rng(1);
  for (int trial = 0; trial < 24; ++trial) {
    const int64_t b = 1 + trial % 3;
    const Dims s{1 + trial % 2, b * b * (1 + trial % 3), 1 + trial % 4, 2 + trial % 3};
    const Host x = Host::random(DType::kFloat, s, rng);
    expect_d2s(x, b, trial % 2 ? "DCR" : "CRD");
    expect_d2s(x.strided({3, 1, 0, 2}), b, trial % 2 ? "CRD" : "DCR");
  }
}

TEST(CpuGenericSpaceToDepth, RandomShapesStridedAndDtypes) {
  std::mt19937 rng(2);
  for (int trial = 0; trial < 16; ++trial) {
    const int64_t b = 1 + trial % 3;
    const Dims s{1 + trial % 2, 1 + trial % 3, b * (1 + trial % 2), b * (2 + trial % 3)};
    const Host x = Host::random(DType::kFloat, s, rng);
    expect_s2d(x, b);
    expect_s2d(x.strided({2, 3, 0, 1}), b);
  }
  for (DType t : {DType::kInt8, DType::kUInt16, DType::kInt64, DType::kBool, DType::kFloat16,
                  DType::kBFloat16, DType::kDouble}) {
    const Host x = Host::random(t, {2, 3, 4, 6}, rng, 0, 9);
    expect_s2d(x, 2);
    expect_d2s(Host::random(t, {1, 8, 2, 3}, rng, 0, 9), 2, "CRD");
  }
}

TEST(CpuGenericDepthToSpace, ComplexElementsMoveWhole) {
  std::mt19937 rng(4);
  const Host parts = Host::random(DType::kFloat, {1, 4, 2, 3, 2}, rng);
  const Host x{row_major(DType::kComplex64, Dims{1, 4, 2, 3}), parts.bytes};
  NodeGraph ng("DepthToSpace", 13);
  ng.in(x).out(DType::kComplex64).attr_i("blocksize", 2).attr_s("mode", "CRD");
  const Host got = ng.run(gen())[0];
  const Host floats{row_major(DType::kFloat, Dims{1, 1, 4, 6, 2}), got.bytes};
  expect_values(floats, {1, 1, 4, 6, 2}, [&](int64_t i) {
    const int64_t part = i % 2, w = (i / 2) % 6, h = i / 12;
    const int64_t ic = (h % 2) * 2 + w % 2;
    return parts.at(((ic * 2 + h / 2) * 3 + w / 2) * 2 + part);
  });
}

TEST(CpuGenericDepthToSpace, UndoesSpaceToDepthInDcrMode) {
  std::mt19937 rng(3);
  const Host x = Host::random(DType::kFloat, {2, 3, 6, 4}, rng);
  NodeGraph s2d("SpaceToDepth", 13);
  s2d.in(x).out(DType::kFloat).attr_i("blocksize", 2);
  const Host y = s2d.run(gen())[0];
  NodeGraph d2s("DepthToSpace", 13);
  d2s.in(y).out(DType::kFloat).attr_i("blocksize", 2).attr_s("mode", "DCR");
  expect_values(d2s.run(gen())[0], x.shape(), [&](int64_t i) { return x.at(i); });
}

TEST(CpuGenericDepthToSpace, IndivisibleShapesAreErrors) {
  NodeGraph d("DepthToSpace", 13);
  d.in(Host::dense(DType::kFloat, {1, 6, 2, 2})).out(DType::kFloat).attr_i("blocksize", 2);
  expect_error(d, gen(), ErrorCode::kInvalidArgument, {"DepthToSpace", "6 channels"});
  NodeGraph s("SpaceToDepth", 13);
  s.in(Host::dense(DType::kFloat, {1, 1, 3, 4})).out(DType::kFloat).attr_i("blocksize", 2);
  expect_error(s, gen(), ErrorCode::kInvalidArgument, {"SpaceToDepth", "not multiples"});
  NodeGraph r("SpaceToDepth", 13);
  r.in(Host::dense(DType::kFloat, {4, 4})).out(DType::kFloat).attr_i("blocksize", 2);
  expect_error(r, gen(), ErrorCode::kInvalidArgument, {"4-D"});
  NodeGraph big("DepthToSpace", 13);
  big.in(Host::dense(DType::kFloat, {1, 4, 2, 2})).out(DType::kFloat).attr_i("blocksize", 1 << 30);
  ASSERT_TRUE(big.supports(gen()).has_value());
}

}  // namespace
}  // namespace geon::cpu::testing
