// The Winograd path of cpu.dnnl's convolution (3x3, unit strides, 64 to 128 channels, constant
// weights: see winograd_candidate in conv_core.cc) against the naive loop: split by images and
// by rows, with and without bias, with activations and a residual, through odd src/dst views and
// channels-last intermediates of a compiled graph; the layers it must leave to the direct kernels;
// and, on AVX-512 machines, that it is the path taken.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>

#include <cstring>

#include <dnnl.hpp>

#include "core/engine/thread_pool.h"
#include "core/passes/select_layouts.h"
#include "core/runtime/executor.h"
#include "kernels/cpu/dnnl/conv_core.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/dnnl/conv_reference.h"
#include "tests/kernels/cpu/graph_builder.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

// oneDNN 2.6 has Winograd convolutions for AVX-512 (avx512_core) only.
bool winograd_expected() {
  return dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core &&
         std::getenv("GEON_WINOGRAD") == nullptr;
}

struct Layer {
  Dims x;  // (N, C, H, W)
  int64_t m = 64;
  Dims strides = {1, 1}, pads = {1, 1, 1, 1};
  bool bias = true;
  std::string activation;  // FusedConv's, "" for Conv
  bool residual = false;   // FusedConv's Z
  Dims x_perm;             // X's storage order ({}: row-major; Y is always row-major here)
  int64_t bad_at = -1;     // X's element (row-major index) set to `bad`, if any
  float bad = std::numeric_limits<float>::quiet_NaN();
};

Layer layer(Dims x, int64_t m, Dims strides = {1, 1}) {
  Layer l;
  l.x = std::move(x);
  l.m = m;
  l.strides = std::move(strides);
  return l;
}

Dims out_shape(const Layer& l) {
  Dims o = {l.x[0], l.m};
  for (int i = 0; i < 2; ++i)
    o.push_back((l.x[i + 2] + l.pads[i] + l.pads[i + 2] - 3) / l.strides[i] + 1);
  return o;
}

// Runs the layer (constant W and B) on `threads` engine threads and checks it against the
// naive loop; returns how many Winograd primitives the run made.
int64_t run_layer(const Layer& l, int threads, uint32_t seed) {
  std::mt19937 rng(seed);
  const Dims out = out_shape(l);
  Host x = Host::random(DType::kFloat, l.x, rng);
  if (l.bad_at >= 0) x.set(l.bad_at, l.bad);
  if (!l.x_perm.empty()) x = x.strided(l.x_perm);
  // ResNet-like scales: weights ~ 1/sqrt(fan-in), so outputs are O(1) and the comparison
  // below is about the algorithm, not about sums of large terms.
  Host w = Host::random(DType::kFloat, {l.m, l.x[1], 3, 3}, rng);
  const double scale = 1 / std::sqrt(9.0 * static_cast<double>(l.x[1]));
  for (int64_t i = 0; i < element_count(w.shape()); ++i)
    w.set(i, static_cast<float>(w.at(i) * scale));
  const Host b = Host::random(DType::kFloat, {l.m}, rng);
  const Host z = Host::random(DType::kFloat, out, rng);
  const bool fused = !l.activation.empty() || l.residual;
  NodeGraph ng(fused ? "FusedConv" : "Conv", fused ? 1 : 11);
  if (fused) ng.node->domain = "geon";
  ng.in(x).in(w, true);
  if (l.bias || l.residual) ng.in(b, true);  // FusedConv's Z comes after B
  if (l.residual) ng.in(z);
  ng.out(DType::kFloat, out).attr_ints("pads", l.pads).attr_ints("strides", l.strides);
  if (!l.activation.empty()) ng.attr_s("activation", l.activation);
  EXPECT_EQ(ng.supports(dnnl_kernels()), std::nullopt);

  ThreadPool pool(threads);
  ScopedPool scope(&pool);
  const int64_t before = dnnl_conv_winograd_primitives();
  const auto kernel = find_kernel(dnnl_kernels(), *ng.node)->create(ng.g, *ng.node);
  const auto want = conv_reference(x, w, l.bias || l.residual ? &b : nullptr, out,
                                   ConvRef{l.strides, {}, {l.pads[0], l.pads[1]}, 1, false});
  for (int r = 0; r < 2; ++r) {  // the second run reuses the primitives and weights
    SCOPED_TRACE(r);
    std::vector<Host> inputs = {x, w};
    if (l.bias || l.residual) inputs.push_back(b);
    if (l.residual) inputs.push_back(z);
    FakeContext ctx(inputs, {DType::kFloat});
    kernel->compute(ctx);
    const Host got = ctx.result(0);
    double worst = 0;
    for (int64_t i = 0; i < element_count(out); ++i) {
      const double sum = want[i] + (l.residual ? z.at(i) : 0.0);
      const double v = l.activation == "Relu" ? std::max(sum, 0.0) : sum;
      // ONNX's conformance tolerance (rtol 1e-3, atol 1e-7) on every element is too tight
      // for sums of hundreds of products near zero in any float algorithm; the error against
      // the output's scale (here O(1)) is what tells a Winograd transform from a wrong one.
      // NaN exactly where the naive loop has it (the windows that read a NaN input).
      const double err = std::abs(got.at(i) - v);
      if (std::isnan(v) ? !std::isnan(got.at(i)) : !(err <= 1e-4 + 1e-3 * std::abs(v))) {
        ADD_FAILURE() << "at " << i << ": " << got.at(i) << " against " << v;
        break;
      }
      if (!std::isnan(v)) worst = std::max(worst, err / std::max(1.0, std::abs(v)));
    }
    EXPECT_LT(worst, 1e-4);
  }
  return dnnl_conv_winograd_primitives() - before;
}

TEST(DnnlConvWinograd, ImagesSplitAcrossThreadsMatchTheNaiveLoop) {
  const int64_t made = run_layer(layer({4, 64, 12, 12}, 64), 2, 1);
  if (winograd_expected()) {
    EXPECT_GT(made, 0);
  }
}

// A NaN in one image: that image's block runs the direct primitive (Winograd's transforms would
// spread it over whole tiles and beyond), so only the outputs whose windows read it are NaN;
// the other image keeps Winograd.
TEST(DnnlConvWinograd, NaNInOneImageStaysInTheWindowsThatReadIt) {
  Layer l = layer({2, 64, 12, 12}, 64);
  l.bad_at = 5 * 144 + 6 * 12 + 7;  // image 0, channel 5, at (6, 7)
  const int64_t declines = dnnl_conv_winograd_declines();
  const int64_t made = run_layer(l, 2, 3);
  if (winograd_expected()) {
    EXPECT_GT(made, 0);
    EXPECT_EQ(dnnl_conv_winograd_declines() - declines, 2);  // image 0's block in both runs
  }
}

// The same for a finite value large enough for the transforms to overflow (to +-inf, then NaN
// where terms of both signs meet): 3e37 is 1e36 or so in the outputs that read it, far inside
// float's range for the direct primitive, but past it once the input transform scales it by
// up to 25.
TEST(DnnlConvWinograd, AHugeFiniteInputInOneImageStaysInTheWindowsThatReadIt) {
  Layer l = layer({2, 64, 12, 12}, 64);
  l.bad_at = 5 * 144 + 6 * 12 + 7;
  l.bad = 3e37f;
  const int64_t declines = dnnl_conv_winograd_declines();
  const int64_t made = run_layer(l, 2, 3);
  if (winograd_expected()) {
    EXPECT_GT(made, 0);
    EXPECT_EQ(dnnl_conv_winograd_declines() - declines, 2);
  }
}

TEST(DnnlConvWinograd, RowsOfOneImageSplitAcrossThreadsMatchTheNaiveLoop) {
  // 17 rows: two blocks of 9 and 8, each with one pad oneDNN adds and one it reads.
  const int64_t made = run_layer(layer({1, 128, 17, 20}, 128), 2, 2);
  if (winograd_expected()) {
    EXPECT_GT(made, 0);
  }
}

TEST(DnnlConvWinograd, WithoutBiasWithReluAndAsymmetricPads) {
  Layer l = layer({2, 64, 11, 9}, 96);
  l.bias = false;
  l.activation = "Relu";
  l.pads = {0, 1, 1, 0};
  const int64_t made = run_layer(l, 1, 3);
  if (winograd_expected()) {
    EXPECT_GT(made, 0);
  }
}

// ResNet-18's second convolution of a basic block: the residual (FusedConv's Z) reordered into
// the blocked dst for the sum post-op, then ReLU; by images and by rows.
TEST(DnnlConvWinograd, ResidualIsAddedThroughTheBlockedDestination) {
  for (const Dims& x : {Dims{2, 64, 12, 12}, Dims{1, 128, 15, 14}}) {
    SCOPED_TRACE(std::to_string(x[0]) + " images");
    Layer l = layer(x, x[1]);
    l.activation = "Relu";
    l.residual = true;
    const int64_t made = run_layer(l, 2, 7);
    if (winograd_expected()) {
      EXPECT_GT(made, 0);
    }
  }
}

TEST(DnnlConvWinograd, OddSourceViewGoesThroughACopy) {
  Layer l = layer({2, 64, 10, 10}, 64);
  l.x_perm = {3, 1, 2, 0};  // W-major storage: copied to channels-last first
  const int64_t made = run_layer(l, 2, 4);
  if (winograd_expected()) {
    EXPECT_GT(made, 0);
  }
}

TEST(DnnlConvWinograd, OtherLayersKeepTheDirectKernels) {
  // Strided, too few or too many channels, or channels not a multiple of 16.
  for (const Layer& l : {layer({1, 64, 12, 12}, 64, {2, 2}), layer({1, 32, 12, 12}, 64),
                         layer({1, 64, 8, 8}, 256), layer({1, 72, 8, 8}, 64)}) {
    SCOPED_TRACE(std::to_string(l.x[1]) + " -> " + std::to_string(l.m) + " channels, stride " +
                 std::to_string(l.strides[0]));
    EXPECT_EQ(run_layer(l, 1, 5), 0);
  }
}

// Each thread running a part has its own Winograd scratchpad (~7 MB for the parts of 4 rows
// here, less for some shapes oneDNN gives its smaller F(2x2,3x3)): with 12 threads the parts
// whose scratchpads pass the budget stay direct, so memory does not grow with the core count;
// with 2 none does.
TEST(DnnlConvWinograd, ManyThreadsLeaveLargeScratchpadsToTheDirectKernels) {
  const Layer l = layer({1, 64, 48, 16}, 64);
  int64_t before = dnnl_conv_winograd_refusals();
  run_layer(l, 12, 8);
  if (winograd_expected()) {
    EXPECT_GT(dnnl_conv_winograd_refusals(), before);
  }
  before = dnnl_conv_winograd_refusals();
  const int64_t made = run_layer(l, 2, 9);
  EXPECT_EQ(dnnl_conv_winograd_refusals(), before);
  if (winograd_expected()) {
    EXPECT_GT(made, 0);
  }
}

// Conv -> Relu -> Conv compiled with channels-last intermediates: the first convolution writes
// its dst in place through the blocked layout's reorder, the second reads one.
TEST(DnnlConvWinograd, ChannelsLastIntermediatesOfACompiledGraph) {
  std::mt19937 rng(6);
  const Dims xs{1, 64, 13, 11}, ws{64, 64, 3, 3};
  const auto values = [&](int64_t n, double scale) { return uniform_values(rng, n, scale); };
  const double scale = 1 / std::sqrt(9.0 * 64);
  const Host x = Host::of(DType::kFloat, xs, values(element_count(xs), 1));
  const Host w1 = Host::of(DType::kFloat, ws, values(element_count(ws), scale));
  const Host w2 = Host::of(DType::kFloat, ws, values(element_count(ws), scale));
  const Host b1 = Host::of(DType::kFloat, {64}, values(64, 1));

  Builder b;
  const auto as_doubles = [](const Host& h) {
    std::vector<double> v(static_cast<size_t>(element_count(h.shape())));
    for (size_t i = 0; i < v.size(); ++i) v[i] = h.at(static_cast<int64_t>(i));
    return v;
  };
  const int xi = b.input("x", DType::kFloat, xs);
  const int w1i = b.constant("w1", DType::kFloat, ws, as_doubles(w1));
  const int b1i = b.constant("b1", DType::kFloat, {64}, as_doubles(b1));
  const int w2i = b.constant("w2", DType::kFloat, ws, as_doubles(w2));
  Attribute pads;
  pads.kind = Attribute::Kind::kInts;
  pads.ints = {1, 1, 1, 1};
  const int c1 = b.node("Conv", {xi, w1i, b1i}, DType::kFloat, xs);
  b.g.nodes.back().attrs["pads"] = pads;
  const int r = b.node("Relu", {c1}, DType::kFloat, xs);
  const int y = b.node("Conv", {r, w2i}, DType::kFloat, xs);
  b.g.nodes.back().attrs["pads"] = pads;
  b.g.outputs = {y};
  ASSERT_EQ(select_layouts(b.g), 2);
  const auto g = std::make_shared<Graph>(std::move(b.g));

  ThreadPool pool(2);
  ScopedPool scope(&pool);
  const KernelSet* sets[] = {&dnnl_kernels(), &generic_kernels()};
  const int64_t before = dnnl_conv_winograd_primitives();
  auto exe = Executable::compile(g, sets);
  std::vector<float> xf(static_cast<size_t>(element_count(xs)));
  for (size_t i = 0; i < xf.size(); ++i) xf[i] = static_cast<float>(x.at(static_cast<int64_t>(i)));
  TensorRef in{row_major(DType::kFloat, xs), xf.data(), Device{}};
  const int outputs[] = {0};
  const auto out = exe->run({&in, 1}, outputs);
  if (winograd_expected()) {
    EXPECT_GT(dnnl_conv_winograd_primitives() - before, 0);
  }

  const ConvRef same{{1, 1}, {}, {1, 1}, 1, false};
  std::vector<double> mid = conv_reference(x, w1, &b1, xs, same);
  for (double& v : mid) v = std::max(v, 0.0);
  const Host mid_host = Host::of(DType::kFloat, xs, mid);
  const std::vector<double> want = conv_reference(mid_host, w2, nullptr, xs, same);
  std::vector<float> got(want.size());
  std::memcpy(got.data(), out[0].data(), got.size() * sizeof(float));
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4 + 1e-3 * std::abs(want[i])) << i;
}

}  // namespace
}  // namespace geon::cpu::testing
