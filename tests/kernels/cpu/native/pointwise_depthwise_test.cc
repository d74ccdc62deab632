// PointwiseDepthwise (kernels/cpu/native) against a naive loop in double: the 1x1 expansion
// then the 3x3 depthwise window with pads of 1, at strides 1 and 2, then (or not) a 1x1
// projection with or without a residual, over channel counts that are and are not multiples
// of the 16-wide weight block, widths that leave partial tiles and quads (down to one pixel),
// several images split across pools of one to three threads, every activation on every side,
// absent biases; and the cases it must decline.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/native/cpu_isa.h"
#include "kernels/cpu/native/pointwise_depthwise.h"
#include "kernels/cpu/native/pointwise_depthwise_rows.h"

namespace geon::cpu {
namespace {

struct Case {
  int64_t n, c, m, h, w, stride;
  int64_t k = 0;  // projected channels, 0 for no projection
  bool residual = false;
  Activation act1{}, act2{}, act3{};
  bool bias1 = true, bias2 = true, bias3 = true;
  int threads = 2;
};

double activated(const Activation& a, double v) {
  switch (a.kind) {
    case ActivationKind::kRelu:
      return std::max(v, 0.0);
    case ActivationKind::kLeakyRelu:
      return v < 0 ? v * a.alpha : v;
    case ActivationKind::kClip:
      return std::min<double>(std::max<double>(v, a.alpha), a.beta);
    default:
      return v;
  }
}

struct Weights {
  std::shared_ptr<TensorData> w1, b1, w2, b2, w3, b3;
};

std::shared_ptr<TensorData> random_tensor(const Dims& shape, std::mt19937& g) {
  auto t = make_tensor_data(DType::kFloat, shape);
  float* p = reinterpret_cast<float*>(t->storage->data());
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int64_t i = 0; i < element_count(t->desc); ++i) p[i] = u(g);
  return t;
}

const float* f(const std::shared_ptr<TensorData>& t) {
  return t ? reinterpret_cast<const float*>(t->bytes()) : nullptr;
}

// Y (channels-last) in NCHW index terms from X and Z (channels-last).
std::vector<double> naive(const Case& t, const Weights& w, const std::vector<float>& x,
                          const std::vector<float>& z) {
  const int64_t oh = (t.h - 1) / t.stride + 1, ow = (t.w - 1) / t.stride + 1;
  std::vector<double> mid(static_cast<size_t>(t.n * t.h * t.w * t.m));
  for (int64_t p = 0; p < t.n * t.h * t.w; ++p)
    for (int64_t k = 0; k < t.m; ++k) {
      double s = w.b1 ? f(w.b1)[k] : 0.0;
      for (int64_t c = 0; c < t.c; ++c) s += double(x[p * t.c + c]) * f(w.w1)[k * t.c + c];
      mid[p * t.m + k] = activated(t.act1, s);
    }
  std::vector<double> y(static_cast<size_t>(t.n * oh * ow * t.m));
  for (int64_t n = 0; n < t.n; ++n)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t k = 0; k < t.m; ++k) {
          double s = w.b2 ? f(w.b2)[k] : 0.0;
          for (int64_t r = 0; r < 3; ++r)
            for (int64_t q = 0; q < 3; ++q) {
              const int64_t yy = i * t.stride - 1 + r, xx = j * t.stride - 1 + q;
              if (yy < 0 || yy >= t.h || xx < 0 || xx >= t.w) continue;
              s += mid[((n * t.h + yy) * t.w + xx) * t.m + k] * f(w.w2)[k * 9 + r * 3 + q];
            }
          y[((n * oh + i) * ow + j) * t.m + k] = activated(t.act2, s);
        }
  if (!t.k) return y;
  std::vector<double> out(static_cast<size_t>(t.n * oh * ow * t.k));
  for (int64_t p = 0; p < t.n * oh * ow; ++p)
    for (int64_t q = 0; q < t.k; ++q) {
      double s = w.b3 ? f(w.b3)[q] : 0.0;
      for (int64_t k = 0; k < t.m; ++k) s += y[p * t.m + k] * f(w.w3)[q * t.m + k];
      if (t.residual) s += z[p * t.k + q];
      out[p * t.k + q] = activated(t.act3, s);
    }
  return out;
}

Weights make_weights(const Case& t, std::mt19937& g) {
  Weights w;
  w.w1 = random_tensor({t.m, t.c, 1, 1}, g);
  w.w2 = random_tensor({t.m, 1, 3, 3}, g);
  if (t.bias1) w.b1 = random_tensor({t.m}, g);
  if (t.bias2) w.b2 = random_tensor({t.m}, g);
  if (t.k) w.w3 = random_tensor({t.k, t.m, 1, 1}, g);
  if (t.k && t.bias3) w.b3 = random_tensor({t.k}, g);
  return w;
}

std::unique_ptr<const PointwiseDepthwise> make(const Case& t, const Weights& w) {
  PointwiseDepthwiseWeights p;
  p.w1 = w.w1.get();
  p.b1 = w.b1.get();
  p.w2 = w.w2.get();
  p.b2 = w.b2.get();
  p.act1 = t.act1;
  p.act2 = t.act2;
  p.stride = t.stride;
  p.w3 = w.w3.get();
  p.b3 = w.b3.get();
  p.act3 = t.act3;
  return PointwiseDepthwise::make(p);
}

void check(const Case& t, unsigned seed) {
  std::mt19937 g(seed);
  const Weights w = make_weights(t, g);
  auto k = make(t, w);
  ASSERT_NE(k, nullptr);
  const Dims xs{t.n, t.c, t.h, t.w};
  const Dims ys = k->output_shape(xs);
  ASSERT_EQ(ys, (Dims{t.n, t.k ? t.k : t.m, (t.h - 1) / t.stride + 1, (t.w - 1) / t.stride + 1}));
  std::vector<float> x(static_cast<size_t>(element_count(xs)));
  std::vector<float> z(t.residual ? static_cast<size_t>(element_count(ys)) : 0);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& v : x) v = u(g);
  for (float& v : z) v = u(g);
  const std::vector<float> x_before = x, z_before = z;
  std::vector<float> y(static_cast<size_t>(element_count(ys)), -1234.5f);
  ThreadPool pool(t.threads);
  ScopedPool scoped(&pool);
  const ConstOperand zo(channels_last(DType::kFloat, ys), z.data());
  ASSERT_TRUE(k->run(ConstOperand(channels_last(DType::kFloat, xs), x.data()),
                     t.residual ? &zo : nullptr,
                     Operand{channels_last(DType::kFloat, ys), y.data()}));
  EXPECT_EQ(x, x_before);
  EXPECT_EQ(z, z_before);
  const std::vector<double> want = naive(t, w, x, z);
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_NEAR(y[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << "at " << i;
}

class PointwiseDepthwiseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cpu_has_avx2_fma()) GTEST_SKIP() << "the native kernels need AVX2 and FMA";
  }
};

TEST_F(PointwiseDepthwiseTest, MatchesNaiveLoopsOverShapesAndStrides) {
  unsigned seed = 1;
  for (int64_t stride : {1, 2})
    for (const Case& base :
         {Case{1, 16, 96, 9, 11, 1}, Case{2, 3, 24, 5, 7, 1}, Case{1, 5, 8, 4, 6, 1},
          Case{1, 24, 40, 13, 1, 1}, Case{3, 7, 16, 1, 9, 1}, Case{1, 2, 8, 2, 2, 1},
          Case{1, 20, 24, 3, 21, 1}, Case{1, 40, 16, 4, 9, 1}}) {
      for (int threads : {1, 2, 3}) {
        Case t = base;
        t.stride = stride;
        t.threads = threads;
        SCOPED_TRACE(testing::Message()
                     << "n " << t.n << " c " << t.c << " m " << t.m << " h " << t.h << " w " << t.w
                     << " stride " << stride << " threads " << threads);
        check(t, seed++);
      }
    }
}

TEST_F(PointwiseDepthwiseTest, AppliesEachActivationOnEitherSideAndAbsentBiases) {
  const Activation kinds[] = {Activation{ActivationKind::kNone}, Activation{ActivationKind::kRelu},
                              Activation{ActivationKind::kLeakyRelu, 0.1f},
                              Activation{ActivationKind::kClip, 0.0f, 6.0f},
                              Activation{ActivationKind::kClip, -0.25f, 0.5f}};
  unsigned seed = 100;
  for (const Activation& a1 : kinds)
    for (const Activation& a2 : kinds) {
      Case t{1, 6, 24, 7, 10, 2};
      t.act1 = a1;
      t.act2 = a2;
      t.bias1 = seed % 2 == 0;
      t.bias2 = seed % 3 != 0;
      SCOPED_TRACE(::testing::Message() << "act1 " << static_cast<int>(a1.kind) << " act2 "
                                        << static_cast<int>(a2.kind));
      check(t, seed++);
    }
}

TEST_F(PointwiseDepthwiseTest, ProjectsWithAndWithoutAResidual) {
  unsigned seed = 200;
  for (int64_t k : {24, 16, 5, 33})
    for (bool residual : {false, true})
      for (int64_t stride : {1, 2}) {
        Case t{2, 6, 40, 7, 13, stride, k, residual};
        t.act1 = Activation{ActivationKind::kClip, 0.0f, 6.0f};
        t.act2 = t.act1;
        t.act3 = seed % 2 ? Activation{ActivationKind::kRelu} : Activation{};
        t.bias3 = seed % 3 != 0;
        t.threads = 1 + seed % 3;
        SCOPED_TRACE(::testing::Message()
                     << "k " << k << " residual " << residual << " stride " << stride);
        check(t, seed++);
      }
}

// The expansion's two row kernels (the AVX2 tiles, and on AVX-512 machines the one that keeps
// the weights in registers, taken for up to kStationaryMaxChannels inputs) write the same ring
// row bit for bit, and it is the naive expansion's; the zero columns and anything past the
// row stay as they were.
TEST_F(PointwiseDepthwiseTest, StationaryExpansionWritesTheTileKernelsRowBitForBit) {
  if (!cpu_has_avx512f()) GTEST_SKIP() << "expand_row_avx512 needs AVX-512F";
  std::mt19937 g(300);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const float kUntouched = -777.0f;
  const struct {
    native::TileActivation act;
    float alpha, beta;
  } acts[] = {{native::TileActivation::kNone, 0, 0},
              {native::TileActivation::kRelu, 0, 0},
              {native::TileActivation::kLeakyRelu, 0.1f, 0},
              {native::TileActivation::kClip, 0.0f, 6.0f}};
  for (int64_t c = 1; c <= native::kStationaryMaxChannels; ++c)
    for (int64_t m : {8, 16, 24, 40})
      for (int64_t width : {1, 3, 4, 8, 9, 13, 17}) {
        const auto& a = acts[(c + m + width) % 4];
        const int64_t blocks = (m + 15) / 16;
        // 64-byte aligned weights (zmm loads), as PointwiseDepthwise packs them.
        std::vector<float> store(static_cast<size_t>(blocks * c * 16 + blocks * 16 + 16), 0.0f);
        float* w1 = store.data() + (16 - reinterpret_cast<uintptr_t>(store.data()) / 4 % 16) % 16;
        float* b1 = w1 + blocks * c * 16;
        for (int64_t r = 0; r < m; ++r) {
          b1[r] = u(g);
          for (int64_t k = 0; k < c; ++k) w1[(r / 16 * c + k) * 16 + r % 16] = u(g);
        }
        native::PointwiseDepthwiseRows job;
        job.c = c;
        job.m = m;
        job.width = width;
        job.w1 = w1;
        job.b1 = b1;
        job.act1 = a.act;
        job.alpha1 = a.alpha;
        job.beta1 = a.beta;
        std::vector<float> x(static_cast<size_t>(width * c));
        for (float& v : x) v = u(g);
        x[static_cast<size_t>((width / 2) * c)] = std::nanf("");  // NaN stays in its pixel
        const size_t ring = static_cast<size_t>(job.ring_row_floats());
        std::vector<float> tiles(ring + 16, kUntouched), stationary(ring + 16, kUntouched);
        const auto at = [](std::vector<float>& v) {  // 32-byte aligned, as the ring is
          return v.data() + (8 - reinterpret_cast<uintptr_t>(v.data()) / 4 % 8) % 8;
        };
        native::expand_row_avx2(job, x.data(), at(tiles));
        native::expand_row_avx512(job, x.data(), at(stationary));
        SCOPED_TRACE(::testing::Message() << "c " << c << " m " << m << " width " << width);
        ASSERT_EQ(0, std::memcmp(at(tiles), at(stationary), sizeof(float) * ring));
        const float* row = at(stationary);
        for (int64_t r = 0; r < m; ++r) {
          const float* block = row + r / 8 * (width + 2) * 8 + r % 8;
          ASSERT_EQ(block[0], kUntouched) << "the zero column is the caller's";
          ASSERT_EQ(block[(width + 1) * 8], kUntouched);
          for (int64_t px = 0; px < width; ++px) {
            double s = b1[r];
            for (int64_t k = 0; k < c; ++k)
              s += double(x[px * c + k]) * w1[(r / 16 * c + k) * 16 + r % 16];
            const double want =
                a.act == native::TileActivation::kRelu ? (std::isnan(s) ? s : std::max(s, 0.0))
                : a.act == native::TileActivation::kLeakyRelu ? (s < 0 ? s * a.alpha : s)
                : a.act == native::TileActivation::kClip
                    ? (std::isnan(s) ? s : std::min(std::max(s, 0.0), 6.0))
                    : s;
            const float got = block[(px + 1) * 8];
            if (std::isnan(want))
              ASSERT_TRUE(std::isnan(got)) << "channel " << r << " pixel " << px;
            else
              ASSERT_NEAR(got, want, 1e-5 * (1 + std::abs(want)))
                  << "channel " << r << " pixel " << px;
          }
        }
      }
}

TEST_F(PointwiseDepthwiseTest, DeclinesWhatItCannotRun) {
  std::mt19937 g(7);
  Case t{1, 4, 16, 6, 6, 1};
  const Weights w = make_weights(t, g);
  auto k = make(t, w);
  ASSERT_NE(k, nullptr);
  // Weights it refuses: channels not a multiple of 8, stride 3, an activation it lacks.
  Case odd = t;
  odd.m = 12;
  EXPECT_EQ(make(odd, make_weights(odd, g)), nullptr);
  Case s3 = t;
  s3.stride = 3;
  EXPECT_EQ(make(s3, w), nullptr);
  Case tanh = t;
  tanh.act2.kind = ActivationKind::kTanh;
  EXPECT_EQ(make(tanh, w), nullptr);

  const Dims xs{1, 4, 6, 6}, ys{1, 16, 6, 6};
  std::vector<float> x(144, 0.5f), y(576, 7.0f);
  const auto untouched = [&] {
    return std::all_of(y.begin(), y.end(), [](float v) { return v == 7.0f; });
  };
  // Row-major X or Y, another channel count, a wrong output shape.
  EXPECT_FALSE(k->run(ConstOperand(row_major(DType::kFloat, xs), x.data()), nullptr,
                      Operand{channels_last(DType::kFloat, ys), y.data()}));
  EXPECT_FALSE(k->run(ConstOperand(channels_last(DType::kFloat, xs), x.data()), nullptr,
                      Operand{row_major(DType::kFloat, ys), y.data()}));
  EXPECT_FALSE(k->run(ConstOperand(channels_last(DType::kFloat, {1, 3, 6, 8}), x.data()), nullptr,
                      Operand{channels_last(DType::kFloat, {1, 16, 6, 8}), y.data()}));
  EXPECT_FALSE(k->run(ConstOperand(channels_last(DType::kFloat, xs), x.data()), nullptr,
                      Operand{channels_last(DType::kFloat, {1, 16, 3, 3}), y.data()}));
  // Y over X's memory.
  std::vector<float> both(1024, 0.5f);
  EXPECT_FALSE(k->run(ConstOperand(channels_last(DType::kFloat, xs), both.data()), nullptr,
                      Operand{channels_last(DType::kFloat, ys), both.data() + 16}));
  // A residual without a projection.
  const ConstOperand z(channels_last(DType::kFloat, ys), both.data());
  EXPECT_FALSE(k->run(ConstOperand(channels_last(DType::kFloat, xs), x.data()), &z,
                      Operand{channels_last(DType::kFloat, ys), y.data()}));
  EXPECT_TRUE(untouched());
  // With a projection: Z of another shape, or over Y's memory.
  Case pj = t;
  pj.k = 8;
  auto kp = make(pj, make_weights(pj, g));
  ASSERT_NE(kp, nullptr);
  const Dims ps{1, 8, 6, 6};
  std::vector<float> py(288, 7.0f), pz(288, 1.0f);
  const ConstOperand wrong(channels_last(DType::kFloat, {1, 8, 6, 5}), pz.data());
  const ConstOperand over(channels_last(DType::kFloat, ps), py.data());
  for (const ConstOperand* zz : {&wrong, &over})
    EXPECT_FALSE(kp->run(ConstOperand(channels_last(DType::kFloat, xs), x.data()), zz,
                         Operand{channels_last(DType::kFloat, ps), py.data()}));
  EXPECT_TRUE(std::all_of(py.begin(), py.end(), [](float v) { return v == 7.0f; }));
}

}  // namespace
}  // namespace geon::cpu
