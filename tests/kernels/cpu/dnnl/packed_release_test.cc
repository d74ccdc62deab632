// cpu.dnnl kernels that pack a constant B declare it (Kernel::packed_inputs), and then compute
// right with B's plain copy released, as the executor binds it once every reader packed it (its
// description, no data): on the packed path, and on the general path a run's views force, where
// the kernel unpacks B for that run. MatMul, Gemm (transB, alpha, beta, C) and geon.FusedMatMul
// (trans_b, alpha, bias, residual, Gelu) against naive loops.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

// A context whose input `released` has its description and no data.
class ReleasedB : public FakeContext {
 public:
  ReleasedB(std::vector<Host> inputs, int released) : FakeContext(inputs, {DType::kFloat}) {
    ref_.desc = inputs.at(static_cast<size_t>(released)).desc;
    released_ = released;
  }
  const TensorRef& input(int i) const override {
    return i == released_ ? ref_ : FakeContext::input(i);
  }

 private:
  TensorRef ref_;
  int released_ = -1;
};

std::unique_ptr<Kernel> create(const NodeGraph& ng) {
  const KernelEntry* e = find_kernel(dnnl_kernels(), *ng.node);
  EXPECT_NE(e, nullptr);
  return e ? e->create(ng.g, *ng.node) : nullptr;
}

Host run_released(const Kernel& k, std::vector<Host> inputs) {
  ReleasedB ctx(std::move(inputs), 1);
  k.compute(ctx);
  return ctx.result(0);
}

void expect_packed_b(const Kernel& k) {
  const std::span<const int> packed = k.packed_inputs();
  ASSERT_EQ(packed.size(), 1u);
  EXPECT_EQ(packed[0], 1);
}

TEST(CpuDnnlPackedRelease, MatMulRunsWithBReleasedOnBothPaths) {
  std::mt19937 rng(61);
  const int64_t M = 5, K = 13, N = 10;
  const Host b = Host::random(DType::kFloat, {K, N}, rng);
  NodeGraph ng("MatMul", 13);
  ng.in(Host::random(DType::kFloat, {M, K}, rng)).in(b, true).out(DType::kFloat, {M, N});
  const auto kernel = create(ng);
  ASSERT_NE(kernel, nullptr);
  expect_packed_b(*kernel);
  const Host a = Host::random(DType::kFloat, {M, K}, rng);
  // A transposed in memory: the packed product cannot read it, so B is unpacked for the run.
  const Host at = Host::random(DType::kFloat, {M, K}, rng).strided({1, 0});
  for (const Host* x : {&a, &at})
    expect_values(
        run_released(*kernel, {*x, b}), {M, N},
        [&](int64_t i) { return matmul_product(*x, b, false, N, i); }, 1e-4);
}

TEST(CpuDnnlPackedRelease, GemmRunsWithBReleasedOnBothPaths) {
  std::mt19937 rng(62);
  const int64_t M = 4, K = 9, N = 7;
  const float alpha = 0.5f, beta = -1.5f;
  const Host b = Host::random(DType::kFloat, {N, K}, rng);  // transB
  const Host c = Host::random(DType::kFloat, {N}, rng);
  NodeGraph ng("Gemm", 13);
  ng.in(Host::random(DType::kFloat, {M, K}, rng)).in(b, true).in(c).out(DType::kFloat, {M, N});
  ng.attr_i("transB", 1).attr_f("alpha", alpha).attr_f("beta", beta);
  const auto kernel = create(ng);
  ASSERT_NE(kernel, nullptr);
  expect_packed_b(*kernel);
  const Host a = Host::random(DType::kFloat, {M, K}, rng);
  const Host at = Host::random(DType::kFloat, {M, K}, rng).strided({1, 0});
  for (const Host* x : {&a, &at})
    expect_values(
        run_released(*kernel, {*x, b, c}), {M, N},
        [&](int64_t i) { return alpha * matmul_product(*x, b, true, N, i) + beta * c.at(i % N); },
        1e-4);
}

TEST(CpuDnnlPackedRelease, FusedMatMulRunsWithBReleasedOnBothPaths) {
  std::mt19937 rng(63);
  const int64_t M = 6, K = 11, N = 8;
  const float alpha = 2.0f;
  const Host b = Host::random(DType::kFloat, {N, K}, rng);  // trans_b
  const Host bias = Host::random(DType::kFloat, {N}, rng);
  const Host z = Host::random(DType::kFloat, {M, N}, rng);
  NodeGraph ng("FusedMatMul", 1);
  ng.node->domain = "geon";
  ng.in(Host::random(DType::kFloat, {M, K}, rng)).in(b, true).in(bias).in(z);
  ng.out(DType::kFloat, {M, N}).attr_i("trans_b", 1).attr_f("alpha", alpha);
  ng.attr_s("activation", "Gelu");
  const auto kernel = create(ng);
  ASSERT_NE(kernel, nullptr);
  expect_packed_b(*kernel);
  const Host a = Host::random(DType::kFloat, {M, K}, rng);
  const Host at = Host::random(DType::kFloat, {M, K}, rng).strided({1, 0});
  for (const Host* x : {&a, &at})
    expect_values(
        run_released(*kernel, {*x, b, bias, z}), {M, N},
        [&](int64_t i) {
          const double y = alpha * matmul_product(*x, b, true, N, i) + bias.at(i % N) + z.at(i);
          return 0.5 * y * (1.0 + std::erf(y / std::sqrt(2.0)));
        },
        1e-4);
}

TEST(CpuDnnlPackedRelease, AKernelWithoutAConstantBDeclaresNothing) {
  std::mt19937 rng(64);
  NodeGraph ng("MatMul", 13);
  ng.in(Host::random(DType::kFloat, {3, 4}, rng)).in(Host::random(DType::kFloat, {4, 5}, rng));
  ng.out(DType::kFloat, {3, 5});
  const auto kernel = create(ng);
  ASSERT_NE(kernel, nullptr);
  EXPECT_TRUE(kernel->packed_inputs().empty());
}

}  // namespace
}  // namespace geon::cpu::testing
