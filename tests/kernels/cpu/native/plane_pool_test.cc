// pool_planes (kernels/cpu/native/plane_pool.h) against a naive loop over NCHW: max, the
// average without and with the pads counted, windows of 1 to 5 taps with strides 1 to 3 (the
// fixed 2- and 3-tap paths and the general one), dilations, asymmetric pads and ceil_mode's
// extra positions, 1-D pools, rows that are not a multiple of the vector width, views with gaps
// between rows and planes, one and two threads; NaN and infinities where the reference puts
// them; and what it declines, leaving y untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/conv_params.h"
#include "kernels/cpu/native/plane_pool.h"

namespace geon::cpu {
namespace {

struct Window {
  Dims in, kernel, strides, dilations, pad_begin, pad_end;
  bool ceil = false;
};

PoolGeometry geometry(const Window& w) {
  PoolGeometry g;
  g.in = w.in;
  g.kernel = w.kernel;
  g.strides = w.strides;
  g.dilations = w.dilations;
  g.pad_begin = w.pad_begin;
  g.pad_end = w.pad_end;
  for (size_t i = 0; i < w.in.size(); ++i) {
    const int64_t span =
        w.in[i] + w.pad_begin[i] + w.pad_end[i] - ((w.kernel[i] - 1) * w.dilations[i] + 1);
    int64_t out = (w.ceil ? (span + w.strides[i] - 1) / w.strides[i] : span / w.strides[i]) + 1;
    // ceil_mode's last window must start inside X or its begin pad (ONNX's rule).
    if (w.ceil && (out - 1) * w.strides[i] >= w.in[i] + w.pad_begin[i]) --out;
    g.out.push_back(out);
  }
  return g;
}

// The ONNX reference's pooling of one plane position, by the definition: taps inside X are
// read, pads count for the include-pad average, positions past the pads count for nothing.
float naive_at(PlanePool kind, const PoolGeometry& g, const float* plane, const Dims& xs,
               int64_t oy, int64_t ox) {
  const bool two = g.spatial() == 2;
  const int64_t kh = two ? g.kernel[0] : 1, kw = g.kernel[two ? 1 : 0];
  double sum = 0;
  int64_t inside = 0, padded = 0;
  float m = -std::numeric_limits<float>::infinity();
  bool nan = false;
  for (int64_t r = 0; r < kh; ++r)
    for (int64_t q = 0; q < kw; ++q) {
      int64_t pos[2] = {0, 0};
      bool in = true, in_pads = true;
      for (int d = 0; d < g.spatial(); ++d) {
        const int64_t o = two && d == 0 ? oy : ox, k = two && d == 0 ? r : q;
        pos[d] = o * g.strides[d] - g.pad_begin[d] + k * g.dilations[d];
        in = in && pos[d] >= 0 && pos[d] < g.in[d];
        in_pads = in_pads && pos[d] >= -g.pad_begin[d] && pos[d] < g.in[d] + g.pad_end[d];
      }
      padded += in_pads;
      if (!in) continue;
      ++inside;
      const float v = two ? plane[pos[0] * xs[0] + pos[1]] : plane[pos[0]];
      nan = nan || std::isnan(v);
      m = std::max(m, v);
      sum += v;
    }
  if (kind == PlanePool::kMax) return nan ? std::numeric_limits<float>::quiet_NaN() : m;
  return static_cast<float>(sum /
                            double(kind == PlanePool::kAverageIncludingPad ? padded : inside));
}

// x and y NCHW (or NCL), each with `gap` unused elements after every row and plane.
void check(PlanePool kind, const Window& w, int64_t n, int64_t c, int threads, uint32_t seed,
           bool specials, int64_t gap = 0) {
  const PoolGeometry g = geometry(w);
  const int s = g.spatial();
  auto strided = [&](const Dims& spatial) {
    Dims shape{n, c};
    shape.insert(shape.end(), spatial.begin(), spatial.end());
    TensorDesc d = row_major(DType::kFloat, shape);
    int64_t stride = 1;
    for (int i = d.rank() - 1; i >= 0; --i) {
      d.strides[i] = stride;
      stride = stride * d.shape[i] + (i >= 2 ? gap : 0);
    }
    return d;
  };
  const TensorDesc xd = strided(g.in), yd = strided(g.out);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(byte_span(xd).end / 4));
  for (float& v : x) v = u(gen);
  if (specials)
    for (size_t i = 0; i < x.size(); i += 29)
      x[i] = i % 3 == 0   ? std::numeric_limits<float>::quiet_NaN()
             : i % 3 == 1 ? std::numeric_limits<float>::infinity()
                          : -std::numeric_limits<float>::infinity();
  std::vector<float> y(static_cast<size_t>(byte_span(yd).end / 4), -7.0f);
  ThreadPool pool(threads);
  ScopedPool scope(&pool);
  ASSERT_TRUE(pool_planes(kind, g, ConstOperand(xd, x.data()), Operand{yd, y.data()}));
  const int64_t oh = s == 2 ? g.out[0] : 1, ow = g.out[s - 1];
  const Dims plane_strides{s == 2 ? xd.strides[2] : 0, 1};
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          const float want =
              naive_at(kind, g, &x[b * xd.strides[0] + ch * xd.strides[1]], plane_strides, i, j);
          const float got =
              y[b * yd.strides[0] + ch * yd.strides[1] + (s == 2 ? i * yd.strides[2] : 0) + j];
          if (std::isnan(want)) {
            ASSERT_TRUE(std::isnan(got)) << b << "," << ch << "," << i << "," << j;
          } else if (kind == PlanePool::kMax || std::isinf(want)) {
            ASSERT_EQ(got, want) << b << "," << ch << "," << i << "," << j;
          } else {
            ASSERT_NEAR(got, want, 1e-5f * (1 + std::fabs(want)))
                << b << "," << ch << "," << i << "," << j;
          }
        }
}

constexpr PlanePool kKinds[] = {PlanePool::kMax, PlanePool::kAverageExcludingPad,
                                PlanePool::kAverageIncludingPad};

TEST(NativePlanePool, FixedTwoAndThreeTapWindowsMatchNaiveLoop) {
  for (PlanePool k : kKinds) {
    check(k, {{20, 18}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}}, 2, 5, 2, 1, false);
    check(k, {{13, 29}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}}, 1, 3, 1, 2, false);
    check(k, {{16, 16}, {2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}}, 2, 4, 2, 3, false);
    check(k, {{7, 33}, {2, 2}, {1, 1}, {1, 1}, {0, 1}, {1, 0}}, 1, 2, 1, 4, false);
    check(k, {{40, 40}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}}, 2, 8, 2, 15, false);  // 2 parts
  }
}

TEST(NativePlanePool, AnyWindowStridesDilationsAsymmetricPadsAndCeilMode) {
  for (PlanePool k : kKinds) {
    check(k, {{9, 11}, {2, 5}, {2, 3}, {2, 1}, {0, 2}, {1, 0}, true}, 2, 3, 3, 5, false);
    check(k, {{7, 7}, {3, 3}, {3, 3}, {1, 1}, {0, 0}, {0, 0}, true}, 3, 2, 1, 6, false);
    check(k, {{5, 8}, {1, 1}, {1, 2}, {1, 1}, {0, 0}, {0, 0}}, 1, 1, 2, 7, false);
    check(k, {{12, 10}, {3, 4}, {1, 2}, {2, 2}, {2, 1}, {2, 3}, true}, 1, 2, 2, 8, false);
  }
}

TEST(NativePlanePool, OneDimensionalPools) {
  for (PlanePool k : kKinds) {
    check(k, {{40}, {3}, {2}, {1}, {1}, {1}, true}, 2, 3, 2, 9, false);
    check(k, {{17}, {4}, {1}, {2}, {2}, {0}}, 1, 5, 1, 10, false);
  }
}

TEST(NativePlanePool, NaNAndInfinitiesLandWhereTheReferencePutsThem) {
  for (PlanePool k : kKinds) {
    check(k, {{12, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}}, 2, 3, 2, 11, true);
    check(k, {{12, 19}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}}, 1, 4, 1, 12, true);
    check(k, {{11, 9}, {2, 4}, {3, 2}, {1, 1}, {0, 1}, {1, 2}, true}, 1, 2, 1, 13, true);
  }
}

TEST(NativePlanePool, RowsAndPlanesWithGapsBetweenThem) {
  for (PlanePool k : kKinds)
    check(k, {{10, 14}, {3, 3}, {2, 1}, {1, 1}, {1, 1}, {1, 1}}, 2, 3, 2, 14, false, 5);
}

TEST(NativePlanePool, DeclinesWhatItDoesNotTakeAndWritesNothing) {
  const PoolGeometry g = geometry({{6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}});
  std::vector<float> x(2 * 4 * 36, 1.0f), y(2 * 4 * 36, -7.0f);
  const TensorDesc nchw = row_major(DType::kFloat, Dims{2, 4, 6, 6});
  const TensorDesc cl = channels_last(DType::kFloat, Dims{2, 4, 6, 6});
  const TensorDesc ints = row_major(DType::kInt32, Dims{2, 4, 6, 6});
  const PlanePool m = PlanePool::kMax;
  EXPECT_FALSE(pool_planes(m, g, ConstOperand(cl, x.data()), Operand{nchw, y.data()}));
  EXPECT_FALSE(pool_planes(m, g, ConstOperand(nchw, x.data()), Operand{cl, y.data()}));
  EXPECT_FALSE(pool_planes(m, g, ConstOperand(nchw, x.data()), Operand{nchw, x.data()}));
  EXPECT_FALSE(pool_planes(m, g, ConstOperand(ints, x.data()), Operand{nchw, y.data()}));
  // A window wholly in the padding (pads as wide as the kernel).
  const PoolGeometry padded = geometry({{6, 6}, {2, 2}, {1, 1}, {1, 1}, {2, 0}, {0, 0}});
  const TensorDesc yp = row_major(DType::kFloat, Dims{2, 4, padded.out[0], padded.out[1]});
  std::vector<float> y2(static_cast<size_t>(element_count(yp)), -7.0f);
  EXPECT_FALSE(pool_planes(PlanePool::kAverageIncludingPad, padded, ConstOperand(nchw, x.data()),
                           Operand{yp, y2.data()}));
  for (float v : y) EXPECT_EQ(v, -7.0f);
  for (float v : y2) EXPECT_EQ(v, -7.0f);
}

}  // namespace
}  // namespace geon::cpu
