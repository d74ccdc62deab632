// Reduction into a smaller destination (design notes 003): the destination is broadcast
// against the loop and every loop element combines into the destination element it maps to.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/desc/views.h"
#include "core/engine/engine.h"
#include "tests/core/engine/random_views.h"

namespace geon {
namespace {

using namespace testing_views;

// A destination shape the loop reduces into: each dim kept, reduced to 1, or (when it
// divides) tiled to a divisor; leading dims sometimes dropped.
Dims reduced_shape(std::mt19937_64& rng, const Dims& loop) {
  Dims s = loop;
  for (auto& len : s) {
    const int pick = static_cast<int>(rng() % 3);
    if (pick == 1) len = 1;
    if (pick == 2 && len % 2 == 0) len /= 2;
  }
  const size_t drop = rng() % (s.size() + 1) / 2;
  for (size_t i = 0; i < drop; ++i)
    if (s.front() == 1) s.erase(s.begin());
  return s;
}

TEST(EngineReduce, ReducesIntoSmallerDestinationLikeNaiveLoop) {
  std::mt19937_64 rng(99);
  ThreadPool pool(2);
  const Reduce kinds[] = {Reduce::kSum, Reduce::kMean, Reduce::kMax, Reduce::kMin, Reduce::kProd};
  const DType types[] = {DType::kFloat, DType::kDouble, DType::kInt32,
                         DType::kInt64, DType::kUInt8,  DType::kFloat16};
  int cases = 0;
  for (int rep = 0; rep < 400; ++rep) {
    const Reduce r = kinds[rng() % 5];
    const DType t = types[rng() % 6];
    Dims loop = random_shape(rng, 4, 6);
    if (r == Reduce::kProd && element_count(loop) > 12) loop = {3, 4};
    if (rep % 50 == 0) loop = {3, 70000};  // large enough to split across threads
    Buffer src = random_view(rng, t, loop);
    const Dims dshape = reduced_shape(rng, loop);
    Buffer dst = random_view(rng, t, dshape);
    EngineOptions opt;
    opt.pool = &pool;
    reduce(r, {dst.desc, dst.data()}, {src.desc, src.data()}, opt);

    // Reference: combine in double in loop order, then compare per destination element.
    const int64_t dn = element_count(dst.desc);
    std::vector<double> acc(dn, r == Reduce::kProd  ? 1.0
                                : r == Reduce::kMax ? -INFINITY
                                : r == Reduce::kMin ? INFINITY
                                                    : 0.0);
    const TensorDesc dense = row_major(DType::kDouble, dshape);
    for_each_index(loop, [&](const Dims& idx) {
      const double v =
          scalar_to_double(load_scalar(t, src.data(), reference_offset(src.desc, idx)));
      double& a = acc[reference_offset(dense, idx)];
      switch (r) {
        case Reduce::kSum:
        case Reduce::kMean:
          a += v;
          break;
        case Reduce::kProd:
          a *= v;
          break;
        case Reduce::kMax:
          a = std::max(a, v);
          break;
        default:
          a = std::min(a, v);
          break;
      }
    });
    const int64_t count = dn ? element_count(loop) / dn : 0;
    for_each_index(dshape, [&](const Dims& idx) {
      double want = acc[reference_offset(dense, idx)];
      if (r == Reduce::kMean) want = is_integer(t) ? std::trunc(want / count) : want / count;
      const double got =
          scalar_to_double(load_scalar(t, dst.data(), reference_offset(dst.desc, idx)));
      const double tol = t == DType::kFloat16 ? 2e-3 * std::abs(want) + 2e-3
                         : t == DType::kFloat ? 1e-6 * std::abs(want) + 1e-6
                                              : 1e-12 * std::abs(want);
      if (is_integer(t)) {
        Buffer tmp;  // the expected value wrapped into the destination type as a cast would
        tmp.bytes.resize(16);
        Scalar s;
        s.kind = Scalar::Kind::kSigned;
        s.i = static_cast<int64_t>(want);
        store_scalar(t, tmp.data(), 0, s);
        want = scalar_to_double(load_scalar(t, tmp.data(), 0));
      }
      ASSERT_NEAR(got, want, tol) << "reduce " << static_cast<int>(r) << " " << dtype_name(t) << " "
                                  << to_string(src.desc) << " into " << to_string(dst.desc);
    });
    ++cases;
  }
  EXPECT_EQ(cases, 400);
}

TEST(EngineReduce, SumIntoScalarIsDeterministicAcrossRuns) {
  std::vector<float> x(1 << 18);
  std::mt19937 rng(5);
  for (float& v : x) v = std::uniform_real_distribution<float>(-1, 1)(rng);
  ThreadPool pool(3);
  EngineOptions opt;
  opt.pool = &pool;
  const TensorDesc src = row_major(DType::kFloat, std::vector<int64_t>{1 << 18});
  float first = 0;
  for (int run = 0; run < 5; ++run) {
    float out = -1;
    reduce(Reduce::kSum, {row_major(DType::kFloat, {}), &out}, {src, x.data()}, opt);
    if (run == 0) first = out;
    EXPECT_EQ(out, first);
  }
  double want = 0;
  for (float v : x) want += v;
  EXPECT_NEAR(first, want, 1e-3);
}

// Float max and min fold rows in vector lanes, which a NaN never wins: the result must still be
// NaN when any value is, wherever it sits (in the lanes or the tail), and exact otherwise.
TEST(EngineReduce, MaxAndMinOfFloatRowsAreExactAndKeepNaN) {
  std::mt19937 rng(17);
  ThreadPool pool(2);
  EngineOptions opt;
  opt.pool = &pool;
  const int64_t rows = 3;
  for (const int64_t len : {1, 15, 16, 17, 33, 1000, 4096 + 37, 10000}) {
    for (const Reduce r : {Reduce::kMax, Reduce::kMin}) {
      for (int64_t nan_at : {int64_t{-1}, int64_t{0}, int64_t{9}, len / 2, len - 1}) {
        if (nan_at >= len) nan_at = len - 1;  // rows shorter than 10
        std::vector<float> x(rows * len);
        for (float& v : x) v = std::uniform_real_distribution<float>(-100, 100)(rng);
        x[len / 3] = INFINITY;  // row 0: an infinity among the values
        x[len + len / 4] = -INFINITY;
        if (nan_at >= 0) x[len + nan_at] = NAN;  // row 1
        std::vector<float> out(rows, 0.f);
        reduce(r, {row_major(DType::kFloat, std::vector<int64_t>{rows, 1}), out.data()},
               {row_major(DType::kFloat, std::vector<int64_t>{rows, len}), x.data()}, opt);
        for (int64_t i = 0; i < rows; ++i) {
          float want = r == Reduce::kMax ? -INFINITY : INFINITY;
          bool nan = false;
          for (int64_t j = 0; j < len; ++j) {
            const float v = x[i * len + j];
            nan |= std::isnan(v);
            want = r == Reduce::kMax ? std::max(want, v) : std::min(want, v);
          }
          if (nan)
            EXPECT_TRUE(std::isnan(out[i])) << "row " << i << " of " << len << " NaN at " << nan_at;
          else
            EXPECT_EQ(out[i], want)
                << "row " << i << " of " << len << " reduce " << static_cast<int>(r);
        }
      }
    }
  }
}

TEST(EngineReduce, EmptyLoopGivesIdentityAndMeanOfNothingIsNaN) {
  const TensorDesc src = row_major(DType::kFloat, std::vector<int64_t>{3, 0});
  std::vector<float> out(3, 7.f);
  const TensorDesc dst = row_major(DType::kFloat, std::vector<int64_t>{3, 1});
  float dummy = 0;
  reduce(Reduce::kSum, {dst, out.data()}, {src, &dummy});
  EXPECT_EQ(out, (std::vector<float>{0, 0, 0}));
  reduce(Reduce::kMax, {dst, out.data()}, {src, &dummy});
  EXPECT_TRUE(std::isinf(out[0]) && out[0] < 0);
  reduce(Reduce::kMean, {dst, out.data()}, {src, &dummy});
  EXPECT_TRUE(std::isnan(out[0]));
}

TEST(EngineReduce, TiledDestinationAccumulatesModuloItsLength) {
  // loop (6,), destination (2,): dst[i % 2] += src[i]
  std::vector<int32_t> src{1, 2, 3, 4, 5, 6}, dst(2);
  reduce(Reduce::kSum, {row_major(DType::kInt32, std::vector<int64_t>{2}), dst.data()},
         {row_major(DType::kInt32, std::vector<int64_t>{6}), src.data()});
  EXPECT_EQ(dst, (std::vector<int32_t>{9, 12}));
}

}  // namespace
}  // namespace geon
