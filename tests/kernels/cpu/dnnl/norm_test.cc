// cpu.dnnl LayerNormalization (layer_normalization_forward) against a naive loop: every axis,
// strided inputs, scale that broadcasts to x[axis:], bias given or omitted, the Mean and
// InvStdDev outputs, a shape big enough for oneDNN's threads, and the refusal of non-float.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

struct RowStats {
  std::vector<double> mean, inv;
};
// Mean and 1/sqrt(var + eps) of each of `rows` consecutive runs of n elements of x.
RowStats naive_rows(const Host& x, int64_t rows, int64_t n, double eps) {
  RowStats st{std::vector<double>(rows), std::vector<double>(rows)};
  for (int64_t r = 0; r < rows; ++r) {
    double m = 0, v = 0;
    for (int64_t j = 0; j < n; ++j) m += x.at(r * n + j) / n;
    for (int64_t j = 0; j < n; ++j) v += (x.at(r * n + j) - m) * (x.at(r * n + j) - m) / n;
    st.mean[r] = m;
    st.inv[r] = 1 / std::sqrt(v + eps);
  }
  return st;
}

void check(std::mt19937& rng, const Dims& s, int axis, bool strided, bool bias, bool stats) {
  const int rank = static_cast<int>(s.size()), a = axis < 0 ? axis + rank : axis;
  Host x = Host::random(DType::kFloat, s, rng, -3, 3);
  if (strided) {
    std::vector<int64_t> perm;
    for (int k = rank - 1; k >= 0; --k) perm.push_back(k);
    x = x.strided(perm);
  }
  const Dims tail(s.begin() + a, s.end());
  Dims scale_shape = tail;
  scale_shape.back() = 1;  // broadcast along the last normalised dim
  const Host sc = Host::random(DType::kFloat, scale_shape, rng),
             b = Host::random(DType::kFloat, tail, rng);
  const int64_t n = element_count(tail), rows = element_count(s) / n;
  Dims stat_shape(s.begin(), s.begin() + a);
  stat_shape.resize(rank, 1);
  const double eps = 1e-3;
  NodeGraph ng("LayerNormalization", 17);
  ng.in(x).in(sc);
  if (bias) ng.in(b);
  ng.out(DType::kFloat, s).attr_i("axis", axis).attr_f("epsilon", float(eps));
  if (stats) ng.out(DType::kFloat, stat_shape).out(DType::kFloat, stat_shape);
  ASSERT_EQ(ng.supports(dnnl_kernels()), std::nullopt);
  const std::vector<Host> got = ng.run(dnnl_kernels());
  const RowStats st = naive_rows(x, rows, n, eps);
  SCOPED_TRACE("axis " + std::to_string(axis) + " " + to_string(x.desc));
  expect_values(
      got[0], s,
      [&](int64_t i) {
        const int64_t r = i / n, j = i % n;
        return (x.at(i) - st.mean[r]) * st.inv[r] * bcast_at(sc, tail, j) + (bias ? b.at(j) : 0);
      },
      1e-4);
  if (!stats) return;
  expect_values(
      got[1], stat_shape, [&](int64_t r) { return st.mean[r]; }, 1e-4);
  expect_values(
      got[2], stat_shape, [&](int64_t r) { return st.inv[r]; }, 1e-4);
}

TEST(CpuDnnlLayerNorm, EveryAxisWithAndWithoutBiasAndStats) {
  std::mt19937 rng(51);
  int trial = 0;
  for (int rank = 2; rank <= 4; ++rank)
    for (int axis = -rank; axis < rank; ++axis, ++trial)
      check(rng, random_shape(rng, rank, 6), axis, trial % 2, trial % 3 != 0, trial % 4 < 2);
}

TEST(CpuDnnlLayerNorm, LargeRowsRunThreaded) {
  std::mt19937 rng(52);
  check(rng, {3, 129, 771}, -1, false, true, true);
  check(rng, {3, 129, 771}, 1, true, true, false);
}

TEST(CpuDnnlLayerNorm, RefusesNonFloatWithReason) {
  NodeGraph ng("LayerNormalization", 17);
  ng.in(Host::dense(DType::kFloat16, {2, 3})).in(Host::dense(DType::kFloat16, {3}));
  ng.out(DType::kFloat16, {2, 3});
  const auto why = ng.supports(dnnl_kernels());
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("float16"), std::string::npos) << *why;
}

}  // namespace
}  // namespace geon::cpu::testing
