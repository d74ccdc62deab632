// cpu.dnnl's Gemm at opset < 7 against a naive loop: C broadcasts only with broadcast=1,
// otherwise it must have the output's shape (a clear error names the rule).
#include <gtest/gtest.h>

#include "core/base/error.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

TEST(CpuDnnlGemmLegacy, BroadcastAttributeGovernsC) {
  std::mt19937 rng(67);
  const int64_t M = 4, K = 5, N = 3;
  const Host a = Host::random(DType::kFloat, {M, K}, rng),
             b = Host::random(DType::kFloat, {K, N}, rng);
  const auto product = [&](int64_t i) {
    double s = 0;
    for (int64_t k = 0; k < K; ++k) s += a.at(i / N * K + k) * b.at(k * N + i % N);
    return s;
  };
  const Host bias = Host::random(DType::kFloat, {N}, rng);
  NodeGraph bcast("Gemm", 6);
  bcast.in(a).in(b).in(bias).out(DType::kFloat, {M, N}).attr_i("broadcast", 1).attr_f("beta", 0.5f);
  expect_values(
      bcast.run(dnnl_kernels())[0], {M, N},
      [&](int64_t i) { return product(i) + 0.5 * bias.at(i % N); }, 1e-4);

  const Host full = Host::random(DType::kFloat, {M, N}, rng);
  NodeGraph exact("Gemm", 1);
  exact.in(a).in(b).in(full).out(DType::kFloat, {M, N});
  expect_values(
      exact.run(dnnl_kernels())[0], {M, N}, [&](int64_t i) { return product(i) + full.at(i); },
      1e-4);

  NodeGraph bad("Gemm", 6);
  bad.in(a).in(b).in(bias).out(DType::kFloat, {M, N});
  try {
    bad.run(dnnl_kernels());
    FAIL() << "Gemm-6 without broadcast=1 took a C of another shape";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("without broadcast=1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace geon::cpu::testing
