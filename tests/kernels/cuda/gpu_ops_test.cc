// Needs a GPU (skipped elsewhere, with the reason): every op of the table on every compute
// type it has, on the GPU against the CPU engine on the same seeded cases; integer and bool
// results exactly, floating ones within tolerance_for (cases.h: a few float ulps, then the
// destination's own rounding). Also fused expressions, scalar operands and aliasing inputs.
#include <gtest/gtest.h>

#include <random>

#include "core/base/error.h"
#include "kernels/cuda/engine.h"
#include "kernels/cuda/stream.h"
#include "tests/kernels/cuda/cases.h"
#include "tests/kernels/cuda/gpu_util.h"

namespace geon::cuda {
namespace {

using namespace testing_views;
using namespace cuda::testing;

// Runs expr on the GPU over copies of `in`, into a copy of dst; returns the result.
Buffer on_gpu(const Expr& expr, const std::vector<Buffer>& in, const Buffer& dst,
              Reduce r = Reduce::kNone) {
  std::vector<std::unique_ptr<DeviceCopy>> din;
  std::vector<ConstOperand> ops;
  for (const Buffer& b : in) {
    din.push_back(std::make_unique<DeviceCopy>(b));
    ops.emplace_back(b.desc, din.back()->data());
  }
  DeviceCopy dd(dst);
  cuda::evaluate(expr, {dst.desc, dd.data()}, ops, r);
  return dd.download(dst);
}

Buffer on_cpu(const Expr& expr, std::vector<Buffer>& in, const Buffer& dst,
              Reduce r = Reduce::kNone) {
  std::vector<ConstOperand> ops;
  for (Buffer& b : in) ops.emplace_back(b.desc, b.data());
  Buffer out = dst;
  geon::evaluate(expr, {out.desc, out.data()}, ops, r);
  return out;
}

TEST(CudaGpuOps, EveryOpOfTheTableMatchesTheCpuEngine) {
  GEON_REQUIRE_CUDA();
  std::mt19937_64 rng(1234);
  int cases = 0;
  for (const OpDef& op : geon::all_ops()) {
    for (int ci = 0; ci < kComputeTypeCount; ++ci) {
      if (!op.fn[ci]) continue;
      for (int rep = 0; rep < 6; ++rep) {
        OpCase c = op_case(rng, op, kComputeTypes[ci], rep);
        if (rep % 2 == 0) {  // all in the compute type: the typed kernels
          for (size_t a = 0; a < c.in.size(); ++a)
            if (!(a == 0 && op.condition_first))
              c.in[a] = random_view(rng, kComputeTypes[ci], c.in[a].desc.shape);
          c.dst = random_view(rng, op.result == OpResult::kBool ? DType::kBool : kComputeTypes[ci],
                              c.dst.desc.shape);
          for (size_t a = 0; a < c.in.size(); ++a) c.expr.inputs[a] = c.in[a].desc.dtype;
        }
        const Buffer want = on_cpu(c.expr, c.in, c.dst);
        const Buffer got = on_gpu(c.expr, c.in, c.dst);
        expect_same_values(got, want, tolerance_for(c.dst.desc.dtype, false), c.what);
        ++cases;
      }
    }
  }
  EXPECT_GT(cases, 1000);
}

TEST(CudaGpuOps, FusedExpressionsAndScalarsMatchTheCpuEngine) {
  GEON_REQUIRE_CUDA();
  std::mt19937_64 rng(77);
  const char* ops[] = {"add", "sub", "mul", "max", "div", "squared_difference"};
  for (int rep = 0; rep < 200; ++rep) {
    const Dims loop = random_shape(rng, 3, 7);
    std::vector<Buffer> in{
        random_view(rng, DType::kFloat, loop),
        random_view(rng, storage_for(rng, DType::kFloat), broadcastable_shape(rng, loop))};
    const DType types[] = {in[0].desc.dtype, in[1].desc.dtype};
    ExprBuilder b(types);
    ExprArg v = b.apply(ops[rng() % 6], {b.input(0), b.input(1)}, {1.0, -0.5});
    v = b.apply("tanh", {v});
    v = b.apply(ops[rng() % 6], {v, b.input(0)});
    b.apply("where", {b.apply("greater", {v, b.input(1)}), v, b.input(1)});
    const Expr e = b.build();
    const Buffer dst = random_view(rng, storage_for(rng, DType::kFloat), loop);
    expect_same_values(on_gpu(e, in, dst), on_cpu(e, in, dst), tolerance_for(dst.desc.dtype, false),
                       "fused rep " + std::to_string(rep));
  }
  // A scalar operand travels in the kernel's parameters.
  std::vector<Buffer> x{random_view(rng, DType::kInt32, {5, 7})};
  const Buffer dst = random_view(rng, DType::kInt32, {5, 7});
  DeviceCopy dx(x[0]), dd(dst);
  cuda::binary("mul", {dst.desc, dd.data()}, {x[0].desc, dx.data()},
               ConstOperand::scalar(-3, DType::kInt32));
  Buffer want = dst;
  geon::binary("mul", {want.desc, want.data()}, {x[0].desc, x[0].data()},
               ConstOperand::scalar(-3, DType::kInt32));
  expect_same_values(dd.download(dst), want, 0, "scalar operand");
}

TEST(CudaGpuOps, InputsOverlappingTheDestinationAreReadBeforeItIsWritten) {
  GEON_REQUIRE_CUDA();
  // y[1:] = y[:-1] + 1 over one storage: the CPU engine copies the input first; so must CUDA.
  Buffer y;
  y.desc = row_major(DType::kInt64, std::vector<int64_t>{1000});
  y.bytes.resize(1000 * 8);
  for (int64_t i = 0; i < 1000; ++i) reinterpret_cast<int64_t*>(y.bytes.data())[i] = i * i;
  TensorDesc head = y.desc, tail = y.desc;
  head.shape = tail.shape = {999};
  tail.offset = 1;
  Buffer want = y;
  geon::binary("add", {tail, want.data()}, {head, want.data()},
               ConstOperand::scalar(1, DType::kInt64));
  DeviceCopy dy(y);
  cuda::binary("add", {tail, dy.data()}, {head, dy.data()}, ConstOperand::scalar(1, DType::kInt64));
  EXPECT_EQ(dy.download(y).bytes, want.bytes);
  // The very same view in place needs no copy and gives the same result.
  cuda::unary("neg", {y.desc, dy.data()}, {y.desc, dy.data()});
  geon::unary("neg", {y.desc, want.data()}, {y.desc, want.data()});
  EXPECT_EQ(dy.download(y).bytes, want.bytes);
}

TEST(CudaGpuOps, PassesQueueOnTheCallersStream) {
  GEON_REQUIRE_CUDA();
  std::mt19937_64 rng(12);
  const Dims shape = {300, 301};
  std::vector<Buffer> in{random_view(rng, DType::kFloat, shape),
                         random_view(rng, DType::kFloat, {301})};
  const Buffer dst = random_view(rng, DType::kFloat, {300, 1});
  const DType types[] = {DType::kFloat, DType::kFloat};
  ExprBuilder b(types);
  b.apply("mul", {b.input(0), b.input(1)});
  const Expr e = b.build();
  Stream stream(0);
  DeviceCopy dx(in[0]), dy(in[1]), dd(dst);
  const std::vector<ConstOperand> ops{{in[0].desc, dx.data()}, {in[1].desc, dy.data()}};
  cuda::evaluate(e, {dst.desc, dd.data()}, ops, Reduce::kMean, stream.options());
  stream.synchronize();
  expect_same_values(dd.download(dst), on_cpu(e, in, dst, Reduce::kMean),
                     tolerance_for(DType::kFloat, false), "mean of products on a stream");
}

TEST(CudaGpuOps, ExpressionsBeyondTheNodeLimitAreRefusedWithAReason) {
  GEON_REQUIRE_CUDA();
  const DType f = DType::kFloat;
  ExprBuilder b(std::span<const DType>(&f, 1));
  ExprArg v = b.input(0);
  for (int i = 0; i < 17; ++i) v = b.apply("neg", {v});
  float x = 1, y = 0;
  try {
    cuda::evaluate(b.build(), {row_major(f, {}), &y},
                   std::vector<ConstOperand>{{row_major(f, {}), &x}});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotSupported) << e.what();
  }
}

}  // namespace
}  // namespace geon::cuda
