// packed_gemv, the product of a few rows with column-panel packed weights, against naive loops:
// every panel width (the compile-time ones and another), a last panel cut short by N, bias and
// beta, one thread and a pool; which oneDNN layouts it reads; and Gemm kernels whose few rows
// times large constant weights take that path on machines whose packing allows it.
#include <gtest/gtest.h>

#include <memory>
#include <random>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/dnnl/packed_gemv.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

using tag = dnnl::memory::format_tag;

// B (K, N) packed as panels `width` columns wide, zero past N.
std::vector<float> pack_panels(const std::vector<float>& b, int64_t k, int64_t n, int64_t width) {
  const int64_t panels = (n + width - 1) / width;
  std::vector<float> packed(static_cast<size_t>(panels * width * k), 0.0f);
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < width && p * width + j < n; ++j)
        packed[(p * k + i) * width + j] = b[i * n + p * width + j];
  return packed;
}

TEST(PackedGemv, EveryPanelWidthRowCountBiasAndBetaMatchNaiveLoops) {
  std::mt19937 rng(71);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  ThreadPool one(1), two(2);
  for (ThreadPool* pool : {&one, &two}) {
    ScopedPool scope(pool);
    for (const int64_t width : {16, 32, 48, 64, 8}) {
      const int64_t k = 67, n = 3 * width + 5;  // the last panel holds 5 columns
      std::vector<float> b(static_cast<size_t>(k * n)), bias(static_cast<size_t>(n));
      for (float& x : b) x = u(rng);
      for (float& x : bias) x = u(rng);
      const std::vector<float> packed = pack_panels(b, k, n, width);
      for (int64_t rows = 1; rows <= kPackedGemvMaxRows; ++rows) {
        for (const float beta : {0.0f, 1.0f, -0.5f}) {
          for (const bool with_bias : {false, true}) {
            SCOPED_TRACE("threads=" + std::to_string(pool->size()) +
                         " width=" + std::to_string(width) + " rows=" + std::to_string(rows) +
                         " beta=" + std::to_string(beta) + " bias=" + std::to_string(with_bias));
            std::vector<float> a(static_cast<size_t>(rows * k)), dst(static_cast<size_t>(rows * n));
            for (float& x : a) x = u(rng);
            for (float& x : dst) x = u(rng);
            const std::vector<float> before = dst;
            packed_gemv({packed.data(), k, n, width}, a.data(), rows, dst.data(),
                        with_bias ? bias.data() : nullptr, beta);
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t j = 0; j < n; ++j) {
                double want = beta * double(before[r * n + j]) + (with_bias ? bias[j] : 0.0);
                for (int64_t i = 0; i < k; ++i) want += double(a[r * k + i]) * b[i * n + j];
                ASSERT_NEAR(dst[r * n + j], want, 1e-4 * std::max(1.0, std::abs(want)))
                    << "row " << r << " column " << j;
              }
          }
        }
      }
    }
  }
}

TEST(PackedGemv, ReadsColumnPanelLayoutsOnly) {
  const auto width = [](const dnnl::memory::dims& d, tag t) {
    return column_panel_width(dnnl::memory::desc(d, dnnl::memory::data_type::f32, t));
  };
  EXPECT_EQ(width({1000, 1280, 1}, tag::Acb16a), 16);
  EXPECT_EQ(width({1000, 1280, 1}, tag::Acb48a), 48);
  EXPECT_EQ(width({1000, 1280, 1}, tag::Acb64a), 64);
  EXPECT_EQ(width({1000, 1280, 1}, tag::abc), 0);        // plain: columns are not in panels
  EXPECT_EQ(width({1000, 1280, 1}, tag::ABc16b16a), 0);  // K blocked too
  EXPECT_EQ(width({1000, 1280, 2}, tag::Acb16a), 0);     // not a 1x1 kernel
  EXPECT_EQ(column_panel_width(
                dnnl::memory::desc({1000, 1280, 1}, dnnl::memory::data_type::s8, tag::Acb16a)),
            0);
}

TEST(PackedGemv, GemmOfFewRowsAndLargeConstantWeightsMatchesNaiveLoops) {
  std::mt19937 rng(72);
  // A classifier's shape: more weights than geon's own small product packs (PackedGemm), which
  // would take few rows first.
  const int64_t K = 1100, N = 1000;
  ThreadPool two(2);
  ScopedPool scope(&two);
  for (const bool tb : {true, false}) {
    for (const bool full_c : {false, true}) {
      const Host b = Host::random(DType::kFloat, tb ? Dims{N, K} : Dims{K, N}, rng);
      const Host c = Host::random(DType::kFloat, full_c ? Dims{2, N} : Dims{N}, rng);
      const float alpha = 0.5f, beta = full_c ? -1.5f : 1.0f;
      NodeGraph ng("Gemm", 13);
      ng.in(Host::random(DType::kFloat, {2, K}, rng)).in(b, true).in(c, !full_c);
      ng.out(DType::kFloat, {2, N}).attr_i("transB", tb ? 1 : 0);
      ng.attr_f("alpha", alpha).attr_f("beta", beta);
      const KernelEntry* e = find_kernel(dnnl_kernels(), *ng.node);
      ASSERT_NE(e, nullptr);
      const auto kernel = e->create(ng.g, *ng.node);
      for (const int64_t M : full_c ? std::vector<int64_t>{2} : std::vector<int64_t>{1, 3, 4, 5}) {
        SCOPED_TRACE("transB=" + std::to_string(tb) + " C=" + to_string(c.desc) +
                     " M=" + std::to_string(M));
        const Host a = Host::random(DType::kFloat, {M, K}, rng);
        FakeContext ctx({a, b, c}, {DType::kFloat});
        kernel->compute(ctx);
        expect_values(
            ctx.result(0), {M, N},
            [&](int64_t i) {
              return alpha * matmul_product(a, b, tb, N, i) + beta * bcast_at(c, {M, N}, i);
            },
            1e-3);  // sums of 1100 products: ONNX's rtol
      }
    }
  }
}

}  // namespace
}  // namespace geon::cpu::testing
