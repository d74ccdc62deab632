// The CUDA engine against the device: a binary add and the design notes' L2 example
// sum((x - y)^2), fused into one pass, over 2^26 floats, each reported as GB/s and as
// "of_copy_bw", its fraction of the device-to-device cudaMemcpy bandwidth that BM_DeviceCopy
// measures first in the same run (the issue's target: at least 0.8). Timed with CUDA events.
// Without a usable device every benchmark is skipped with the probe's reason.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/cuda/device.h"
#include "kernels/cuda/engine.h"

namespace geon::cuda {
namespace {

constexpr int64_t kN = int64_t{1} << 26;
double g_copy_bw = 0;  // bytes per second, set by BM_DeviceCopy

bool skip_without_device(benchmark::State& state) {
  const Availability& a = cached_availability();
  if (a.available) return false;
  state.SkipWithError(("no CUDA device: " + a.reason).c_str());
  return true;
}

// x and y hold uniform random floats; out is scratch. Allocated once, from the pool.
struct Buffers {
  Buffers() {
    CachingAllocator& pool = allocator(0);
    x = std::make_unique<Storage>(pool, kN * 4);
    y = std::make_unique<Storage>(pool, kN * 4);
    out = std::make_unique<Storage>(pool, kN * 4);
    std::vector<float> host(kN);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1, 1);
    for (float& v : host) v = u(rng);
    cudaMemcpy(x->data(), host.data(), kN * 4, cudaMemcpyHostToDevice);
    for (float& v : host) v = u(rng);
    cudaMemcpy(y->data(), host.data(), kN * 4, cudaMemcpyHostToDevice);
  }
  std::unique_ptr<Storage> x, y, out;
};

Buffers& buffers() {
  static Buffers b;
  return b;
}

TensorDesc flat() { return row_major(DType::kFloat, std::vector<int64_t>{kN}); }

// Times body() per iteration with events on the default stream; returns bytes per second.
template <class F>
double timed(benchmark::State& state, double bytes_per_iter, F&& body) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  body();  // warm-up: first-launch costs and pool allocations
  cudaDeviceSynchronize();
  double seconds = 0;
  for (auto _ : state) {
    cudaEventRecord(start);
    body();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    state.SetIterationTime(ms / 1e3);
    seconds += ms / 1e3;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  const double total = bytes_per_iter * static_cast<double>(state.iterations());
  const double bw = seconds > 0 ? total / seconds : 0;
  state.counters["GB/s"] = benchmark::Counter(bw / 1e9);
  if (g_copy_bw > 0) state.counters["of_copy_bw"] = benchmark::Counter(bw / g_copy_bw);
  return bw;
}

// A device-to-device copy of x: reads and writes 4N bytes each.
void BM_DeviceCopy(benchmark::State& state) {
  if (skip_without_device(state)) return;
  Buffers& b = buffers();
  const double bytes = 2.0 * kN * 4;
  g_copy_bw = timed(state, bytes, [&] {
    cudaMemcpyAsync(b.out->data(), b.x->data(), kN * 4, cudaMemcpyDeviceToDevice);
  });
}

void BM_Add(benchmark::State& state) {
  if (skip_without_device(state)) return;
  Buffers& b = buffers();
  timed(state, 3.0 * kN * 4, [&] {
    cuda::binary("add", {flat(), b.out->data()}, {flat(), b.x->data()}, {flat(), b.y->data()});
  });
}

void BM_L2Fused(benchmark::State& state) {
  if (skip_without_device(state)) return;
  Buffers& b = buffers();
  const DType types[] = {DType::kFloat, DType::kFloat};
  ExprBuilder eb(types);
  const ExprArg d = eb.apply("sub", {eb.input(0), eb.input(1)});
  eb.apply("mul", {d, d});
  const Expr e = eb.build();
  const ConstOperand in[] = {{flat(), b.x->data()}, {flat(), b.y->data()}};
  timed(state, 2.0 * kN * 4, [&] {
    cuda::evaluate(e, {row_major(DType::kFloat, {}), b.out->data()}, in, Reduce::kSum);
  });
}

}  // namespace
}  // namespace geon::cuda

BENCHMARK(geon::cuda::BM_DeviceCopy)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(geon::cuda::BM_Add)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(geon::cuda::BM_L2Fused)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK_MAIN();
