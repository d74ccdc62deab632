// The cuda set's assign-shaped kernels against cpu.generic: Identity over strided views, Cast
// between float, integer, bool and narrow floats (with saturate), CastLike, Transpose with and
// without perm, and both forms of Clip (one bound omitted included).
#include <gtest/gtest.h>

#include "tests/kernels/cuda/gpu_util.h"
#include "tests/kernels/cuda/set_harness.h"

namespace geon::cuda::testing {
namespace {

TEST(CudaSetAssign, IdentityCopiesStridedViews) {
  GEON_REQUIRE_CUDA();
  std::mt19937 rng(21);
  for (DType t : {DType::kFloat, DType::kInt64, DType::kBool, DType::kFloat16}) {
    NodeGraph ng("Identity", 16);
    ng.in(Host::random(t, {3, 4, 5}, rng, -5, 5).strided({1, 2, 0})).out(t, {3, 4, 5});
    expect_matches_cpu(ng, 0);
  }
}

TEST(CudaSetAssign, ScalarsAndEmptyTensorsPassThrough) {
  GEON_REQUIRE_CUDA();
  std::mt19937 rng(25);
  NodeGraph scalar("Identity", 16);
  scalar.in(Host::of(DType::kDouble, {}, {2.5})).out(DType::kDouble);
  expect_matches_cpu(scalar, 0);
  NodeGraph empty("Cast", 19);
  empty.in(Host::dense(DType::kFloat, {3, 0})).out(DType::kInt8, {3, 0});
  expect_matches_cpu(empty, 0);
}

TEST(CudaSetAssign, CastConvertsLikeTheCpu) {
  GEON_REQUIRE_CUDA();
  std::mt19937 rng(22);
  const std::pair<DType, DType> pairs[] = {
      {DType::kFloat, DType::kInt32},     {DType::kFloat, DType::kFloat16},
      {DType::kFloat, DType::kBool},      {DType::kInt64, DType::kFloat},
      {DType::kDouble, DType::kBFloat16}, {DType::kUInt8, DType::kInt8},
      {DType::kBool, DType::kFloat},      {DType::kInt32, DType::kUInt16},
  };
  for (const auto& [from, to] : pairs) {
    NodeGraph ng("Cast", 19);
    ng.in(Host::random(from, {6, 5}, rng, -300, 300).strided({1, 0}))
        .out(to, {6, 5})
        .attr_i("to", static_cast<int64_t>(to));
    expect_matches_cpu(ng, 0);
  }
  for (int saturate : {0, 1}) {
    NodeGraph ng("Cast", 19);
    ng.in(Host::random(DType::kFloat, {64}, rng, -1000, 1000))
        .out(DType::kFloat8E4M3FN, {64})
        .attr_i("saturate", saturate);
    expect_matches_cpu(ng, 0);
  }
  // Packed and 8-bit float destinations, round modes of e8m0.
  for (DType to : {DType::kInt4, DType::kUInt4, DType::kFloat4E2M1, DType::kFloat8E5M2,
                   DType::kFloat8E4M3FNUZ}) {
    NodeGraph ng("Cast", 23);
    ng.in(Host::random(DType::kFloat, {5, 3}, rng, -9, 9)).out(to, {5, 3});
    expect_matches_cpu(ng, 0);
  }
  for (const char* mode : {"up", "down", "nearest"}) {
    NodeGraph ng("Cast", 24);
    ng.in(Host::random(DType::kFloat, {16}, rng, 0.01, 100))
        .out(DType::kFloat8E8M0, {16})
        .attr_s("round_mode", mode);
    expect_matches_cpu(ng, 0);
  }
  NodeGraph like("CastLike", 15);
  like.in(Host::random(DType::kFloat, {4}, rng, -9, 9))
      .in(Host::dense(DType::kInt16, {1}))
      .out(DType::kInt16, {4});
  expect_matches_cpu(like, 0);
}

TEST(CudaSetAssign, TransposeAssignsAPermutedView) {
  GEON_REQUIRE_CUDA();
  std::mt19937 rng(23);
  const Host x = Host::random(DType::kFloat, {2, 3, 4, 5}, rng);
  {
    NodeGraph ng("Transpose", 13);
    ng.in(x).out(DType::kFloat, {4, 2, 5, 3}).attr_ints("perm", {2, 0, 3, 1});
    expect_matches_cpu(ng, 0);
  }
  {
    NodeGraph ng("Transpose", 13);  // no perm: the dims reversed
    ng.in(x.strided({3, 1, 0, 2})).out(DType::kFloat, {5, 4, 3, 2});
    expect_matches_cpu(ng, 0);
  }
  {
    NodeGraph ng("Transpose", 13);
    ng.in(Host::random(DType::kInt8, {7, 9}, rng, -9, 9)).out(DType::kInt8, {9, 7});
    expect_matches_cpu(ng, 0);
  }
}

TEST(CudaSetAssign, ClipWithAttributesAndInputs) {
  GEON_REQUIRE_CUDA();
  std::mt19937 rng(24);
  const Host x = Host::random(DType::kFloat, {5, 6}, rng, -4, 4);
  {
    NodeGraph ng("Clip", 6);
    ng.in(x).out(DType::kFloat, {5, 6}).attr_f("min", -1.5f).attr_f("max", 2.0f);
    expect_matches_cpu(ng, 0);
  }
  {
    NodeGraph ng("Clip", 6);  // only a lower bound
    ng.in(x).out(DType::kFloat, {5, 6}).attr_f("min", 0.25f);
    expect_matches_cpu(ng, 0);
  }
  {
    NodeGraph ng("Clip", 13);
    ng.in(x)
        .in(Host::of(DType::kFloat, {}, {-0.5}))
        .in(Host::of(DType::kFloat, {1}, {1.25}))
        .out(DType::kFloat, {5, 6});
    expect_matches_cpu(ng, 0);
  }
  {
    NodeGraph ng("Clip", 13);  // min omitted
    ng.in(Host::random(DType::kInt32, {8}, rng, -50, 50))
        .omitted()
        .in(Host::of(DType::kInt32, {}, {7}))
        .out(DType::kInt32, {8});
    expect_matches_cpu(ng, 0);
  }
}

}  // namespace
}  // namespace geon::cuda::testing
