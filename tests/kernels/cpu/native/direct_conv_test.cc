// DirectConv (kernels/cpu/native) against a naive loop in double: kernel sizes, strides,
// dilations, asymmetric pads, batches, output channels that are not a multiple of the 16-wide
// block, pixel counts that leave partial tiles, every activation it takes, a residual beside or
// in place of the output, no bias; and the cases it must decline, leaving the output untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/native/cpu_isa.h"
#include "kernels/cpu/native/direct_conv.h"

namespace geon::cpu {
namespace {

struct Case {
  int64_t n, c, h, w, k, kh, kw;
  Dims strides{1, 1}, dilations{1, 1}, pads{0, 0, 0, 0};
  Activation act{};
  bool bias = true, residual = false, in_place = false;
};

float rnd(std::mt19937& g) { return std::uniform_real_distribution<float>(-1.0f, 1.0f)(g); }

// Y = act(conv(X, W) + B + Z) in NCHW index terms; buffers hold channels-last data.
std::vector<double> naive(const Case& t, const ConvGeometry& geo, const std::vector<float>& x,
                          const std::vector<float>& w, const std::vector<float>& b,
                          const std::vector<float>& z) {
  const int64_t oh = geo.dst_shape[2], ow = geo.dst_shape[3];
  std::vector<double> y(static_cast<size_t>(t.n * oh * ow * t.k));
  for (int64_t n = 0; n < t.n; ++n)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t m = 0; m < t.k; ++m) {
          double s = t.bias ? b[m] : 0.0;
          for (int64_t c = 0; c < t.c; ++c)
            for (int64_t r = 0; r < t.kh; ++r)
              for (int64_t q = 0; q < t.kw; ++q) {
                const int64_t yy = i * t.strides[0] - t.pads[0] + r * t.dilations[0];
                const int64_t xx = j * t.strides[1] - t.pads[1] + q * t.dilations[1];
                if (yy < 0 || yy >= t.h || xx < 0 || xx >= t.w) continue;
                s += double(x[((n * t.h + yy) * t.w + xx) * t.c + c]) *
                     w[((m * t.c + c) * t.kh + r) * t.kw + q];
              }
          const int64_t at = ((n * oh + i) * ow + j) * t.k + m;
          if (t.residual) s += z[at];
          switch (t.act.kind) {
            case ActivationKind::kRelu:
              s = std::max(s, 0.0);
              break;
            case ActivationKind::kLeakyRelu:
              s = s < 0 ? s * t.act.alpha : s;
              break;
            case ActivationKind::kClip:
              s = std::min<double>(std::max<double>(s, t.act.alpha), t.act.beta);
              break;
            default:
              break;
          }
          y[at] = s;
        }
  return y;
}

ConvAttrs attrs_of(const Case& t) {
  ConvAttrs a;
  a.kernel_shape = {t.kh, t.kw};
  a.strides = t.strides;
  a.dilations = t.dilations;
  a.pads = t.pads;
  return a;
}

void check(const Case& t, int threads, uint32_t seed) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "the native kernels need AVX2 and FMA";
  std::mt19937 g(seed);
  const ConvAttrs a = attrs_of(t);
  auto wdata = make_tensor_data(DType::kFloat, {t.k, t.c, t.kh, t.kw});
  std::vector<float> w(static_cast<size_t>(wdata->elements()));
  for (float& v : w) v = rnd(g);
  std::memcpy(wdata->storage->data(), w.data(), w.size() * sizeof(float));
  const auto conv = DirectConv::make_for_test(a, t.act, *wdata);
  ASSERT_NE(conv, nullptr);

  const Dims xs{t.n, t.c, t.h, t.w};
  const ConvGeometry geo = conv_geometry(a, xs, wdata->desc.shape, "Conv");
  std::vector<float> x(static_cast<size_t>(t.n * t.c * t.h * t.w)), b(t.k);
  for (float& v : x) v = rnd(g);
  for (float& v : b) v = rnd(g);
  const TensorDesc yd = channels_last(DType::kFloat, geo.dst_shape);
  std::vector<float> y(static_cast<size_t>(element_count(yd)), -7.0f), z(y.size());
  for (float& v : z) v = rnd(g);
  const auto want = naive(t, geo, x, w, b, z);
  if (t.in_place) y = z;

  const ConstOperand xo(channels_last(DType::kFloat, xs), x.data());
  const ConstOperand bo(row_major(DType::kFloat, Dims{t.k}), b.data());
  const ConstOperand zo(yd, t.in_place ? y.data() : z.data());
  ThreadPool pool(threads);
  ScopedPool scope(&pool);
  ASSERT_TRUE(conv->run(geo, xo, t.bias ? &bo : nullptr, t.residual ? &zo : nullptr,
                        Operand{yd, y.data()}));
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_NEAR(y[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << "element " << i;
}

TEST(DirectConv, ThreeByThreeSamePadsMatchesNaiveLoop) {
  check({1, 16, 9, 11, 32, 3, 3, {1, 1}, {1, 1}, {1, 1, 1, 1}}, 2, 1);
}

TEST(DirectConv, OutputChannelsNotAMultipleOfTheBlockAndPartialTiles) {
  check({2, 5, 7, 5, 21, 3, 3, {1, 1}, {1, 1}, {1, 1, 1, 1}}, 3, 2);
  check({1, 3, 6, 6, 7, 2, 2}, 1, 3);
}

TEST(DirectConv, StridesDilationsAndAsymmetricPads) {
  check({1, 3, 23, 19, 16, 7, 7, {2, 2}, {1, 1}, {3, 3, 3, 3}}, 2, 4);
  check({2, 8, 12, 10, 24, 3, 3, {2, 1}, {2, 3}, {0, 2, 1, 0}}, 2, 5);
  check({1, 4, 9, 9, 16, 1, 3, {1, 2}, {1, 1}, {0, 1, 0, 1}}, 1, 6);
}

TEST(DirectConv, StridedOneByOneWithResidualAsInResNetDownsampling) {
  Case t{2, 24, 9, 8, 40, 1, 1, {2, 2}, {1, 1}, {0, 0, 0, 0}};
  t.residual = true;
  check(t, 2, 11);
  t.strides = {2, 1};
  t.residual = false;
  check(t, 1, 12);
}

TEST(DirectConv, TakesStridedOneByOneButLeavesUnstridedOneByOneToOneDnn) {
  if (!native_kernels_preferred())
    GTEST_SKIP() << "native kernels are not preferred on this CPU (no AVX2 + FMA, or AVX-512)";
  auto w = make_tensor_data(DType::kFloat, {16, 8, 1, 1});
  ConvAttrs a = attrs_of({1, 8, 4, 4, 16, 1, 1});
  EXPECT_EQ(DirectConv::make(a, Activation{}, *w), nullptr);
  a.strides = {2, 2};
  EXPECT_NE(DirectConv::make(a, Activation{}, *w), nullptr);
  a.strides = {1, 2};
  EXPECT_NE(DirectConv::make(a, Activation{}, *w), nullptr);
}

TEST(DirectConv, EveryActivationWithAndWithoutBias) {
  Case t{1, 8, 8, 8, 16, 3, 3, {1, 1}, {1, 1}, {1, 1, 1, 1}};
  t.act.kind = ActivationKind::kRelu;
  check(t, 2, 7);
  t.act = {ActivationKind::kLeakyRelu, 0.1f, 0};
  t.bias = false;
  check(t, 2, 8);
  t.act = {ActivationKind::kClip, -0.5f, 0.75f};
  check(t, 2, 9);
}

TEST(DirectConv, ResidualBesideAndInPlaceOfTheOutput) {
  Case t{2, 16, 10, 10, 48, 3, 3, {1, 1}, {1, 1}, {1, 1, 1, 1}};
  t.act.kind = ActivationKind::kRelu;
  t.residual = true;
  check(t, 2, 10);
  t.in_place = true;
  check(t, 2, 11);
}

TEST(DirectConv, DeclinesWhatItDoesNotTakeAndWritesNothing) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "the native kernels need AVX2 and FMA";
  const Case t{1, 4, 6, 6, 16, 3, 3, {1, 1}, {1, 1}, {1, 1, 1, 1}};
  ConvAttrs a = attrs_of(t);
  auto wdata = make_tensor_data(DType::kFloat, {t.k, t.c, t.kh, t.kw});
  Activation sigmoid{ActivationKind::kSigmoid, 0, 0};
  EXPECT_EQ(DirectConv::make_for_test(a, sigmoid, *wdata), nullptr);
  a.group = 2;
  EXPECT_EQ(DirectConv::make_for_test(a, Activation{}, *wdata), nullptr);
  a.group = 1;
  const auto conv = DirectConv::make_for_test(a, Activation{}, *wdata);
  ASSERT_NE(conv, nullptr);
  const Dims xs{1, 4, 6, 6};
  const ConvGeometry geo = conv_geometry(a, xs, wdata->desc.shape, "Conv");
  std::vector<float> x(144, 1.0f), y(576, 3.0f);
  // NCHW (not channels-last) input: declined, output untouched.
  EXPECT_FALSE(conv->run(geo, ConstOperand(row_major(DType::kFloat, xs), x.data()), nullptr,
                         nullptr, Operand{channels_last(DType::kFloat, geo.dst_shape), y.data()}));
  for (float v : y) ASSERT_EQ(v, 3.0f);
}

}  // namespace
}  // namespace geon::cpu
