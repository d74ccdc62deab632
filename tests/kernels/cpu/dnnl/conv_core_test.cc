// DnnlConv's constant weights when the thread count at run time differs from the one at kernel
// creation (a session's intra_op_threads): oneDNN's fast implementations want other weights
// layouts per thread count, so a run must get them (reordered once, then kept) instead of a
// reference implementation forced onto the construction's layout. Conv and ConvTranspose; and
// how one image is split across the pool.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/dnnl/conv_core.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/dnnl/conv_reference.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

struct Layer {
  std::string op;  // "Conv" or "ConvTranspose"
  Dims x, w, out, pads, strides;
};

// Creates the layer's kernel (constant W and B) with `create_threads` engine threads, runs it
// twice with `run_threads` (0: the process default pool for either), and checks both results
// against the naive reference, that no reference oneDNN implementation was made for it, and
// that the second run reorders no weights.
void expect_across_thread_counts(const Layer& l, int create_threads, int run_threads,
                                 uint32_t seed) {
  std::mt19937 rng(seed);
  const Host x = Host::random(DType::kFloat, l.x, rng), w = Host::random(DType::kFloat, l.w, rng);
  const Host b = Host::random(DType::kFloat, {l.out[1]}, rng);
  NodeGraph ng(l.op, 11);
  ng.in(x).in(w, true).in(b, true).out(DType::kFloat, l.out);
  ng.attr_ints("pads", l.pads).attr_ints("strides", l.strides);
  ASSERT_EQ(ng.supports(dnnl_kernels()), std::nullopt);

  const auto scoped = [](int threads) {
    return threads > 0 ? std::make_unique<ThreadPool>(threads) : nullptr;
  };
  const auto create_pool = scoped(create_threads), run_pool = scoped(run_threads);
  const int64_t refs = dnnl_conv_reference_primitives();
  std::unique_ptr<Kernel> kernel;
  {
    ScopedPool scope(create_pool.get());
    kernel = find_kernel(dnnl_kernels(), *ng.node)->create(ng.g, *ng.node);
  }
  const Dims pad_begin(l.pads.begin(), l.pads.begin() + static_cast<int64_t>(l.strides.size()));
  const auto want =
      conv_reference(x, w, &b, l.out, ConvRef{l.strides, {}, pad_begin, 1, l.op != "Conv"});
  ScopedPool scope(run_pool.get());
  int64_t repacks_after_first = 0;
  for (int r = 0; r < 2; ++r) {
    SCOPED_TRACE(r);
    FakeContext ctx({x, w, b}, {DType::kFloat});
    kernel->compute(ctx);
    // Sums of up to 2304 float products: ONNX's rtol, not the small layers' 1e-4.
    expect_values(
        ctx.result(0), l.out, [&](int64_t i) { return want[i]; }, 1e-3);
    if (r == 0) repacks_after_first = dnnl_conv_weight_repacks();
  }
  EXPECT_EQ(dnnl_conv_weight_repacks(), repacks_after_first) << "the steady state reorders W";
  EXPECT_EQ(dnnl_conv_reference_primitives(), refs) << "a reference oneDNN implementation ran";
}

// ResNet-50's layer4.0 conv1: brgconv_1x1 takes Acdb64a weights with 2 threads and Acdb48a
// with 1, and refused the other, which left ref:any (seconds instead of milliseconds).
const Layer kPointwise{"Conv",           {1, 1024, 14, 14}, {512, 1024, 1, 1},
                       {1, 512, 14, 14}, {0, 0, 0, 0},      {1, 1}};
const Layer k3x3{"Conv",           {1, 256, 14, 14}, {256, 256, 3, 3},
                 {1, 256, 14, 14}, {1, 1, 1, 1},     {1, 1}};
const Layer kTranspose{"ConvTranspose",  {1, 256, 7, 7}, {256, 128, 3, 3},
                       {1, 128, 13, 13}, {1, 1, 1, 1},   {2, 2}};

TEST(DnnlConvThreads, PointwiseConvMadeWithMoreThreadsRunsFastWithOne) {
  expect_across_thread_counts(kPointwise, 0, 1, 1);
}

TEST(DnnlConvThreads, PointwiseConvMadeWithOneThreadRunsFastWithMore) {
  expect_across_thread_counts(kPointwise, 1, 0, 2);
  expect_across_thread_counts(kPointwise, 1, 3, 3);
}

TEST(DnnlConvThreads, SpatialConvAcrossThreadCounts) {
  expect_across_thread_counts(k3x3, 0, 1, 4);
  expect_across_thread_counts(k3x3, 1, 2, 5);
}

TEST(DnnlConvThreads, ConvTransposeAcrossThreadCounts) {
  expect_across_thread_counts(kTranspose, 0, 1, 6);
  expect_across_thread_counts(kTranspose, 1, 2, 7);
}

// One kernel serving runs of two thread counts keeps a primitive (and a weights layout) for
// each: alternating between them reorders no weights after the first run of each.
TEST(DnnlConvThreads, AlternatingThreadCountsReorderWeightsOncePerLayout) {
  std::mt19937 rng(8);
  const Layer& l = kPointwise;
  const Host x = Host::random(DType::kFloat, l.x, rng), w = Host::random(DType::kFloat, l.w, rng);
  NodeGraph ng(l.op, 11);
  ng.in(x).in(w, true).out(DType::kFloat, l.out);
  const auto kernel = find_kernel(dnnl_kernels(), *ng.node)->create(ng.g, *ng.node);
  const auto want = conv_reference(x, w, nullptr, l.out, ConvRef{{1, 1}, {}, {0, 0}, 1, false});
  ThreadPool one(1), two(2);
  const int64_t refs = dnnl_conv_reference_primitives();
  int64_t repacks = 0;
  for (int r = 0; r < 6; ++r) {
    SCOPED_TRACE(r);
    ScopedPool scope(r % 2 ? &one : &two);
    FakeContext ctx({x, w}, {DType::kFloat});
    kernel->compute(ctx);
    expect_values(
        ctx.result(0), l.out, [&](int64_t i) { return want[i]; }, 1e-4);
    if (r == 1) repacks = dnnl_conv_weight_repacks();
  }
  EXPECT_EQ(dnnl_conv_weight_repacks(), repacks);
  EXPECT_EQ(dnnl_conv_reference_primitives(), refs);
}

// One image of a pointwise convolution splits by pixels (49 into 25 and 24) through a view of
// its 7x7 maps as one row of 49 pixels: X, Y and Z channels-last or row-major take the view, a
// layout whose rows and columns do not merge (W-major storage) splits by rows; each matches the
// naive loop, and none ends in oneDNN's reference code (a column of 49 pixels does).
TEST(DnnlConvThreads, PointwiseConvOfOneImageSplitsByPixelsWithResidual) {
  std::mt19937 rng(9);
  const Dims xs{1, 320, 7, 7}, ws{640, 320, 1, 1}, out{1, 640, 7, 7};
  const Host x = Host::random(DType::kFloat, xs, rng), w = Host::random(DType::kFloat, ws, rng);
  const Host b = Host::random(DType::kFloat, {out[1]}, rng);
  const Host z = Host::random(DType::kFloat, out, rng);
  const auto conv = conv_reference(x, w, &b, out, ConvRef{{1, 1}, {}, {0, 0}, 1, false});
  ThreadPool two(2);
  ScopedPool scope(&two);
  const int64_t refs = dnnl_conv_reference_primitives();
  for (const std::vector<int64_t>& perm :
       {std::vector<int64_t>{0, 2, 3, 1}, {0, 1, 2, 3}, {0, 1, 3, 2}}) {
    SCOPED_TRACE(::testing::PrintToString(perm));
    const Host xv = x.strided(perm), zv = z.strided(perm);
    NodeGraph ng("FusedConv", 1);
    ng.node->domain = "geon";
    ng.in(xv).in(w, true).in(b, true).in(zv).out(DType::kFloat, out);
    ng.attr_ints("pads", {0, 0, 0, 0}).attr_ints("strides", {1, 1});
    ng.attr_s("activation", "Relu");
    ASSERT_EQ(ng.supports(dnnl_kernels()), std::nullopt);
    const auto got = ng.run(dnnl_kernels());
    expect_values(
        got[0], out, [&](int64_t i) { return std::max(conv[i] + z.at(i), 0.0); }, 1e-3);
  }
  EXPECT_EQ(dnnl_conv_reference_primitives(), refs) << "a reference oneDNN implementation ran";
}

}  // namespace
}  // namespace geon::cpu::testing
