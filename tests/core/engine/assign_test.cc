// assign: cast and copy in one pass, between every pair of numeric dtypes, over random
// strided and broadcast views. The typed fast loops must agree exactly with the element-wise
// conversion of core/dtype/scalar.h, which is the reference here.
#include <gtest/gtest.h>

#include "core/base/error.h"

#include <cmath>
#include <random>

#include "core/engine/convert.h"
#include "core/engine/engine.h"
#include "tests/core/engine/random_views.h"

namespace geon {
namespace {

using namespace testing_views;

bool same(const Scalar& a, const Scalar& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == Scalar::Kind::kSigned) return a.i == b.i;
  if (a.kind == Scalar::Kind::kUnsigned) return a.u == b.u;
  const bool re = (std::isnan(a.re) && std::isnan(b.re)) || a.re == b.re;
  const bool im = (std::isnan(a.im) && std::isnan(b.im)) || a.im == b.im;
  return re && (a.kind != Scalar::Kind::kComplex || im);
}

std::vector<DType> numeric_dtypes() {
  std::vector<DType> out;
  for (int i = 1; i < kDTypeCount; ++i)
    if (is_numeric(static_cast<DType>(i))) out.push_back(static_cast<DType>(i));
  return out;
}

// Values that stress conversions: out of integer range, NaN, infinities, halves.
Scalar wild_value(std::mt19937_64& rng, DType t) {
  Scalar s = random_value(rng, t);
  if (is_floating(t) && rng() % 4 == 0) {
    const double specials[] = {NAN, INFINITY, -INFINITY, 1e10, -1e10, 300.5, -129.0, 2.5, 65504};
    s.re = specials[rng() % 9];
  }
  if (is_integer(t) && dtype_bits(t) >= 32 && rng() % 4 == 0) {
    if (s.kind == Scalar::Kind::kSigned)
      s.i = static_cast<int64_t>(rng()) >> (64 - dtype_bits(t));
    else
      s.u = rng() >> (64 - dtype_bits(t));
  }
  return s;
}

TEST(EngineAssign, EveryDtypePairMatchesScalarConversionOnStridedViews) {
  std::mt19937_64 rng(7);
  ThreadPool pool(2);
  EngineOptions opt;
  opt.pool = &pool;
  int pairs = 0;
  for (DType from : numeric_dtypes()) {
    for (DType to : numeric_dtypes()) {
      for (int rep = 0; rep < 3; ++rep) {
        const Dims loop = random_shape(rng, 3, 5);
        Buffer src = random_view(rng, from, broadcastable_shape(rng, loop));
        for (int64_t i = 0; i < static_cast<int64_t>(src.bytes.size() * 8 / dtype_bits(from)) - 16;
             ++i)
          store_scalar(from, src.data(), i, wild_value(rng, from));
        Buffer dst = random_view(rng, to, loop);
        const Buffer src_before = src;
        assign({dst.desc, dst.data()}, {src.desc, src.data()}, opt);
        EXPECT_EQ(src.bytes, src_before.bytes) << "assign modified its source";
        int bad = 0;
        for_each_index(loop, [&](const Dims& idx) {
          Scalar want_bits[1];
          std::byte tmp[16] = {};
          store_scalar(to, tmp, 0, load_scalar(from, src.data(), reference_offset(src.desc, idx)));
          want_bits[0] = load_scalar(to, tmp, 0);
          const Scalar got = load_scalar(to, dst.data(), reference_offset(dst.desc, idx));
          if (!same(got, want_bits[0]) && bad++ < 2)
            ADD_FAILURE() << dtype_name(from) << " -> " << dtype_name(to) << ": got " << got.re
                          << "/" << got.i << "/" << got.u << " want " << want_bits[0].re << "/"
                          << want_bits[0].i << "/" << want_bits[0].u;
        });
      }
      ++pairs;
    }
  }
  EXPECT_GT(pairs, 600);
}

TEST(EngineAssign, Float8DestinationHonoursSaturateOption) {
  const float big[2] = {1000.f, -1000.f};
  uint8_t out[2];
  const TensorDesc src = row_major(DType::kFloat, std::vector<int64_t>{2});
  const TensorDesc dst = row_major(DType::kFloat8E4M3FN, std::vector<int64_t>{2});
  EngineOptions opt;
  assign({dst, out}, {src, big}, opt);
  EXPECT_EQ(load_scalar(DType::kFloat8E4M3FN, out, 0).re, 448.0);
  EXPECT_EQ(load_scalar(DType::kFloat8E4M3FN, out, 1).re, -448.0);
  opt.cast.saturate = false;
  assign({dst, out}, {src, big}, opt);
  EXPECT_TRUE(std::isnan(load_scalar(DType::kFloat8E4M3FN, out, 0).re));
}

TEST(EngineAssign, Int64KeepsAllBitsThroughTheFastPath) {
  const int64_t big[2] = {INT64_MAX, INT64_MIN + 1};
  uint64_t out[2];
  assign({row_major(DType::kUInt64, std::vector<int64_t>{2}), out},
         {row_major(DType::kInt64, std::vector<int64_t>{2}), big});
  EXPECT_EQ(out[0], static_cast<uint64_t>(INT64_MAX));
  EXPECT_EQ(out[1], static_cast<uint64_t>(INT64_MIN + 1));
}

TEST(EngineAssign, SourceThatDoesNotBroadcastIsRejectedWithBothShapes) {
  float a[6] = {}, b[4] = {};
  try {
    assign({row_major(DType::kFloat, std::vector<int64_t>{2, 2}), b},
           {row_major(DType::kFloat, std::vector<int64_t>{2, 3}), a});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(2,3)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace geon
