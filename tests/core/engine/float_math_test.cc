// The engine's own float exp, log, tanh, sigmoid and erf (float_math.h) against double std::, in
// ulps of the float result, over the whole useful range of each and at the edge cases std::
// fixes (NaN, infinities, signed zeros, subnormals, overflow and underflow thresholds); and
// the engine's float ops that use them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/desc/desc.h"
#include "core/engine/engine.h"
#include "core/engine/float_math.h"

namespace geon {
namespace {

// |got - want| in units of the float ulp at want (subnormal results: the smallest ulp).
double ulps(float got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : INFINITY;
  const float rounded = static_cast<float>(want);
  if (std::isinf(rounded)) return got == rounded ? 0 : INFINITY;
  const double mag = std::max(std::abs(static_cast<double>(rounded)),
                              static_cast<double>(std::numeric_limits<float>::min()));
  const double ulp = std::ldexp(1.0, std::ilogb(mag) - 23);
  return std::abs(static_cast<double>(got) - want) / ulp;
}

// Half the samples uniform in [lo, hi], half log-uniform in magnitude (down to 2^-30), so
// both the large arguments and the ones near zero are covered.
std::vector<float> samples(float lo, float hi, int n) {
  std::mt19937 rng(7);
  std::vector<float> xs;
  const float top = std::log2(std::max(std::abs(lo), std::abs(hi)));
  while (static_cast<int>(xs.size()) < n) {
    float x = std::uniform_real_distribution<float>(lo, hi)(rng);
    if (xs.size() % 2) {
      x = std::exp2(std::uniform_real_distribution<float>(-30, top)(rng));
      if (lo < 0 && rng() % 2) x = -x;
    }
    if (x >= lo && x <= hi) xs.push_back(x);
  }
  return xs;
}

template <class F, class G>
double worst_ulps(F f, G reference, float lo, float hi) {
  double worst = 0;
  for (const float x : samples(lo, hi, 200000))
    worst = std::max(worst, ulps(f(x), reference(static_cast<double>(x))));
  return worst;
}

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// The references, in double.
double exp_ref(double x) { return std::exp(x); }
double log_ref(double x) { return std::log(x); }
double tanh_ref(double x) { return std::tanh(x); }
double erf_ref(double x) { return std::erf(x); }

TEST(FloatMath, ExpAndLogAreWithinTwoUlpAndTanhSigmoidAndErfWithinFour) {
  // Measured: 0.9-1.1, 0.87, 3.0, 2.6 and 2.4-2.7 ulp at worst over 2e6 samples each (the spread
  // with how the compiler contracts the polynomials into FMAs).
  EXPECT_LE(worst_ulps(float_math::exp, exp_ref, -110, 90), 2.0);
  EXPECT_LE(worst_ulps(float_math::log, log_ref, 0, 3e38f), 2.0);
  EXPECT_LE(worst_ulps(float_math::tanh, tanh_ref, -20, 20), 4.0);
  EXPECT_LE(worst_ulps(float_math::sigmoid, sigmoid, -110, 110), 4.0);
  EXPECT_LE(worst_ulps(float_math::erf, erf_ref, -6, 6), 4.0);
}

TEST(FloatMath, EdgeCasesAreStd) {
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {0.f,    -0.f,    inf,    -inf,    1e-45f, 1e-40f, 1.f,  88.72f, 88.73f,
                            -87.3f, -103.9f, -104.f, -110.f,  1e30f,  -1e30f, 9.0f, -9.0f,  0.17f,
                            -0.18f, 0.999f,  1.0f,   -1.001f, 3.9f,   4.0f,   4.1f};
  for (const float x : specials) {
    SCOPED_TRACE(x);
    EXPECT_LE(ulps(float_math::exp(x), std::exp(static_cast<double>(x))), 2.0);
    EXPECT_LE(ulps(float_math::tanh(x), std::tanh(static_cast<double>(x))), 4.0);
    EXPECT_LE(ulps(float_math::sigmoid(x), sigmoid(x)), 4.0);
    EXPECT_LE(ulps(float_math::erf(x), std::erf(static_cast<double>(x))), 4.0);
    EXPECT_EQ(std::signbit(float_math::erf(x)), std::signbit(std::erf(x)));
    if (x > 0) {
      EXPECT_LE(ulps(float_math::log(x), std::log(static_cast<double>(x))), 2.0);
    }
    // Signs of zero and infinities as std:: gives them.
    EXPECT_EQ(std::signbit(float_math::tanh(x)), std::signbit(std::tanh(x)));
  }
  EXPECT_EQ(float_math::log(0.f), -inf);
  EXPECT_EQ(float_math::log(-0.f), -inf);
  EXPECT_EQ(float_math::log(inf), inf);
  EXPECT_TRUE(std::isnan(float_math::log(-1.f)));
  EXPECT_TRUE(std::isnan(float_math::log(-inf)));
  EXPECT_EQ(float_math::exp(-inf), 0.f);
  EXPECT_EQ(float_math::exp(inf), inf);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (auto f :
       {float_math::exp, float_math::log, float_math::tanh, float_math::sigmoid, float_math::erf})
    EXPECT_TRUE(std::isnan(f(nan)));
}

// The engine's float ops go through these (vectorised): a chunk's worth and a tail, against
// double, including NaN and infinities among ordinary values.
TEST(FloatMath, EngineFloatOpsAgreeWithDouble) {
  std::vector<float> x = samples(-30, 30, 4096 + 37);
  x[5] = std::numeric_limits<float>::quiet_NaN();
  x[6] = std::numeric_limits<float>::infinity();
  x[7] = -std::numeric_limits<float>::infinity();
  x[8] = -0.f;
  const int64_t n = static_cast<int64_t>(x.size());
  const TensorDesc d = row_major(DType::kFloat, std::vector<int64_t>{n});
  struct Case {
    const char* op;
    double (*reference)(double);
    double bound;
  };
  const Case cases[] = {
      {"exp", exp_ref, 2.0},     {"log", log_ref, 2.0}, {"tanh", tanh_ref, 4.0},
      {"sigmoid", sigmoid, 4.0}, {"erf", erf_ref, 4.0},
  };
  for (const Case& c : cases) {
    std::vector<float> out(x.size());
    unary(c.op, {d, out.data()}, {d, x.data()});
    for (int64_t i = 0; i < n; ++i)
      ASSERT_LE(ulps(out[i], c.reference(x[i])), c.bound) << c.op << "(" << x[i] << ")";
  }
}

}  // namespace
}  // namespace geon
