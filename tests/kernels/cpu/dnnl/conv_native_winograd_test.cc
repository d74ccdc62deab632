// cpu.dnnl's convolution on AVX2 machines without AVX-512, where 3x3 layers with channels-last
// views run geon's own Winograd kernel (native/winograd_conv.h): a compiled chain of three
// convolutions whose middle one reads and writes channels-last intermediates takes it and
// matches the naive loop; a non-finite input, which that kernel declines, still gives the
// direct algorithm's answer (NaN only in the windows that read it), through the oneDNN path
// that replaces the direct kernel such layers do not make.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "core/engine/thread_pool.h"
#include "core/passes/select_layouts.h"
#include "core/runtime/executor.h"
#include "kernels/cpu/kernel_sets.h"
#include "kernels/cpu/native/cpu_isa.h"
#include "kernels/cpu/native/winograd_conv.h"
#include "tests/kernels/cpu/dnnl/conv_reference.h"
#include "tests/kernels/cpu/graph_builder.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

bool native_winograd_expected() {
  return native_kernels_preferred() && std::getenv("GEON_WINOGRAD") == nullptr;
}

// x -> Conv(W1, B1) -> Conv(W2) -> Conv(W3), all 3x3 with pads 1 on (1, 64, 20, 20) (25 tiles
// of 4x4); `bad` input elements set to the given values. Checks the output against
// conv_reference, NaN and infinities where the reference has them, and returns the native
// Winograd runs. (No Relu between: fused into a convolution, oneDNN's turns NaN into 0.)
int64_t run_chain(const std::vector<std::pair<int64_t, float>>& bad, uint32_t seed) {
  std::mt19937 rng(seed);
  const Dims xs{1, 64, 20, 20}, ws{64, 64, 3, 3};
  const auto values = [&](int64_t n, double scale) { return uniform_values(rng, n, scale); };
  const double scale = 1 / std::sqrt(9.0 * 64);
  std::vector<double> xv = values(element_count(xs), 1);
  for (const auto& [at, v] : bad) xv[static_cast<size_t>(at)] = v;
  const std::vector<double> w1 = values(element_count(ws), scale);
  const std::vector<double> w2 = values(element_count(ws), scale);
  const std::vector<double> w3 = values(element_count(ws), scale);
  const std::vector<double> b1 = values(64, 1);

  Builder b;
  const int xi = b.input("x", DType::kFloat, xs);
  Attribute pads;
  pads.kind = Attribute::Kind::kInts;
  pads.ints = {1, 1, 1, 1};
  const int c1 = b.node(
      "Conv",
      {xi, b.constant("w1", DType::kFloat, ws, w1), b.constant("b1", DType::kFloat, {64}, b1)},
      DType::kFloat, xs);
  b.g.nodes.back().attrs["pads"] = pads;
  const int c2 = b.node("Conv", {c1, b.constant("w2", DType::kFloat, ws, w2)}, DType::kFloat, xs);
  b.g.nodes.back().attrs["pads"] = pads;
  const int y = b.node("Conv", {c2, b.constant("w3", DType::kFloat, ws, w3)}, DType::kFloat, xs);
  b.g.nodes.back().attrs["pads"] = pads;
  b.g.outputs = {y};
  select_layouts(b.g);
  const auto g = std::make_shared<Graph>(std::move(b.g));

  ThreadPool pool(2);
  ScopedPool scope(&pool);
  const KernelSet* sets[] = {&dnnl_kernels(), &generic_kernels()};
  auto exe = Executable::compile(g, sets);
  std::vector<float> xf(xv.begin(), xv.end());
  TensorRef in{row_major(DType::kFloat, xs), xf.data(), Device{}};
  const int outputs[] = {0};
  const int64_t before = winograd_conv_runs();
  const auto out = exe->run({&in, 1}, outputs);
  const int64_t runs = winograd_conv_runs() - before;

  const ConvRef same{{1, 1}, {}, {1, 1}, 1, false};
  const Host wh1 = Host::of(DType::kFloat, ws, w1), wh2 = Host::of(DType::kFloat, ws, w2);
  const Host wh3 = Host::of(DType::kFloat, ws, w3), bh1 = Host::of(DType::kFloat, {64}, b1);
  const auto mid1 = conv_reference(Host::of(DType::kFloat, xs, xv), wh1, &bh1, xs, same);
  const auto mid2 = conv_reference(Host::of(DType::kFloat, xs, mid1), wh2, nullptr, xs, same);
  const auto want = conv_reference(Host::of(DType::kFloat, xs, mid2), wh3, nullptr, xs, same);
  std::vector<float> got(want.size());
  std::memcpy(got.data(), out[0].data(), got.size() * sizeof(float));
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << i << ": " << got[i];
      continue;
    }
    if (!std::isfinite(want[i])) {
      EXPECT_EQ(got[i], want[i]) << i;
      continue;
    }
    const double err = std::abs(got[i] - want[i]);
    if (!(err <= 1e-4 + 1e-3 * std::abs(want[i]))) {
      ADD_FAILURE() << "at " << i << ": " << got[i] << " against " << want[i];
      break;
    }
  }
  return runs;
}

TEST(DnnlConvNativeWinograd, ChannelsLastLayerOfACompiledChainTakesItAndMatchesTheNaiveLoop) {
  const int64_t runs = run_chain({}, 1);
  if (native_winograd_expected()) {
    EXPECT_GE(runs, 1);
  }
}

TEST(DnnlConvNativeWinograd, NonFiniteInputKeepsNaNInTheWindowsThatReadIt) {
  // One NaN in channel 3 at (2, 5) and an infinity in channel 40 at (15, 12): each layer
  // spreads them one pixel further (the infinity as NaN once terms of both signs meet), so
  // most of the output stays finite.
  const int64_t plane = 20 * 20;
  const int64_t runs =
      run_chain({{3 * plane + 2 * 20 + 5, std::numeric_limits<float>::quiet_NaN()},
                 {40 * plane + 15 * 20 + 12, std::numeric_limits<float>::infinity()}},
                2);
  EXPECT_EQ(runs, 0);  // every layer's input holds a NaN: none went through the transforms
}

TEST(DnnlConvNativeWinograd, HugeFiniteInputGivesTheDirectAlgorithmsAnswer) {
  // 2e37 in channel 3 at (2, 5): at most ~1e36 in the sums of the direct algorithm, but past
  // float's range once the input transform scales it by up to 25 (+-inf, then NaN where terms
  // of both signs meet, in outputs whose windows never read it).
  const int64_t runs = run_chain({{3 * 20 * 20 + 2 * 20 + 5, 2e37f}}, 3);
  EXPECT_EQ(runs, 0);  // every layer's input is that large somewhere
}

}  // namespace
}  // namespace geon::cpu::testing
