// Needs a GPU (skipped elsewhere, with the reason): reductions into smaller destinations on the
// GPU against the CPU engine (integers exactly, floats within tolerance: the GPU adds in another
// order, in double), the fused L2 example, bit-identical results run after run, and repeated
// runs that take every scratch buffer from the pool without calling cudaMalloc.
#include <gtest/gtest.h>

#include <random>

#include "kernels/cuda/engine.h"
#include "tests/kernels/cuda/cases.h"
#include "tests/kernels/cuda/gpu_util.h"

namespace geon::cuda {
namespace {

using namespace testing_views;
using namespace cuda::testing;

Dims reduced_shape(std::mt19937_64& rng, const Dims& loop) {
  Dims s = loop;
  for (auto& len : s) {
    const int pick = static_cast<int>(rng() % 3);
    if (pick == 1) len = 1;
    if (pick == 2 && len % 2 == 0) len /= 2;
  }
  return s;
}

TEST(CudaGpuReduce, ReductionsMatchTheCpuEngine) {
  GEON_REQUIRE_CUDA();
  std::mt19937_64 rng(99);
  const Reduce kinds[] = {Reduce::kSum, Reduce::kMean, Reduce::kMax, Reduce::kMin, Reduce::kProd};
  const DType types[] = {DType::kFloat, DType::kDouble,  DType::kInt32, DType::kInt64,
                         DType::kUInt8, DType::kFloat16, DType::kBool};
  for (int rep = 0; rep < 400; ++rep) {
    const Reduce r = kinds[rng() % 5];
    const DType t = types[rng() % 7];
    Dims loop = random_shape(rng, 4, 6);
    if (r == Reduce::kProd && element_count(loop) > 12) loop = {3, 4};
    if (rep % 25 == 0) loop = {3, 70000};
    if (rep % 40 == 0) loop = {3, 0};
    Buffer src = random_view(rng, t, loop);
    const Buffer dst =
        random_view(rng, t == DType::kBool ? DType::kInt32 : t, reduced_shape(rng, loop));
    Buffer want = dst;
    geon::reduce(r, {want.desc, want.data()}, {src.desc, src.data()});
    DeviceCopy ds(src), dd(dst);
    cuda::reduce(r, {dst.desc, dd.data()}, {src.desc, ds.data()});
    const bool exact = r == Reduce::kMax || r == Reduce::kMin || !is_floating(t);
    expect_same_values(dd.download(dst), want, exact ? 0 : tolerance_for(t, false),
                       "reduce " + std::to_string(static_cast<int>(r)) + " " +
                           std::string(dtype_name(t)) + " " + to_string(src.desc) + " into " +
                           to_string(dst.desc));
  }
}

Expr l2_expression() {
  const DType types[] = {DType::kFloat, DType::kFloat};
  ExprBuilder b(types);
  const ExprArg d = b.apply("sub", {b.input(0), b.input(1)});
  b.apply("mul", {d, d});
  return b.build();
}

TEST(CudaGpuReduce, FusedL2IsDeterministicAndMatchesTheCpu) {
  GEON_REQUIRE_CUDA();
  std::mt19937_64 rng(5);
  const Dims n = {(int64_t{1} << 22) + 3};
  std::vector<Buffer> in{random_view(rng, DType::kFloat, n), random_view(rng, DType::kFloat, n)};
  in[0].desc = in[1].desc = row_major(DType::kFloat, n);
  const Expr e = l2_expression();
  float want = 0;
  std::vector<ConstOperand> cpu{{in[0].desc, in[0].data()}, {in[1].desc, in[1].data()}};
  geon::evaluate(e, {row_major(DType::kFloat, {}), &want}, cpu, Reduce::kSum);
  DeviceCopy dx(in[0]), dy(in[1]);
  Buffer out;
  out.desc = row_major(DType::kFloat, {});
  out.bytes.resize(16);
  DeviceCopy dout(out);
  const std::vector<ConstOperand> gpu{{in[0].desc, dx.data()}, {in[1].desc, dy.data()}};
  float first = 0;
  for (int run = 0; run < 5; ++run) {
    cuda::evaluate(e, {out.desc, dout.data()}, gpu, Reduce::kSum);
    float got = 0;
    ASSERT_EQ(cudaMemcpy(&got, dout.data(), 4, cudaMemcpyDeviceToHost), cudaSuccess);
    if (run == 0) first = got;
    EXPECT_EQ(got, first) << "run " << run;
  }
  EXPECT_NEAR(first, want, 1e-5 * want);
}

TEST(CudaGpuReduce, RepeatedRunsAreBitIdenticalAndDoNotCallCudaMalloc) {
  GEON_REQUIRE_CUDA();
  std::mt19937_64 rng(6);
  struct Case {
    Dims loop, dst;
  };
  const Case cases[] = {
      {{1 << 20}, {}}, {{512, 999}, {512, 1}}, {{999, 512}, {1, 512}}, {{64, 64, 64}, {64, 1, 64}}};
  for (const Case& c : cases) {
    Buffer src = random_view(rng, DType::kFloat, c.loop);
    const Buffer dst = random_view(rng, DType::kFloat, c.dst);
    DeviceCopy ds(src), dd(dst);
    std::vector<std::byte> first;
    int64_t mallocs = 0;
    for (int run = 0; run < 4; ++run) {
      cuda::reduce(Reduce::kSum, {dst.desc, dd.data()}, {src.desc, ds.data()});
      const Buffer got = dd.download(dst);
      if (run == 0) first = got.bytes;
      EXPECT_EQ(got.bytes, first) << to_string(src.desc) << " run " << run;
      if (run == 1) mallocs = allocator(0).stats().device_allocations;
      if (run > 1) {
        EXPECT_EQ(allocator(0).stats().device_allocations, mallocs);
      }
    }
  }
}

}  // namespace
}  // namespace geon::cuda
