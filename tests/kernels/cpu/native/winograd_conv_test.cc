// WinogradConv (kernels/cpu/native) against a naive loop in double: pads of 0 to 2 on any side,
// output sizes that leave partial 4x4 tiles, batches, channel counts from 8 to 184 (partial
// 16-wide blocks, chunks of several tiles, products split by points), every activation it
// takes, a residual beside or in place of the output, no bias, pools of 1 to 3 threads; and
// what it must decline (strides, dilations, other kernels, channels that are not 8k, too few
// tiles, x overlapping dst, and non-finite weights or inputs, which the transforms would spread
// across a tile).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/native/cpu_isa.h"
#include "kernels/cpu/native/winograd_conv.h"

namespace geon::cpu {
namespace {

struct Case {
  int64_t n, c, h, w, k;
  Dims pads{1, 1, 1, 1};
  Activation act{};
  bool bias = true, residual = false, in_place = false;
};

float rnd(std::mt19937& g) { return std::uniform_real_distribution<float>(-1.0f, 1.0f)(g); }

ConvAttrs attrs_of(const Dims& pads, int64_t kernel = 3, int64_t stride = 1, int64_t dilation = 1) {
  ConvAttrs a;
  a.kernel_shape = {kernel, kernel};
  a.strides = {stride, stride};
  a.dilations = {dilation, dilation};
  a.pads = pads;
  return a;
}

std::shared_ptr<TensorData> random_weights(int64_t k, int64_t c, int64_t kernel, std::mt19937& g) {
  auto wdata = make_tensor_data(DType::kFloat, {k, c, kernel, kernel});
  float* w = reinterpret_cast<float*>(wdata->storage->data());
  for (int64_t i = 0; i < wdata->elements(); ++i) w[i] = rnd(g);
  return wdata;
}

// act(conv(X, W) + B + Z) for channels-last X and Y; also sum |x w| + |b| + |z| per output, the
// scale the rounding of any summation order is bounded by.
void naive(const Case& t, const ConvGeometry& geo, const std::vector<float>& x, const float* w,
           const std::vector<float>& b, const std::vector<float>& z, std::vector<double>& y,
           std::vector<double>& scale) {
  const int64_t oh = geo.dst_shape[2], ow = geo.dst_shape[3];
  y.assign(static_cast<size_t>(t.n * oh * ow * t.k), 0.0);
  scale = y;
  for (int64_t n = 0; n < t.n; ++n)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t m = 0; m < t.k; ++m) {
          double s = t.bias ? b[m] : 0.0, a = std::abs(s);
          for (int64_t c = 0; c < t.c; ++c)
            for (int64_t r = 0; r < 3; ++r)
              for (int64_t q = 0; q < 3; ++q) {
                const int64_t yy = i - t.pads[0] + r, xx = j - t.pads[1] + q;
                if (yy < 0 || yy >= t.h || xx < 0 || xx >= t.w) continue;
                const double p = double(x[((n * t.h + yy) * t.w + xx) * t.c + c]) *
                                 w[((m * t.c + c) * 3 + r) * 3 + q];
                s += p;
                a += std::abs(p);
              }
          const int64_t at = ((n * oh + i) * ow + j) * t.k + m;
          if (t.residual) {
            s += z[at];
            a += std::abs(z[at]);
          }
          if (t.act.kind == ActivationKind::kRelu) s = std::max(s, 0.0);
          if (t.act.kind == ActivationKind::kLeakyRelu && s < 0) s *= t.act.alpha;
          if (t.act.kind == ActivationKind::kClip)
            s = std::min<double>(std::max<double>(s, t.act.alpha), t.act.beta);
          y[at] = s;
          scale[at] = a;
        }
}

void check(const Case& t, int threads, uint32_t seed) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "the native kernels need AVX2 and FMA";
  std::mt19937 g(seed);
  const ConvAttrs a = attrs_of(t.pads);
  const auto wdata = random_weights(t.k, t.c, 3, g);
  const auto conv = WinogradConv::make_for_test(a, t.act, *wdata);
  ASSERT_NE(conv, nullptr);

  const Dims xs{t.n, t.c, t.h, t.w};
  const ConvGeometry geo = conv_geometry(a, xs, wdata->desc.shape, "Conv");
  std::vector<float> x(static_cast<size_t>(t.n * t.c * t.h * t.w)), b(t.k);
  for (float& v : x) v = rnd(g);
  for (float& v : b) v = rnd(g);
  const TensorDesc yd = channels_last(DType::kFloat, geo.dst_shape);
  std::vector<float> y(static_cast<size_t>(element_count(yd)), -7.0f), z(y.size());
  for (float& v : z) v = rnd(g);
  std::vector<double> want, scale;
  naive(t, geo, x, reinterpret_cast<const float*>(wdata->storage->data()), b, z, want, scale);
  if (t.in_place) y = z;
  const std::vector<float> x_before = x;

  const ConstOperand xo(channels_last(DType::kFloat, xs), x.data());
  const ConstOperand bo(row_major(DType::kFloat, Dims{t.k}), b.data());
  const ConstOperand zo(yd, t.in_place ? y.data() : z.data());
  ThreadPool pool(threads);
  ScopedPool scope(&pool);
  ASSERT_TRUE(conv->run(geo, xo, t.bias ? &bo : nullptr, t.residual ? &zo : nullptr,
                        Operand{yd, y.data()}, 1));
  // F(4x4, 3x3)'s transforms grow the rounding of a direct sum by a small constant factor:
  // 1e-5 of the sum of magnitudes is ~80 float ulps of it, and a wrong tap or point is off by a
  // whole term.
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_NEAR(y[i], want[i], 1e-5 * (1 + scale[i])) << "element " << i;
  EXPECT_EQ(x, x_before);
}

TEST(WinogradConv, SamePadsWholeTilesMatchNaiveLoop) { check({1, 16, 8, 8, 16}, 1, 1); }

TEST(WinogradConv, PartialTilesAndEveryPadMatchNaiveLoop) {
  check({1, 8, 7, 9, 8, {0, 0, 0, 0}}, 2, 2);
  check({2, 8, 10, 5, 24, {2, 1, 0, 2}}, 3, 3);
  check({1, 16, 1, 1, 8, {1, 1, 1, 1}}, 1, 4);
  check({1, 8, 13, 6, 16, {0, 2, 2, 0}}, 2, 5);
}

TEST(WinogradConv, WideChannelsSeveralChunksAndBatchesMatchNaiveLoop) {
  check({2, 64, 23, 21, 72}, 2, 6);
  check({1, 136, 12, 12, 40}, 3, 7);
}

// Transformed weights of 4 MiB or more and more chunks than threads: the products split by
// points over the whole transformed input, on one thread and on two.
TEST(WinogradConv, WideLayersWithFewTilesSplitByPointsMatchNaiveLoop) {
  check({1, 176, 10, 10, 176}, 1, 13);
  check({2, 176, 9, 9, 184, {1, 1, 1, 1}, {ActivationKind::kRelu}, true, true}, 2, 14);
}

TEST(WinogradConv, ActivationsResidualAndNoBiasMatchNaiveLoop) {
  Activation relu{ActivationKind::kRelu};
  Activation leaky{ActivationKind::kLeakyRelu, 0.1f};
  Activation clip{ActivationKind::kClip, -0.5f, 0.75f};
  check({1, 16, 9, 11, 32, {1, 1, 1, 1}, relu, true, true}, 2, 8);
  check({1, 16, 9, 11, 32, {1, 1, 1, 1}, leaky, false, true, true}, 2, 9);
  check({2, 24, 6, 10, 16, {1, 1, 1, 1}, clip, false}, 1, 10);
}

TEST(WinogradConv, DeclinesWhatItDoesNotTake) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "the native kernels need AVX2 and FMA";
  std::mt19937 g(11);
  const Dims pads{1, 1, 1, 1};
  const auto w16 = random_weights(16, 16, 3, g);
  EXPECT_EQ(WinogradConv::make_for_test(attrs_of(pads, 3, 2), {}, *w16), nullptr);
  EXPECT_EQ(WinogradConv::make_for_test(attrs_of(pads, 3, 1, 2), {}, *w16), nullptr);
  EXPECT_EQ(WinogradConv::make_for_test(attrs_of(pads, 5), {}, *random_weights(16, 16, 5, g)),
            nullptr);
  EXPECT_EQ(WinogradConv::make_for_test(attrs_of(pads), {}, *random_weights(16, 12, 3, g)),
            nullptr);
  EXPECT_EQ(WinogradConv::make_for_test(attrs_of(pads), {}, *random_weights(20, 16, 3, g)),
            nullptr);
  ConvAttrs grouped = attrs_of(pads);
  grouped.group = 2;
  EXPECT_EQ(WinogradConv::make_for_test(grouped, {}, *random_weights(16, 8, 3, g)), nullptr);

  const auto conv = WinogradConv::make_for_test(attrs_of(pads), {}, *w16);
  ASSERT_NE(conv, nullptr);
  const Dims xs{1, 16, 8, 8};
  const ConvGeometry geo = conv_geometry(attrs_of(pads), xs, w16->desc.shape, "Conv");
  const TensorDesc xd = channels_last(DType::kFloat, xs);
  std::vector<float> buf(static_cast<size_t>(element_count(xd)), 0.5f);
  const std::vector<float> before = buf;
  // Four tiles: below a minimum of five, and x the same memory as dst.
  std::vector<float> y(buf.size(), -7.0f);
  EXPECT_FALSE(
      conv->run(geo, ConstOperand(xd, buf.data()), nullptr, nullptr, Operand{xd, y.data()}, 5));
  EXPECT_FALSE(
      conv->run(geo, ConstOperand(xd, buf.data()), nullptr, nullptr, Operand{xd, buf.data()}, 1));
  // Row-major (NCHW) x.
  EXPECT_FALSE(conv->run(geo, ConstOperand(row_major(DType::kFloat, xs), buf.data()), nullptr,
                         nullptr, Operand{xd, y.data()}, 1));
  EXPECT_EQ(buf, before);
  EXPECT_EQ(y, std::vector<float>(buf.size(), -7.0f));
}

TEST(WinogradConv, NonFiniteWeightsOrInputsAreLeftToTheDirectKernels) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "the native kernels need AVX2 and FMA";
  std::mt19937 g(12);
  const Dims pads{1, 1, 1, 1};
  const auto w = random_weights(8, 8, 3, g);
  float* wf = reinterpret_cast<float*>(w->storage->data());
  wf[40] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(WinogradConv::make_for_test(attrs_of(pads), {}, *w), nullptr);
  wf[40] = 0.5f;
  const auto conv = WinogradConv::make_for_test(attrs_of(pads), {}, *w);
  ASSERT_NE(conv, nullptr);
  const Dims xs{1, 8, 21, 19};
  const ConvGeometry geo = conv_geometry(attrs_of(pads), xs, w->desc.shape, "Conv");
  const TensorDesc xd = channels_last(DType::kFloat, xs);
  std::vector<float> x(static_cast<size_t>(element_count(xd)));
  for (float& v : x) v = rnd(g);
  std::vector<float> y(x.size(), -7.0f);
  // Past the vector loop's multiple of 32 and inside it, each value alone.
  for (const size_t at : {size_t{5}, x.size() - 3})
    for (const float bad :
         {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
          std::numeric_limits<float>::quiet_NaN()}) {
      const float keep = x[at];
      x[at] = bad;
      EXPECT_FALSE(
          conv->run(geo, ConstOperand(xd, x.data()), nullptr, nullptr, Operand{xd, y.data()}, 1))
          << "at " << at << " value " << bad;
      x[at] = keep;
    }
  EXPECT_EQ(y, std::vector<float>(x.size(), -7.0f));
  EXPECT_TRUE(
      conv->run(geo, ConstOperand(xd, x.data()), nullptr, nullptr, Operand{xd, y.data()}, 1));
}

}  // namespace
}  // namespace geon::cpu
