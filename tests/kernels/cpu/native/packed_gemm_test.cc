// PackedGemm (kernels/cpu/native) against a naive loop in double, B stored plain and
// transposed, N not a multiple of the 16-wide block, alpha folded in, bias and residual; and
// the packing policy: no copy is made when every A the graph allows is too tall for it; and
// which overlaps of A, Z and Y it refuses; and a product split by rows across a pool, or by
// column blocks when it has too few rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/engine/thread_pool.h"
#include "core/graph/tensor_data.h"
#include "kernels/cpu/native/cpu_isa.h"
#include "kernels/cpu/native/packed_gemm.h"

namespace geon::cpu {
namespace {

std::shared_ptr<TensorData> random_matrix(int64_t rows, int64_t cols, std::mt19937& g) {
  auto t = make_tensor_data(DType::kFloat, {rows, cols});
  auto* p = reinterpret_cast<float*>(t->storage->data());
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int64_t i = 0; i < rows * cols; ++i) p[i] = u(g);
  return t;
}

TensorDesc dense(const Dims& shape) { return row_major(DType::kFloat, shape); }

TEST(PackedGemm, MatchesANaiveProductForPlainAndTransposedB) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "PackedGemm needs AVX2 + FMA, which this CPU lacks";
  std::mt19937 g(7);
  for (bool transposed : {false, true})
    for (auto [m, k, n] :
         {std::tuple<int64_t, int64_t, int64_t>{1, 3, 1}, {5, 17, 33}, {13, 64, 16}}) {
      const float alpha = 0.75f;
      auto b = random_matrix(transposed ? n : k, transposed ? k : n, g);
      auto a = random_matrix(m, k, g), bias = random_matrix(1, n, g), z = random_matrix(m, n, g);
      auto packed = PackedGemm::pack_for_test(*b, transposed, alpha);
      ASSERT_TRUE(packed);
      std::vector<float> y(static_cast<size_t>(m * n), -7.0f);
      const ConstOperand ao(dense({m, k}), a->storage->data()),
          bo(dense({n}), bias->storage->data()), zo(dense({m, n}), z->storage->data());
      ASSERT_TRUE(packed->run(ao, Operand{dense({m, n}), y.data()}, &bo, &zo, Activation{}));
      const auto* pa = reinterpret_cast<const float*>(a->storage->data());
      const auto* pb = reinterpret_cast<const float*>(b->storage->data());
      const auto* pbias = reinterpret_cast<const float*>(bias->storage->data());
      const auto* pz = reinterpret_cast<const float*>(z->storage->data());
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double s = 0;
          for (int64_t q = 0; q < k; ++q)
            s += double(pa[i * k + q]) * (transposed ? pb[j * k + q] : pb[q * n + j]);
          const double want = alpha * s + pbias[j] + pz[i * n + j];
          EXPECT_NEAR(y[i * n + j], want, 1e-4 * (1 + std::abs(want)))
              << "transposed " << transposed << " m " << m << " k " << k << " n " << n << " at "
              << i << "," << j;
        }
    }
}

TEST(PackedGemm, AProductSplitByRowsAcrossAPoolMatchesANaiveProduct) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "PackedGemm needs AVX2 + FMA, which this CPU lacks";
  std::mt19937 g(5);
  // 3 blocks (the last of 8 columns) x 17 tiles of 6 rows: three parts of 33, 32 and 32 rows,
  // each starting inside a tile of the whole; the residual is Y itself (in place).
  const int64_t m = 97, k = 40, n = 40;
  auto b = random_matrix(k, n, g), a = random_matrix(m, k, g), bias = random_matrix(1, n, g);
  auto z = random_matrix(m, n, g);
  auto packed = PackedGemm::pack_for_test(*b, false, 1.0f);
  ASSERT_TRUE(packed);
  const auto* pz = reinterpret_cast<const float*>(z->storage->data());
  std::vector<float> y(pz, pz + m * n);
  ThreadPool pool(3);
  ScopedPool scope(&pool);
  const ConstOperand ao(dense({m, k}), a->storage->data()), bo(dense({n}), bias->storage->data()),
      zo(dense({m, n}), y.data());
  Activation relu;
  relu.kind = ActivationKind::kRelu;
  ASSERT_TRUE(packed->run(ao, Operand{dense({m, n}), y.data()}, &bo, &zo, relu));
  EXPECT_EQ(pool.parallel_jobs(), 1u) << "the product was not split";
  const auto* pa = reinterpret_cast<const float*>(a->storage->data());
  const auto* pb = reinterpret_cast<const float*>(b->storage->data());
  const auto* pbias = reinterpret_cast<const float*>(bias->storage->data());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = double(pbias[j]) + pz[i * n + j];
      for (int64_t q = 0; q < k; ++q) s += double(pa[i * k + q]) * pb[q * n + j];
      const double want = std::max(s, 0.0);
      ASSERT_NEAR(y[i * n + j], want, 1e-4 * (1 + std::abs(want))) << "at " << i << "," << j;
    }
}

TEST(PackedGemm, AProductOfOneRowSplitsItsColumnBlocksAcrossAPool) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "PackedGemm needs AVX2 + FMA, which this CPU lacks";
  std::mt19937 g(6);
  const int64_t m = 1, k = 24, n = 520;  // 33 column blocks, the last of 8
  auto b = random_matrix(k, n, g), a = random_matrix(m, k, g);
  auto packed = PackedGemm::pack_for_test(*b, false, 1.0f);
  ASSERT_TRUE(packed);
  std::vector<float> y(static_cast<size_t>(n), -7.0f);
  ThreadPool pool(3);
  ScopedPool scope(&pool);
  ASSERT_TRUE(packed->run(ConstOperand(dense({m, k}), a->storage->data()),
                          Operand{dense({m, n}), y.data()}, nullptr, nullptr, Activation{}));
  EXPECT_EQ(pool.parallel_jobs(), 1u) << "one row's blocks ran on one thread";
  const auto* pa = reinterpret_cast<const float*>(a->storage->data());
  const auto* pb = reinterpret_cast<const float*>(b->storage->data());
  for (int64_t j = 0; j < n; ++j) {
    double s = 0;
    for (int64_t q = 0; q < k; ++q) s += double(pa[q]) * pb[q * n + j];
    ASSERT_NEAR(y[j], s, 1e-4 * (1 + std::abs(s))) << "column " << j;
  }
}

TEST(PackedGemm, RefusesOutputsOverlappingTheirInputsAndTakesNeighbours) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "PackedGemm needs AVX2 + FMA, which this CPU lacks";
  std::mt19937 g(11);
  const int64_t m = 3, k = 8, n = 8;
  auto b = random_matrix(k, n, g);
  auto packed = PackedGemm::pack_for_test(*b, false, 1.0f);
  ASSERT_TRUE(packed);
  // One buffer: A at `a_at`, Y at `y_at` (in floats); Y is written only when run() takes it.
  std::vector<float> buf(static_cast<size_t>(4 * m * k), 0.5f);
  const auto run_at = [&](int64_t a_at, int64_t y_at, const ConstOperand* z) {
    TensorDesc ad = dense({m, k}), yd = dense({m, n});
    ad.offset = a_at;
    yd.offset = y_at;
    return packed->run(ConstOperand(ad, buf.data()), Operand{yd, buf.data()}, nullptr, z,
                       Activation{});
  };
  EXPECT_FALSE(run_at(0, 0, nullptr)) << "Y on A";
  EXPECT_FALSE(run_at(0, m * k - 1, nullptr)) << "Y's first element on A's last";
  EXPECT_FALSE(run_at(m * n - 1, 0, nullptr)) << "A's first element on Y's last";
  EXPECT_TRUE(run_at(0, m * k, nullptr)) << "Y right after A";
  EXPECT_TRUE(run_at(m * n, 0, nullptr)) << "A right after Y";

  // Z: the very same view as Y is the in-place residual; any other overlap is refused.
  TensorDesc yd = dense({m, n});
  yd.offset = 2 * m * k;
  const ConstOperand z_same(yd, buf.data());
  EXPECT_TRUE(run_at(0, 2 * m * k, &z_same));
  TensorDesc zd = yd;
  zd.offset = yd.offset + 1;
  const ConstOperand z_shifted(zd, buf.data());
  EXPECT_FALSE(run_at(0, 2 * m * k, &z_shifted));
  zd.offset = m * k + m * n;
  const ConstOperand z_after(zd, buf.data());
  EXPECT_TRUE(run_at(0, m * k, &z_after)) << "Z right after Y";
}

TEST(PackedGemm, NoCopyIsMadeWhenEveryProductIsTooLargeForIt) {
  if (!native_small_gemm_preferred())
    GTEST_SKIP() << "the native small product is not used on this CPU (no AVX2 + FMA)";
  std::mt19937 g(3);
  auto b = random_matrix(256, 256, g);  // 2^16 multiply-adds a row
  EXPECT_TRUE(PackedGemm::pack(*b, false, 1.0f, 1));
  EXPECT_TRUE(PackedGemm::pack(*b, false, 1.0f, 64));  // 2^22: the largest it takes
  EXPECT_FALSE(PackedGemm::pack(*b, false, 1.0f, 65));
  EXPECT_FALSE(PackedGemm::pack(*b, false, 1.0f, 128));
  // Rows still small enough after the packing decision are run on it.
  auto packed = PackedGemm::pack(*b, false, 1.0f, 1);
  EXPECT_TRUE(packed->worth_it(64));
  EXPECT_FALSE(packed->worth_it(65));
}

}  // namespace
}  // namespace geon::cpu
