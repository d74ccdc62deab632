// cpu.dnnl MatMul and Gemm with a constant B, which the kernel prepacks once at creation: one
// kernel run for several row counts (each its own primitive over the one packed copy) against
// naive triple loops, Gemm's transB / alpha / beta / every form of C over packed weights, the
// fallbacks (transposed A, a run whose B is not the packed one), the packer itself, and the split
// by columns of a large B.
#include <gtest/gtest.h>

#include <oneapi/dnnl/dnnl.hpp>
#include <span>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/dnnl/packed_matmul.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& dnnl() { return dnnl_kernels(); }

std::unique_ptr<Kernel> create(const NodeGraph& ng) {
  const KernelEntry* e = find_kernel(dnnl(), *ng.node);
  EXPECT_NE(e, nullptr);
  return e ? e->create(ng.g, *ng.node) : nullptr;
}

Host run(const Kernel& k, std::vector<Host> inputs) {
  FakeContext ctx(std::move(inputs), {DType::kFloat});
  k.compute(ctx);
  return ctx.result(0);
}

TEST(CpuDnnlPrepacked, MatMulWithConstantBServesEveryRowCount) {
  std::mt19937 rng(51);
  // N = 10 and K = 13 leave a partial block of the packed layout.
  for (const auto& [K, n] : std::vector<std::pair<int64_t, int64_t>>{{13, 10}, {64, 24}, {8, 1}}) {
    const int64_t N = n;  // clang 14 cannot capture a structured binding
    const Host b = Host::random(DType::kFloat, {K, N}, rng);
    NodeGraph ng("MatMul", 13);
    ng.in(Host::random(DType::kFloat, {4, K}, rng)).in(b, true).out(DType::kFloat, {4, N});
    const auto kernel = create(ng);
    ASSERT_NE(kernel, nullptr);
    for (int64_t M : {1, 3, 64, 65, 3}) {
      const Host a = Host::random(DType::kFloat, {M, K}, rng);
      SCOPED_TRACE("M=" + std::to_string(M) + " K=" + std::to_string(K) +
                   " N=" + std::to_string(N));
      expect_values(
          run(*kernel, {a, b}), {M, N},
          [&](int64_t i) { return matmul_product(a, b, false, N, i); }, 1e-4);
    }
    // Batch dims of A fold into the rows; a 1-D A is one row.
    const Host a3 = Host::random(DType::kFloat, {2, 3, K}, rng);
    expect_values(
        run(*kernel, {a3, b}), {2, 3, N},
        [&](int64_t i) { return matmul_product(a3, b, false, N, i); }, 1e-4);
    const Host v = Host::random(DType::kFloat, {K}, rng);
    expect_values(
        run(*kernel, {v, b}), {N}, [&](int64_t i) { return matmul_product(v, b, false, N, i); },
        1e-4);
  }
}

TEST(CpuDnnlPrepacked, MatMulFallsBackForTransposedAAndAnotherB) {
  std::mt19937 rng(52);
  const int64_t M = 6, K = 9, N = 5;
  const Host b = Host::random(DType::kFloat, {K, N}, rng);
  NodeGraph ng("MatMul", 13);
  ng.in(Host::random(DType::kFloat, {M, K}, rng)).in(b, true).out(DType::kFloat, {M, N});
  const auto kernel = create(ng);
  ASSERT_NE(kernel, nullptr);
  // A stored transposed: not a dense row-major matrix, so the general path reads it in place.
  const Host at = Host::random(DType::kFloat, {M, K}, rng).strided({1, 0});
  expect_values(
      run(*kernel, {at, b}), {M, N}, [&](int64_t i) { return matmul_product(at, b, false, N, i); },
      1e-4);
  // A run whose B has another shape than the constant is computed from the run's B.
  const Host b2 = Host::random(DType::kFloat, {K, N + 2}, rng);
  const Host a = Host::random(DType::kFloat, {M, K}, rng);
  expect_values(
      run(*kernel, {a, b2}), {M, N + 2},
      [&](int64_t i) { return matmul_product(a, b2, false, N + 2, i); }, 1e-4);
}

TEST(CpuDnnlPrepacked, GemmWithConstantBTransBAlphaBetaAndC) {
  std::mt19937 rng(53);
  const int64_t K = 11, N = 7;
  const std::vector<Dims> c_shapes = {{N}, {1, N}, {}, {3, 1}, {3, N}};
  for (int tb = 0; tb < 2; ++tb) {
    for (int with_c = 0; with_c < 2; ++with_c) {
      for (size_t ci = 0; ci < (with_c ? c_shapes.size() : 1); ++ci) {
        for (const auto& [alpha_value, beta_value] :
             std::vector<std::pair<float, float>>{{1.0f, 1.0f}, {0.5f, -1.5f}}) {
          const float alpha = alpha_value, beta = beta_value;  // captured below; see N above
          const Host b = Host::random(DType::kFloat, tb ? Dims{N, K} : Dims{K, N}, rng);
          NodeGraph ng("Gemm", 13);
          ng.in(Host::random(DType::kFloat, {3, K}, rng)).in(b, true);
          Host c;
          if (with_c) {
            c = Host::random(DType::kFloat, c_shapes[ci], rng);
            ng.in(c);
          }
          ng.out(DType::kFloat, {3, N}).attr_i("transB", tb);
          ng.attr_f("alpha", alpha).attr_f("beta", beta);
          const auto kernel = create(ng);
          ASSERT_NE(kernel, nullptr);
          // C of (3, ...) fixes M = 3; broadcastable forms of C allow other row counts.
          const bool fixed_m = with_c && c_shapes[ci].size() == 2 && c_shapes[ci][0] == 3;
          for (int64_t M : fixed_m ? std::vector<int64_t>{3} : std::vector<int64_t>{1, 3, 17}) {
            const Host a = Host::random(DType::kFloat, {M, K}, rng);
            std::vector<Host> in{a, b};
            if (with_c) in.push_back(c);
            SCOPED_TRACE("tb=" + std::to_string(tb) +
                         " C=" + (with_c ? to_string(c.desc) : std::string("none")) +
                         " alpha=" + std::to_string(alpha) + " M=" + std::to_string(M));
            expect_values(
                run(*kernel, in), {M, N},
                [&](int64_t i) {
                  const double ab = alpha * matmul_product(a, b, tb, N, i);
                  return with_c ? ab + beta * bcast_at(c, {M, N}, i) : ab;
                },
                1e-4);
          }
        }
      }
    }
  }
}

TEST(CpuDnnlPrepacked, GemmWithConstantBAndTransposedA) {
  std::mt19937 rng(54);
  const int64_t M = 4, K = 6, N = 9;
  const Host a = Host::random(DType::kFloat, {K, M}, rng);  // transA: read as (M, K)
  const Host b = Host::random(DType::kFloat, {N, K}, rng);
  const Host c = Host::random(DType::kFloat, {N}, rng);
  NodeGraph ng("Gemm", 13);
  ng.in(a).in(b, true).in(c).out(DType::kFloat, {M, N});
  ng.attr_i("transA", 1).attr_i("transB", 1).attr_f("alpha", 2.0f);
  expect_values(
      ng.run(dnnl())[0], {M, N},
      [&](int64_t i) {
        const int64_t m = i / N, n = i % N;
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += a.at(k * M + m) * b.at(n * K + k);
        return 2 * s + c.at(n);
      },
      1e-4);
}

TEST(CpuDnnlPrepacked, PackerTakesNonEmptyFloatMatricesOnly) {
  auto tensor = [](DType t, const Dims& shape) {
    auto d = make_tensor_data(t, shape);
    return d;
  };
  EXPECT_NE(DnnlPackedMatmul::pack(*tensor(DType::kFloat, {5, 3}), false, 1.0f), nullptr);
  EXPECT_NE(DnnlPackedMatmul::pack(*tensor(DType::kFloat, {5, 3}), true, 2.0f), nullptr);
  EXPECT_EQ(DnnlPackedMatmul::pack(*tensor(DType::kDouble, {5, 3}), false, 1.0f), nullptr);
  EXPECT_EQ(DnnlPackedMatmul::pack(*tensor(DType::kFloat, {5}), false, 1.0f), nullptr);
  EXPECT_EQ(DnnlPackedMatmul::pack(*tensor(DType::kFloat, {0, 3}), false, 1.0f), nullptr);
  EXPECT_EQ(DnnlPackedMatmul::pack(*tensor(DType::kFloat, {2, 3, 4}), false, 1.0f), nullptr);
}

// The packed path refuses views it cannot read, leaving dst untouched, and checks K and N.
TEST(CpuDnnlPrepacked, PackedRunRefusesOtherViewsWithoutWriting) {
  std::mt19937 rng(55);
  const int64_t M = 3, K = 4, N = 5;
  const Host bh = Host::random(DType::kFloat, {K, N}, rng);
  auto b = make_tensor_data(DType::kFloat, {K, N});
  for (int64_t i = 0; i < K * N; ++i) reinterpret_cast<float*>(b->storage->data())[i] = bh.at(i);
  const auto packed = DnnlPackedMatmul::pack(*b, false, 1.0f);
  ASSERT_NE(packed, nullptr);
  EXPECT_EQ(packed->packed_shape(), (Dims{K, N}));
  Host dst = Host::of(DType::kFloat, {M, N}, std::vector<double>(M * N, 7.0));
  const Operand d{dst.desc, dst.bytes->data()};
  const Host at = Host::random(DType::kFloat, {M, K}, rng).strided({1, 0});
  EXPECT_FALSE(packed->run(ConstOperand(at.desc, at.bytes->data()), d, nullptr, 0.0f));
  const Host wrong_k = Host::random(DType::kFloat, {M, K + 1}, rng);
  EXPECT_FALSE(packed->run(ConstOperand(wrong_k.desc, wrong_k.bytes->data()), d, nullptr, 0.0f));
  for (int64_t i = 0; i < M * N; ++i) ASSERT_EQ(dst.at(i), 7.0);
  const Host a = Host::random(DType::kFloat, {M, K}, rng);
  ASSERT_TRUE(packed->run(ConstOperand(a.desc, a.bytes->data()), d, nullptr, 0.0f));
  expect_values(
      dst, {M, N}, [&](int64_t i) { return matmul_product(a, bh, false, N, i); }, 1e-4);
}

}  // namespace
}  // namespace geon::cpu::testing

namespace geon::cpu::testing {
namespace {

// dst = A·B (+ bias) (+ z, beta 1) through the packed product, each of the four forms, against
// `ab`, A·B in double: (rows, N) row-major.
void expect_bias_and_residual_runs(const DnnlPackedMatmul& packed, const Host& a, const Host& z,
                                   const Host& bias, const std::vector<double>& ab) {
  const int64_t rows = a.shape()[0], n = bias.shape()[0];
  for (const bool with_bias : {false, true})
    for (const float beta : {0.0f, 1.0f}) {
      SCOPED_TRACE(::testing::Message() << "bias " << with_bias << " beta " << beta);
      Host dst = Host::of(DType::kFloat, {rows, n}, std::vector<double>(rows * n, 0.0));
      for (int64_t i = 0; i < rows * n; ++i)
        reinterpret_cast<float*>(dst.bytes->data())[i] = static_cast<float>(z.at(i));
      const ConstOperand bias_op(bias.desc, bias.bytes->data());
      ASSERT_TRUE(packed.run(ConstOperand(a.desc, a.bytes->data()),
                             Operand{dst.desc, dst.bytes->data()}, with_bias ? &bias_op : nullptr,
                             beta));
      expect_values(
          dst, {rows, n},
          [&](int64_t i) { return ab[i] + (with_bias ? bias.at(i % n) : 0.0) + beta * z.at(i); },
          1e-3);  // sums of up to 3072 float products: the ONNX test data's rtol
    }
}

// Every row count, with and without bias and the residual (beta 1), runs on the packed weights:
// the BERT feed-forward shapes among them, whose primitives on AVX-512 want another blocked
// layout than the one packed at creation for some row counts (a copy in that layout is made
// then, never the plain B).
TEST(CpuDnnlPrepacked, EveryRowCountBiasAndResidualRunsPacked) {
  std::mt19937 rng(56);
  for (const auto& shape : {std::pair<int64_t, int64_t>{3072, 768}, {768, 3072}, {96, 40}}) {
    // Plain copies, not structured bindings: clang 14 cannot capture those in a lambda.
    const int64_t k_len = shape.first, n_len = shape.second;
    const Host bh = Host::random(DType::kFloat, {k_len, n_len}, rng);
    auto b = make_tensor_data(DType::kFloat, {k_len, n_len});
    for (int64_t i = 0; i < k_len * n_len; ++i)
      reinterpret_cast<float*>(b->storage->data())[i] = static_cast<float>(bh.at(i));
    const auto packed = DnnlPackedMatmul::pack(*b, false, 1.0f, 1);
    ASSERT_NE(packed, nullptr);
    const Host bias = Host::random(DType::kFloat, {n_len}, rng);
    for (const int64_t rows : {1, 7, 32, 64, 128}) {
      const Host a = Host::random(DType::kFloat, {rows, k_len}, rng);
      const Host z = Host::random(DType::kFloat, {rows, n_len}, rng);
      // A·B once per row count, in double over the stored floats (naive loops).
      const auto* af = reinterpret_cast<const float*>(a.bytes->data());
      const auto* bf = reinterpret_cast<const float*>(b->storage->data());
      std::vector<double> ab(static_cast<size_t>(rows * n_len), 0.0);
      for (int64_t m = 0; m < rows; ++m)
        for (int64_t q = 0; q < k_len; ++q)
          for (int64_t j = 0; j < n_len; ++j)
            ab[m * n_len + j] += double(af[m * k_len + q]) * bf[q * n_len + j];
      SCOPED_TRACE(::testing::Message() << "K " << k_len << " N " << n_len << " rows " << rows);
      expect_bias_and_residual_runs(*packed, a, z, bias, ab);
    }
    // Copies in other layouts are made once: running every row count again makes none.
    const int64_t relayouts = dnnl_packed_matmul_relayouts();
    for (const int64_t rows : {1, 7, 32, 64, 128}) {
      const Host a = Host::random(DType::kFloat, {rows, k_len}, rng);
      Host dst = Host::of(DType::kFloat, {rows, n_len}, std::vector<double>(rows * n_len, 0.0));
      ASSERT_TRUE(packed->run(ConstOperand(a.desc, a.bytes->data()),
                              Operand{dst.desc, dst.bytes->data()}, nullptr, 1.0f));
    }
    EXPECT_EQ(dnnl_packed_matmul_relayouts(), relayouts);
  }
}

}  // namespace
}  // namespace geon::cpu::testing

namespace geon::cpu::testing {
namespace {

bool onednn_has_avx512_core() {
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  const auto want = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
  return (isa & want) == want;
}

// A large B with K >= N that the graph says many rows read is split by columns on AVX-512
// (packed_matmul.cc): every part count (1, 2 and 3 threads over N = 520 columns, so unequal
// parts), the bias, the residual and a transposed, scaled B against naive
// loops. An activation it leaves to the caller: refused, nothing written.
TEST(CpuDnnlPrepacked, LargeBReadByManyRowsSplitsByColumns) {
  const int64_t K = 1040, N = 520;  // K·N >= 2^19 floats
  std::mt19937 rng(57);
  const Host bias = Host::random(DType::kFloat, {N}, rng);
  for (const bool transposed : {false, true}) {
    const float alpha = transposed ? 0.5f : 1.0f;
    const Host bh = Host::random(DType::kFloat, transposed ? Dims{N, K} : Dims{K, N}, rng);
    auto b = make_tensor_data(DType::kFloat, bh.desc.shape);
    for (int64_t i = 0; i < K * N; ++i)
      reinterpret_cast<float*>(b->storage->data())[i] = static_cast<float>(bh.at(i));
    const auto* bf = reinterpret_cast<const float*>(b->storage->data());
    const auto b_at = [&](int64_t q, int64_t j) {
      return double(transposed ? bf[j * K + q] : bf[q * N + j]);
    };
    // Rows the graph fixes decide it: 8 are too few to be worth it.
    ASSERT_FALSE(DnnlPackedMatmul::pack(*b, transposed, alpha, 8)->splits_by_columns());
    const auto packed = DnnlPackedMatmul::pack(*b, transposed, alpha, 40);
    ASSERT_NE(packed, nullptr);
    EXPECT_EQ(packed->splits_by_columns(), onednn_has_avx512_core());
    for (const int64_t rows : {40, 129}) {
      const Host a = Host::random(DType::kFloat, {rows, K}, rng);
      const Host z = Host::random(DType::kFloat, {rows, N}, rng);
      const auto* af = reinterpret_cast<const float*>(a.bytes->data());
      std::vector<double> ab(static_cast<size_t>(rows * N), 0.0);
      for (int64_t m = 0; m < rows; ++m)
        for (int64_t q = 0; q < K; ++q)
          for (int64_t j = 0; j < N; ++j) ab[m * N + j] += alpha * af[m * K + q] * b_at(q, j);
      for (const int threads : {1, 2, 3}) {
        ThreadPool pool(threads);
        ScopedPool scope(&pool);
        SCOPED_TRACE(::testing::Message()
                     << "transposed " << transposed << " rows " << rows << " threads " << threads);
        expect_bias_and_residual_runs(*packed, a, z, bias, ab);
        EXPECT_EQ(pool.parallel_jobs() > 0, threads > 1) << threads << " threads";
      }
      if (!packed->splits_by_columns()) continue;
      Host dst = Host::of(DType::kFloat, {rows, N}, std::vector<double>(rows * N, 7.0));
      const MatmulPostOps::Eltwise relu{dnnl_eltwise_relu, 0.0f, 0.0f};
      EXPECT_FALSE(packed->run(ConstOperand(a.desc, a.bytes->data()),
                               Operand{dst.desc, dst.bytes->data()}, nullptr, 0.0f,
                               std::span(&relu, 1)));
      for (int64_t i = 0; i < rows * N; ++i) ASSERT_EQ(dst.at(i), 7.0);
    }
  }
}

}  // namespace
}  // namespace geon::cpu::testing
