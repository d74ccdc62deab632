// cpu.dnnl Softmax and LogSoftmax (softmax_v2) against naive loops: both ONNX forms (the 2-D
// coercion before opset 13 at every axis, the innermost axis from 13, other axes refused),
// strided inputs, large values, shapes big enough for oneDNN's threads, and the refusal of
// non-float inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

// Softmax or LogSoftmax over [outer, n, inner] blocks of x.
std::vector<double> naive(bool log, const Host& x, int64_t outer, int64_t n, int64_t inner) {
  std::vector<double> y(element_count(x.desc.shape));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return o * n * inner + k * inner + i; };
      double mx = x.at(at(0)), sum = 0;
      for (int64_t k = 1; k < n; ++k) mx = std::max(mx, x.at(at(k)));
      for (int64_t k = 0; k < n; ++k) sum += std::exp(x.at(at(k)) - mx);
      for (int64_t k = 0; k < n; ++k)
        y[at(k)] = log ? x.at(at(k)) - mx - std::log(sum) : std::exp(x.at(at(k)) - mx) / sum;
    }
  return y;
}

TEST(CpuDnnlSoftmax, EveryAxisBothFormsStrided) {
  std::mt19937 rng(41);
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    for (int opset : {1, 13}) {
      for (int axis = -3; axis < (opset < 13 ? 4 : 3); ++axis) {
        const Dims s = random_shape(rng, 3, 7);
        Host x = Host::random(DType::kFloat, s, rng, -5, 5);
        if ((axis + 3) % 2) x = x.strided({1, 2, 0});
        const int a = axis < 0 ? axis + 3 : axis;
        int64_t outer = 1, n = 1, inner = 1;
        for (int k = 0; k < 3; ++k) (k < a ? outer : (k == a || opset < 13) ? n : inner) *= s[k];
        const std::vector<double> want = naive(std::string(op) == "LogSoftmax", x, outer, n, inner);
        NodeGraph ng(op, opset);
        ng.in(x).out(DType::kFloat, s).attr_i("axis", axis);
        if (opset >= 13 && a != 2) {  // only the innermost axis: oneDNN is slow elsewhere
          const auto why = ng.supports(dnnl_kernels());
          ASSERT_TRUE(why.has_value());
          EXPECT_NE(why->find("innermost"), std::string::npos) << *why;
          continue;
        }
        ASSERT_EQ(ng.supports(dnnl_kernels()), std::nullopt);
        SCOPED_TRACE(std::string(op) + " opset " + std::to_string(opset) + " axis " +
                     std::to_string(axis) + " " + to_string(x.desc));
        expect_values(
            ng.run(dnnl_kernels())[0], s, [&](int64_t i) { return want[i]; }, 1e-4);
      }
    }
  }
}

TEST(CpuDnnlSoftmax, LargeShapesAndLargeValues) {
  std::mt19937 rng(42);
  for (const Dims& s : {Dims{37, 1031}, Dims{5, 301, 67}}) {
    Host x = Host::random(DType::kFloat, s, rng, -30, 30);
    x.set(0, 1e30);  // one huge value: the maximum must be subtracted first
    for (int log = 0; log < 2; ++log) {
      // Opset 11 coerces to 2-D at axis 1: rows of everything after dim 0.
      const std::vector<double> want = naive(log, x, s[0], element_count(s) / s[0], 1);
      NodeGraph ng(log ? "LogSoftmax" : "Softmax", 11);
      ng.in(x).out(DType::kFloat, s).attr_i("axis", 1);
      expect_values(
          ng.run(dnnl_kernels())[0], s, [&](int64_t i) { return want[i]; }, 1e-4);
    }
  }
}

// One kernel computing on several threads at once, each with its own shape: the primitive
// cache and the per-thread scratchpads must keep the runs apart.
TEST(CpuDnnlSoftmax, OneKernelRunsOnManyThreadsAtOnce) {
  std::mt19937 rng(43);
  NodeGraph ng("Softmax", 13);
  ng.in(Host::random(DType::kFloat, {3, 17}, rng)).out(DType::kFloat, {3, 17});
  const KernelEntry* e = find_kernel(dnnl_kernels(), *ng.node);
  ASSERT_NE(e, nullptr);
  const std::unique_ptr<Kernel> k = e->create(ng.g, *ng.node);
  std::vector<Host> xs;
  for (int t = 0; t < 4; ++t) xs.push_back(Host::random(DType::kFloat, {3 + t, 17 + 5 * t}, rng));
  std::vector<std::unique_ptr<FakeContext>> ctxs;
  for (const Host& x : xs)
    ctxs.push_back(
        std::make_unique<FakeContext>(std::vector<Host>{x}, std::vector<DType>{DType::kFloat}));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 20; ++rep) k->compute(*ctxs[t]);
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    const Dims& s = xs[t].desc.shape;
    const std::vector<double> want = naive(false, xs[t], s[0], s[1], 1);
    expect_values(
        ctxs[t]->result(0), s, [&](int64_t i) { return want[i]; }, 1e-4);
  }
}

TEST(CpuDnnlSoftmax, RefusesNonFloatWithReason) {
  NodeGraph ng("Softmax", 13);
  ng.in(Host::dense(DType::kDouble, {2, 3})).out(DType::kDouble, {2, 3});
  const auto why = ng.supports(dnnl_kernels());
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("double"), std::string::npos) << *why;
}

}  // namespace
}  // namespace geon::cpu::testing
