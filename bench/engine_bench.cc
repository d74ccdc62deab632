// The CPU engine against the machine: the design notes' L2 example sum((x - y)^2) fused into
// one pass and unfused into three, and a binary add, each over 2^24 floats. Every benchmark
// reports GB/s and "of_read_bw", its bandwidth as a fraction of the streaming-read bandwidth
// that BM_StreamRead measures in the same run with the same threads.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <random>
#include <vector>

#include "core/engine/engine.h"

namespace geon {
namespace {

constexpr int64_t kN = int64_t{1} << 24;
double g_read_bw = 0;  // bytes per second, set by BM_StreamRead

struct Inputs {
  Inputs() : x(kN), y(kN), out(kN), tmp(kN) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1, 1);
    for (int64_t i = 0; i < kN; ++i) {
      x[i] = u(rng);
      y[i] = u(rng);
    }
  }
  std::vector<float> x, y, out, tmp;
};

Inputs& inputs() {
  static Inputs in;
  return in;
}

void report(benchmark::State& state, double bytes_per_iter) {
  const double total = bytes_per_iter * static_cast<double>(state.iterations());
  state.counters["GB/s"] = benchmark::Counter(total / 1e9, benchmark::Counter::kIsRate);
  if (g_read_bw > 0)
    state.counters["of_read_bw"] =
        benchmark::Counter(total / g_read_bw, benchmark::Counter::kIsRate);
}

// Streaming read of the same bytes the L2 pass reads (x and y), split over the engine's pool:
// a plain summing loop with independent lanes, the best a read-only pass can do.
void BM_StreamRead(benchmark::State& state) {
  Inputs& in = inputs();
  ThreadPool& pool = default_thread_pool();
  const int parts = pool.size();
  std::vector<float> partial(parts * 16);
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    pool.run(parts, [&](int p) {
      float lanes[16] = {};
      for (const std::vector<float>* v : {&in.x, &in.y}) {
        const float* d = v->data();
        const int64_t lo = kN * p / parts, hi = kN * (p + 1) / parts;
        for (int64_t i = lo; i + 16 <= hi; i += 16)
          for (int k = 0; k < 16; ++k) lanes[k] += d[i + k];
      }
      std::memcpy(&partial[p * 16], lanes, sizeof lanes);
    });
    benchmark::DoNotOptimize(partial.data());
  }
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  const double bytes = 2.0 * kN * sizeof(float);
  g_read_bw = bytes * static_cast<double>(state.iterations()) / elapsed.count();
  report(state, bytes);
}

TensorDesc flat() { return row_major(DType::kFloat, std::vector<int64_t>{kN}); }

void BM_L2Fused(benchmark::State& state) {
  Inputs& in = inputs();
  const DType f = DType::kFloat;
  const DType types[] = {f, f};
  ExprBuilder b(types);
  const ExprArg d = b.apply("sub", {b.input(0), b.input(1)});
  b.apply("mul", {d, d});
  const Expr e = b.build();
  const ConstOperand ops[] = {{flat(), in.x.data()}, {flat(), in.y.data()}};
  float result = 0;
  for (auto _ : state) {
    evaluate(e, {row_major(f, {}), &result}, ops, Reduce::kSum);
    benchmark::DoNotOptimize(result);
  }
  report(state, 2.0 * kN * sizeof(float));
}

void BM_L2Unfused(benchmark::State& state) {
  Inputs& in = inputs();
  float result = 0;
  for (auto _ : state) {
    binary("sub", {flat(), in.tmp.data()}, {flat(), in.x.data()}, {flat(), in.y.data()});
    binary("mul", {flat(), in.out.data()}, {flat(), in.tmp.data()}, {flat(), in.tmp.data()});
    reduce(Reduce::kSum, {row_major(DType::kFloat, {}), &result}, {flat(), in.out.data()});
    benchmark::DoNotOptimize(result);
  }
  // The same logical input bytes as the fused pass, so the two GB/s figures compare directly.
  report(state, 2.0 * kN * sizeof(float));
}

void BM_Add(benchmark::State& state) {
  Inputs& in = inputs();
  for (auto _ : state) {
    binary("add", {flat(), in.out.data()}, {flat(), in.x.data()}, {flat(), in.y.data()});
    benchmark::DoNotOptimize(in.out.data());
  }
  report(state, 3.0 * kN * sizeof(float));  // two reads and one write
}

}  // namespace
}  // namespace geon

BENCHMARK(geon::BM_StreamRead)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(geon::BM_L2Fused)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(geon::BM_L2Unfused)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(geon::BM_Add)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK_MAIN();
