// cpu.dnnl MatMul and Gemm against naive triple loops: seeded random shapes with batch
// broadcasting, 1-D operands, transposed (strided) inputs read in place, Gemm's transA/transB,
// alpha/beta and every broadcast form of C (also as the primitive's bias when alpha = beta =
// 1); and supports() refusing other dtypes.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& dnnl() { return dnnl_kernels(); }

// Reference numpy matmul of a (…, M, K) by b (…, K, N), after 1-D promotion by the caller.
double ref_matmul(const Host& a, const Host& b, const Dims& full, int64_t i) {
  const int r = static_cast<int>(full.size());
  const int64_t M = full[r - 2], N = full[r - 1], K = a.desc.shape.back();
  const int64_t n = i % N, m = i / N % M, batch = i / (M * N);
  Dims bshape(full.begin(), full.end() - 2);
  Dims a_full = bshape, b_full = bshape;
  a_full.push_back(M), a_full.push_back(K);
  b_full.push_back(K), b_full.push_back(N);
  double s = 0;
  for (int64_t k = 0; k < K; ++k)
    s +=
        bcast_at(a, a_full, (batch * M + m) * K + k) * bcast_at(b, b_full, (batch * K + k) * N + n);
  return s;
}

TEST(CpuDnnlMatMul, RandomBatchBroadcastAndTransposed) {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 24; ++trial) {
    const int64_t M = 1 + rng() % 7, K = 1 + rng() % 9, N = 1 + rng() % 6;
    const Dims batch = random_shape(rng, static_cast<int>(rng() % 3), 3);
    Dims as = broadcastable(rng, batch), bs = broadcastable(rng, batch);
    as.push_back(M), as.push_back(K);
    bs.push_back(K), bs.push_back(N);
    Host a = Host::random(DType::kFloat, as, rng), b = Host::random(DType::kFloat, bs, rng);
    auto swap_last = [](int r) {
      std::vector<int64_t> p(r);
      for (int k = 0; k < r; ++k) p[k] = k;
      std::swap(p[r - 1], p[r - 2]);
      return p;
    };
    if (trial % 2) a = a.strided(swap_last(a.desc.rank()));  // A stored transposed
    if (trial % 3 == 0) b = b.strided(swap_last(b.desc.rank()));
    Dims full = broadcast_shapes(Dims(as.begin(), as.end() - 2), Dims(bs.begin(), bs.end() - 2));
    full.push_back(M), full.push_back(N);
    NodeGraph ng("MatMul", 13);
    ng.in(a).in(b).out(DType::kFloat, full);
    SCOPED_TRACE(to_string(a.desc) + " x " + to_string(b.desc));
    expect_values(
        ng.run(dnnl())[0], full, [&](int64_t i) { return ref_matmul(a, b, full, i); }, 1e-4);
  }
}

TEST(CpuDnnlMatMul, VectorOperands) {
  std::mt19937 rng(32);
  const Host v = Host::random(DType::kFloat, {4}, rng);
  const Host m = Host::random(DType::kFloat, {2, 4, 3}, rng);
  const Host mt = Host::random(DType::kFloat, {2, 3, 4}, rng);
  NodeGraph vm("MatMul", 13), mv("MatMul", 13), vv("MatMul", 13);
  vm.in(v).in(m).out(DType::kFloat, {2, 3});
  mv.in(mt).in(v).out(DType::kFloat, {2, 3});
  vv.in(v).in(v);
  vv.out(DType::kFloat);
  expect_values(
      vm.run(dnnl())[0], {2, 3},
      [&](int64_t i) {
        double s = 0;
        for (int k = 0; k < 4; ++k) s += v.at(k) * m.at(i / 3 * 12 + k * 3 + i % 3);
        return s;
      },
      1e-4);
  expect_values(
      mv.run(dnnl())[0], {2, 3},
      [&](int64_t i) {
        double s = 0;
        for (int k = 0; k < 4; ++k) s += mt.at(i * 4 + k) * v.at(k);
        return s;
      },
      1e-4);
  double dot = 0;
  for (int k = 0; k < 4; ++k) dot += v.at(k) * v.at(k);
  expect_values(
      vv.run(dnnl())[0], {}, [&](int64_t) { return dot; }, 1e-4);
}

TEST(CpuDnnlGemm, TransposesAlphaBetaAndCBroadcast) {
  std::mt19937 rng(33);
  const int64_t M = 5, K = 7, N = 3;
  const std::vector<Dims> c_shapes = {{}, {N}, {1, N}, {M, 1}, {M, N}};
  int trial = 0;
  for (const Dims& cs : c_shapes) {
    for (int t = 0; t < 4; ++t, ++trial) {
      const bool ta = t & 1, tb = t & 2;
      const Host a = Host::random(DType::kFloat, ta ? Dims{K, M} : Dims{M, K}, rng);
      Host b = Host::random(DType::kFloat, tb ? Dims{N, K} : Dims{K, N}, rng);
      if (trial % 3 == 0) b = b.strided({1, 0});
      const Host c = Host::random(DType::kFloat, cs, rng);
      const float alpha = 0.5f + static_cast<float>(trial % 3),
                  beta = trial % 4 == 0 ? 1.0f : -0.75f;
      NodeGraph ng("Gemm", 13);
      ng.in(a).in(b).in(c).out(DType::kFloat, {M, N}).attr_i("transA", ta).attr_i("transB", tb);
      ng.attr_f("alpha", alpha).attr_f("beta", beta);
      SCOPED_TRACE(to_string(c.desc) + " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb));
      expect_values(
          ng.run(dnnl())[0], {M, N},
          [&](int64_t i) {
            const int64_t m = i / N, n = i % N;
            double s = 0;
            for (int64_t k = 0; k < K; ++k)
              s += a.at(ta ? k * M + m : m * K + k) * b.at(tb ? n * K + k : k * N + n);
            return alpha * s + beta * bcast_at(c, {M, N}, i);
          },
          1e-4);
    }
  }
  const Host a = Host::random(DType::kFloat, {M, K}, rng),
             b = Host::random(DType::kFloat, {K, N}, rng);
  NodeGraph no_c("Gemm", 13);
  no_c.in(a).in(b).out(DType::kFloat, {M, N}).attr_f("alpha", 2);
  expect_values(
      no_c.run(dnnl())[0], {M, N},
      [&](int64_t i) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += a.at(i / N * K + k) * b.at(k * N + i % N);
        return 2 * s;
      },
      1e-4);
}

// alpha = beta = 1 takes the path where C is the primitive's bias (no pre-filled Y): every
// broadcast form of C, transposed operands and a transposed (strided) C.
TEST(CpuDnnlGemm, UnitAlphaBetaAddsEveryBroadcastOfC) {
  std::mt19937 rng(34);
  const int64_t M = 6, K = 5, N = 4;
  const std::vector<Dims> c_shapes = {{}, {1}, {N}, {1, N}, {M, 1}, {M, N}, {1, 1}};
  int trial = 0;
  for (const Dims& cs : c_shapes) {
    for (int t = 0; t < 4; ++t, ++trial) {
      const bool ta = t & 1, tb = t & 2;
      const Host a = Host::random(DType::kFloat, ta ? Dims{K, M} : Dims{M, K}, rng);
      const Host b = Host::random(DType::kFloat, tb ? Dims{N, K} : Dims{K, N}, rng);
      Host c = Host::random(DType::kFloat, cs, rng);
      if (cs.size() == 2 && trial % 2) c = c.strided({1, 0});
      NodeGraph ng("Gemm", 13);
      ng.in(a).in(b).in(c).out(DType::kFloat, {M, N}).attr_i("transA", ta).attr_i("transB", tb);
      SCOPED_TRACE(to_string(c.desc) + " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb));
      expect_values(
          ng.run(dnnl())[0], {M, N},
          [&](int64_t i) {
            const int64_t m = i / N, n = i % N;
            double s = 0;
            for (int64_t k = 0; k < K; ++k)
              s += a.at(ta ? k * M + m : m * K + k) * b.at(tb ? n * K + k : k * N + n);
            return s + bcast_at(c, {M, N}, i);
          },
          1e-4);
    }
  }
}

TEST(CpuDnnl, SupportsReasons) {
  NodeGraph d("MatMul", 13);
  d.in(Host::dense(DType::kDouble, {2, 2})).in(Host::dense(DType::kDouble, {2, 2}));
  d.out(DType::kDouble, {2, 2});
  ASSERT_TRUE(d.supports(dnnl()));
  EXPECT_NE(d.supports(dnnl())->find("double"), std::string::npos);
  NodeGraph g("Gemm", 13);
  g.in(Host::dense(DType::kFloat, {2, 2, 2})).in(Host::dense(DType::kFloat, {2, 2}));
  g.out(DType::kFloat, {2, 2});
  EXPECT_TRUE(g.supports(dnnl()));
  NodeGraph add("Add", 13);
  EXPECT_EQ(add.supports(dnnl()), "no entry");
}

}  // namespace
}  // namespace geon::cpu::testing
