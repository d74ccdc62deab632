// max_pool_2d_channels_last (kernels/cpu/native) against a naive loop: random windows,
// strides, dilations, asymmetric pads and ceil_mode's extra windows, channel counts that are
// not a multiple of the vector width, one and several threads; NaN propagates as in the ONNX
// reference's max; and what it declines, leaving y untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/conv_params.h"
#include "kernels/cpu/native/max_pool.h"

namespace geon::cpu {
namespace {

PoolGeometry geometry(Dims in, Dims kernel, Dims strides, Dims dilations, Dims pb, Dims pe,
                      bool ceil) {
  PoolGeometry g;
  g.in = in;
  g.kernel = kernel;
  g.strides = strides;
  g.dilations = dilations;
  g.pad_begin = pb;
  g.pad_end = pe;
  for (int i = 0; i < 2; ++i) {
    const int64_t span = in[i] + pb[i] + pe[i] - ((kernel[i] - 1) * dilations[i] + 1);
    g.out.push_back((ceil ? (span + strides[i] - 1) / strides[i] : span / strides[i]) + 1);
  }
  return g;
}

// NCHW-indexed naive max over x held channels-last; NaN wins.
std::vector<float> naive(const PoolGeometry& g, int64_t n, int64_t c, const std::vector<float>& x) {
  const int64_t h = g.in[0], w = g.in[1], oh = g.out[0], ow = g.out[1];
  std::vector<float> y(static_cast<size_t>(n * oh * ow * c));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          float m = -std::numeric_limits<float>::infinity();
          bool nan = false;
          for (int64_t r = 0; r < g.kernel[0]; ++r)
            for (int64_t q = 0; q < g.kernel[1]; ++q) {
              const int64_t yy = i * g.strides[0] - g.pad_begin[0] + r * g.dilations[0];
              const int64_t xx = j * g.strides[1] - g.pad_begin[1] + q * g.dilations[1];
              if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
              const float v = x[((b * h + yy) * w + xx) * c + ch];
              nan = nan || std::isnan(v);
              m = std::max(m, v);
            }
          y[((b * oh + i) * ow + j) * c + ch] = nan ? std::numeric_limits<float>::quiet_NaN() : m;
        }
  return y;
}

void check(const PoolGeometry& g, int64_t n, int64_t c, int threads, uint32_t seed, bool nans) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(n * c * g.in[0] * g.in[1]));
  for (float& v : x) v = u(gen);
  if (nans)
    for (size_t i = 0; i < x.size(); i += 37) x[i] = std::numeric_limits<float>::quiet_NaN();
  const TensorDesc xd = channels_last(DType::kFloat, Dims{n, c, g.in[0], g.in[1]});
  const TensorDesc yd = channels_last(DType::kFloat, Dims{n, c, g.out[0], g.out[1]});
  std::vector<float> y(static_cast<size_t>(element_count(yd)), -7.0f);
  ThreadPool pool(threads);
  ScopedPool scope(&pool);
  ASSERT_TRUE(max_pool_2d_channels_last(g, ConstOperand(xd, x.data()), Operand{yd, y.data()}));
  const std::vector<float> want = naive(g, n, c, x);
  for (size_t i = 0; i < y.size(); ++i) {
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(y[i])) << "element " << i << " is " << y[i] << ", want NaN";
      continue;
    }
    ASSERT_EQ(y[i], want[i]) << "element " << i;
  }
}

TEST(NativeMaxPool, ResNetStemWindowMatchesNaiveLoop) {
  check(geometry({20, 18}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, false), 1, 64, 2, 1, false);
}

TEST(NativeMaxPool, StridesDilationsAsymmetricPadsAndCeilMode) {
  check(geometry({9, 11}, {2, 3}, {2, 1}, {2, 1}, {0, 2}, {1, 0}, true), 2, 13, 3, 2, false);
  check(geometry({7, 7}, {3, 3}, {3, 3}, {1, 1}, {0, 0}, {0, 0}, true), 3, 5, 1, 3, false);
  check(geometry({5, 8}, {1, 1}, {1, 2}, {1, 1}, {0, 0}, {0, 0}, false), 1, 1, 2, 4, false);
}

TEST(NativeMaxPool, NaNPropagatesWhereverItIsInTheWindow) {
  check(geometry({12, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false), 2, 19, 2, 5, true);
}

TEST(NativeMaxPool, DeclinesWhatItDoesNotTakeAndWritesNothing) {
  const PoolGeometry g = geometry({6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false);
  std::vector<float> x(2 * 4 * 36, 1.0f), y(2 * 4 * 36, -7.0f);
  const TensorDesc xcl = channels_last(DType::kFloat, Dims{2, 4, 6, 6});
  const TensorDesc ycl = channels_last(DType::kFloat, Dims{2, 4, 6, 6});
  const TensorDesc nchw = row_major(DType::kFloat, Dims{2, 4, 6, 6});
  EXPECT_FALSE(max_pool_2d_channels_last(g, ConstOperand(nchw, x.data()), Operand{ycl, y.data()}));
  EXPECT_FALSE(max_pool_2d_channels_last(g, ConstOperand(xcl, x.data()), Operand{nchw, y.data()}));
  EXPECT_FALSE(max_pool_2d_channels_last(g, ConstOperand(xcl, x.data()), Operand{xcl, x.data()}));
  // A window wholly in the padding (pads as wide as the kernel).
  const PoolGeometry padded = geometry({6, 6}, {2, 2}, {1, 1}, {1, 1}, {2, 0}, {0, 0}, false);
  const TensorDesc yp = channels_last(DType::kFloat, Dims{2, 4, padded.out[0], padded.out[1]});
  std::vector<float> y2(static_cast<size_t>(element_count(yp)), -7.0f);
  EXPECT_FALSE(
      max_pool_2d_channels_last(padded, ConstOperand(xcl, x.data()), Operand{yp, y2.data()}));
  for (float v : y) EXPECT_EQ(v, -7.0f);
  for (float v : y2) EXPECT_EQ(v, -7.0f);
}

}  // namespace
}  // namespace geon::cpu
