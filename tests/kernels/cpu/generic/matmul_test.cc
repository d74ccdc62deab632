// cpu.generic MatMul and Gemm against naive loops: every integer width (wrapping), double,
// float16 and bfloat16; broadcast batch dims and 1-D promotion on either side; transposed
// (strided) operands; Gemm's transA/transB/alpha/beta and every broadcast of C.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// Index of (batch index of out, row, col) into an operand of `shape` (rank >= 2), with its
// batch dims broadcast to `batch`.
int64_t mat_index(const Dims& shape, const Dims& batch, int64_t bi, int64_t r, int64_t c) {
  const int rank = static_cast<int>(shape.size());
  const int br = static_cast<int>(batch.size());
  int64_t idx = 0, stride = shape[rank - 1] * shape[rank - 2];
  idx = r * shape[rank - 1] + c;
  for (int k = rank - 3; k >= 0; --k) {
    const int bk = br - (rank - 2) + k;
    int64_t rem = bi;
    for (int j = br - 1; j > bk; --j) rem /= batch[j];
    const int64_t coord = rem % batch[bk];
    idx += (shape[k] == 1 ? 0 : coord) * stride;
    stride *= shape[k];
  }
  return idx;
}

// numpy matmul of a and b, values as doubles; wrap(v) maps an exact sum to the dtype.
std::vector<double> naive_matmul(const Host& a, const Host& b, Dims* out_shape,
                                 const std::function<double(double)>& wrap) {
  Dims as = a.shape(), bs = b.shape();
  if (as.size() == 1) as.insert(as.begin(), 1);
  if (bs.size() == 1) bs.push_back(1);
  const int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  const Dims batch =
      broadcast_shapes(Dims(as.begin(), as.end() - 2), Dims(bs.begin(), bs.end() - 2));
  *out_shape = batch;
  if (a.shape().size() > 1) out_shape->push_back(M);
  if (b.shape().size() > 1) out_shape->push_back(N);
  std::vector<double> y;
  for (int64_t bi = 0; bi < element_count(batch); ++bi)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k)
          s = wrap(s + a.at(mat_index(as, batch, bi, i, k)) * b.at(mat_index(bs, batch, bi, k, j)));
        y.push_back(s);
      }
  return y;
}

double wrap_to(DType t, double v) {
  if (t == DType::kInt32) return static_cast<double>(static_cast<int32_t>(static_cast<int64_t>(v)));
  if (t == DType::kUInt32)
    return static_cast<double>(static_cast<uint32_t>(static_cast<int64_t>(v)));
  if (t == DType::kInt8) return static_cast<double>(static_cast<int8_t>(static_cast<int64_t>(v)));
  if (t == DType::kUInt8) return static_cast<double>(static_cast<uint8_t>(static_cast<int64_t>(v)));
  return v;
}

TEST(CpuGenericMatMul, EveryDtypeBroadcastBatchesAndOneDimPromotion) {
  std::mt19937 rng(21);
  const DType types[] = {DType::kInt32,    DType::kInt64, DType::kUInt32, DType::kUInt64,
                         DType::kInt8,     DType::kUInt8, DType::kDouble, DType::kFloat16,
                         DType::kBFloat16, DType::kInt16, DType::kUInt16};
  const std::pair<Dims, Dims> shapes[] = {
      {{3, 4}, {4, 5}}, {{2, 3, 4}, {4, 5}}, {{2, 1, 3, 4}, {5, 4, 7}}, {{4}, {4}},
      {{4}, {2, 4, 3}}, {{2, 3, 4}, {4}},    {{1, 3, 7}, {6, 7, 2}},    {{5, 1, 9}, {9, 1}},
      {{3, 0}, {0, 2}},
  };
  for (DType t : types) {
    const bool is_int = is_integer(t);
    const bool narrow = t == DType::kInt8 || t == DType::kUInt8;
    for (const auto& [sa, sb] : shapes) {
      const double lo = is_int ? (is_signed(t) ? -40 : 0) : -2, hi = is_int ? 40 : 2;
      Host a = Host::random(t, sa, rng, lo, hi), b = Host::random(t, sb, rng, lo, hi);
      if (a.desc.rank() == 2) a = a.strided({1, 0});
      if (b.desc.rank() == 3) b = b.strided({2, 0, 1});
      Dims out;
      const auto want = naive_matmul(a, b, &out, [&](double v) {
        return narrow || t == DType::kInt32 || t == DType::kUInt32 ? wrap_to(t, v) : v;
      });
      NodeGraph ng("MatMul", 13);
      ng.in(a).in(b).out(t, out);
      ASSERT_EQ(ng.supports(gen()), std::nullopt) << dtype_name(t);
      const Host y = ng.run(gen())[0];
      SCOPED_TRACE(std::string(dtype_name(t)) + " " + to_string(a.desc) + " x " +
                   to_string(b.desc));
      // Half types: products of values rounded to the type, accumulated in float, rounded once.
      const double tol = t == DType::kBFloat16 ? 1e-2 : t == DType::kFloat16 ? 2e-3 : 1e-12;
      expect_values(
          y, out, [&](int64_t i) { return want[i]; }, tol);
    }
  }
}

TEST(CpuGenericMatMul, LargeProductSplitAcrossThreadsMatchesNaive) {
  std::mt19937 rng(5);
  const Host a = Host::random(DType::kInt64, {3, 37, 96}, rng, -50, 50);
  const Host b = Host::random(DType::kInt64, {96, 81}, rng, -50, 50);
  NodeGraph ng("MatMul", 13);
  ng.in(a).in(b).out(DType::kInt64, {3, 37, 81});
  Dims out;
  const auto want = naive_matmul(a, b, &out, [](double v) { return v; });
  expect_values(
      ng.run(gen())[0], out, [&](int64_t i) { return want[i]; }, 0);
}

TEST(CpuGenericMatMul, FloatIsLeftToOneDnnButAlsoRunsHere) {
  std::mt19937 rng(3);
  Host a = Host::random(DType::kFloat, {3, 5}, rng), b = Host::random(DType::kFloat, {5, 2}, rng);
  NodeGraph ng("MatMul", 13);
  ng.in(a).in(b).out(DType::kFloat, {3, 2});
  Dims out;
  const auto want = naive_matmul(a, b, &out, [](double v) { return v; });
  expect_values(
      ng.run(gen())[0], {3, 2}, [&](int64_t i) { return want[i]; }, 1e-5);
}

TEST(CpuGenericMatMul, RefusesMixedDtypesAndBoolWithAReason) {
  NodeGraph mixed("MatMul", 13);
  mixed.in(Host::dense(DType::kInt32, {2, 2}))
      .in(Host::dense(DType::kInt64, {2, 2}))
      .out(DType::kInt32, {2, 2});
  ASSERT_TRUE(mixed.supports(gen()).has_value());
  EXPECT_NE(mixed.supports(gen())->find("int64"), std::string::npos);
  NodeGraph boolean("MatMul", 13);
  boolean.in(Host::dense(DType::kBool, {2, 2}))
      .in(Host::dense(DType::kBool, {2, 2}))
      .out(DType::kBool, {2, 2});
  EXPECT_TRUE(boolean.supports(gen()).has_value());
}

TEST(CpuGenericGemm, TransposesAlphaBetaAndEveryBroadcastOfC) {
  std::mt19937 rng(9);
  const int64_t M = 3, K = 5, N = 4;
  const Dims c_shapes[] = {{}, {1}, {N}, {1, N}, {M, 1}, {M, N}};
  for (DType t : {DType::kDouble, DType::kInt64, DType::kInt32, DType::kFloat16}) {
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        for (size_t ci = 0; ci <= std::size(c_shapes); ++ci) {
          const bool has_c = ci < std::size(c_shapes);
          const bool is_int = is_integer(t);
          const double lo = is_int ? -20 : -2, hi = is_int ? 20 : 2;
          const Host a = Host::random(t, ta ? Dims{K, M} : Dims{M, K}, rng, lo, hi);
          const Host b = Host::random(t, tb ? Dims{N, K} : Dims{K, N}, rng, lo, hi);
          const Host c = has_c ? Host::random(t, c_shapes[ci], rng, lo, hi) : Host{};
          const float alpha = is_int ? 2.0f : 0.75f, beta = is_int ? -3.0f : 1.5f;
          NodeGraph ng("Gemm", 13);
          ng.in(a).in(b);
          if (has_c) ng.in(c);
          ng.out(t, {M, N})
              .attr_i("transA", ta)
              .attr_i("transB", tb)
              .attr_f("alpha", alpha)
              .attr_f("beta", beta);
          const Host y = ng.run(gen())[0];
          SCOPED_TRACE(std::string(dtype_name(t)) + " ta " + std::to_string(ta) + " tb " +
                       std::to_string(tb) + " c " + (has_c ? to_string(c.desc) : "none"));
          expect_values(
              y, {M, N},
              [&](int64_t idx) {
                const int64_t i = idx / N, j = idx % N;
                double s = 0;
                for (int64_t k = 0; k < K; ++k)
                  s += a.at(ta ? k * M + i : i * K + k) * b.at(tb ? j * K + k : k * N + j);
                double v = alpha * s;
                if (has_c) v += beta * bcast_at(c, {M, N}, idx);
                return v;
              },
              t == DType::kFloat16 ? 3e-3 : 1e-9);
        }
  }
}

}  // namespace
}  // namespace geon::cpu::testing
