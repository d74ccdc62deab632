// geon's native CPU kernels alone, on the layer shapes of the benchmark models that run them:
// FusedPointwiseDepthwise on MobileNetV2's inverted-residual blocks, at one thread and at the
// pool's default. Reports GFLOP/s (two per multiply-add of the expansion, the depthwise window
// and the projection) so a kernel change reads as a fraction of the machine's fp32 peak.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/native/pointwise_depthwise.h"

namespace geon::cpu {
namespace {

std::shared_ptr<TensorData> random_tensor(const Dims& shape, std::mt19937& g) {
  auto t = make_tensor_data(DType::kFloat, shape);
  float* p = reinterpret_cast<float*>(t->storage->data());
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  for (int64_t i = 0; i < element_count(t->desc); ++i) p[i] = u(g);
  return t;
}

// One MobileNetV2 block: C -> M (1x1, ReLU6), 3x3 depthwise at `stride` (ReLU6), M -> K (1x1),
// the residual when the stride is 1 and C == K. Args: c, m, k, size, stride, threads.
void BM_PointwiseDepthwise(benchmark::State& state) {
  const int64_t c = state.range(0), m = state.range(1), k = state.range(2), hw = state.range(3),
                s = state.range(4);
  const int threads = static_cast<int>(state.range(5));
  std::mt19937 g(7);
  const auto w1 = random_tensor({m, c, 1, 1}, g), b1 = random_tensor({m}, g);
  const auto w2 = random_tensor({m, 1, 3, 3}, g), b2 = random_tensor({m}, g);
  const auto w3 = random_tensor({k, m, 1, 1}, g), b3 = random_tensor({k}, g);
  const Activation relu6{ActivationKind::kClip, 0.0f, 6.0f};
  PointwiseDepthwiseWeights pw;
  pw.w1 = w1.get();
  pw.b1 = b1.get();
  pw.act1 = relu6;
  pw.w2 = w2.get();
  pw.b2 = b2.get();
  pw.act2 = relu6;
  pw.stride = s;
  pw.w3 = w3.get();
  pw.b3 = b3.get();
  const auto kernel = PointwiseDepthwise::make(pw);
  if (!kernel) return state.SkipWithError("PointwiseDepthwise declined (no AVX2 + FMA?)");
  const Dims xs{1, c, hw, hw};
  const Dims ys = kernel->output_shape(xs);
  std::vector<float> x(static_cast<size_t>(element_count(xs))), y(element_count(ys));
  std::vector<float> z(s == 1 && c == k ? y.size() : 0);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& v : x) v = u(g);
  for (float& v : z) v = u(g);
  ThreadPool pool(threads);
  ScopedPool scoped(&pool);
  const ConstOperand xo(channels_last(DType::kFloat, xs), x.data());
  const ConstOperand zo(channels_last(DType::kFloat, ys), z.data());
  const Operand yo{channels_last(DType::kFloat, ys), y.data()};
  for (auto _ : state) {
    if (!kernel->run(xo, z.empty() ? nullptr : &zo, yo))
      return state.SkipWithError("PointwiseDepthwise::run declined");
    benchmark::DoNotOptimize(y.data());
  }
  const double pixels = double(hw) * hw, out_pixels = double(ys[2]) * ys[3];
  const double macs = pixels * c * m + out_pixels * m * 9 + out_pixels * m * k;
  state.counters["GFLOP/s"] = benchmark::Counter(
      2 * macs, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

// MobileNetV2's blocks 2-4 (which take the fused kernel by default) and 6, 12, 15 (which run
// on oneDNN by default), each at 1 and 2 threads.
void block_args(benchmark::internal::Benchmark* b) {
  const int64_t blocks[][5] = {{16, 96, 24, 112, 2}, {24, 144, 24, 56, 1}, {24, 144, 32, 56, 2},
                               {32, 192, 32, 28, 1}, {96, 576, 96, 14, 1}, {160, 960, 160, 7, 1}};
  for (const auto& a : blocks)
    for (int64_t t : {1, 2}) b->Args({a[0], a[1], a[2], a[3], a[4], t});
  b->ArgNames({"c", "m", "k", "hw", "s", "threads"});
}

BENCHMARK(BM_PointwiseDepthwise)
    ->Apply(block_args)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.5);

}  // namespace
}  // namespace geon::cpu

BENCHMARK_MAIN();
