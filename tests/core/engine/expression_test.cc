// Fused expressions, scaling, scalar operands, aliasing between destination and inputs, and
// the errors a caller gets for passes that cannot run.
#include <gtest/gtest.h>

#include "core/base/error.h"

#include <bit>
#include <cmath>
#include <numeric>
#include <random>

#include "core/desc/views.h"
#include "core/engine/engine.h"

namespace geon {
namespace {

TensorDesc vec(DType t, int64_t n) { return row_major(t, std::vector<int64_t>{n}); }

TEST(EngineExpression, FusedL2EqualsUnfusedThreePasses) {
  const int64_t n = 100000;
  std::vector<float> x(n), y(n);
  std::mt19937 rng(3);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = std::uniform_real_distribution<float>(-1, 1)(rng);
    y[i] = std::uniform_real_distribution<float>(-1, 1)(rng);
  }
  const DType f = DType::kFloat;
  const DType in[] = {f, f};
  ExprBuilder b(in);
  const ExprArg d = b.apply("sub", {b.input(0), b.input(1)});
  b.apply("mul", {d, d});
  float fused = 0;
  const ConstOperand ops[] = {{vec(f, n), x.data()}, {vec(f, n), y.data()}};
  evaluate(b.build(), {row_major(f, {}), &fused}, ops, Reduce::kSum);

  std::vector<float> diff(n), sq(n);
  binary("sub", {vec(f, n), diff.data()}, ops[0], ops[1]);
  binary("mul", {vec(f, n), sq.data()}, {vec(f, n), diff.data()}, {vec(f, n), diff.data()});
  float unfused = 0;
  reduce(Reduce::kSum, {row_major(f, {}), &unfused}, {vec(f, n), sq.data()});
  EXPECT_FLOAT_EQ(fused, unfused);
  double want = 0;
  for (int64_t i = 0; i < n; ++i) want += double(x[i] - y[i]) * double(x[i] - y[i]);
  EXPECT_NEAR(fused, want, 1e-6 * want);
}

// Reduces the expression `make()` of two inputs over each row of random [3, inner] floats, once
// fused and once as its stored values reduced afterwards, on one thread (one part: the unfused
// reduction's chunks are the fused pass's). The two must agree bit for bit, and with `term`
// summed (or averaged) over the row in double.
template <class Make, class Term>
void expect_fold_as_stored(Make make, Term term, int64_t inner, Reduce r, std::mt19937& rng) {
  const DType f = DType::kFloat;
  ThreadPool one(1);
  EngineOptions opt;
  opt.pool = &one;
  const int64_t rows = 3, n = rows * inner;
  std::vector<float> x(n), y(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = std::uniform_real_distribution<float>(-3, 3)(rng);
    y[i] = std::uniform_real_distribution<float>(-3, 3)(rng);
  }
  const TensorDesc m = row_major(f, std::vector<int64_t>{rows, inner});
  // Double sums: a float result would round away most differences between the lanes.
  const TensorDesc per_row = row_major(DType::kDouble, std::vector<int64_t>{rows, 1});
  const ConstOperand ops[] = {{m, x.data()}, {m, y.data()}};
  std::vector<double> fused(rows, -1);
  evaluate(make(), {per_row, fused.data()}, ops, r, opt);
  std::vector<float> stored(n);
  std::vector<double> unfused(rows, -2);
  evaluate(make(), {m, stored.data()}, ops, Reduce::kNone, opt);
  reduce(r, {per_row, unfused.data()}, {m, stored.data()}, opt);
  for (int64_t i = 0; i < rows; ++i) {
    EXPECT_EQ(std::bit_cast<uint64_t>(fused[i]), std::bit_cast<uint64_t>(unfused[i]))
        << "row " << i << " of " << inner << ": " << fused[i] << " vs " << unfused[i];
    double want = 0;
    for (int64_t j = 0; j < inner; ++j) want += term(x[i * inner + j], y[i * inner + j]);
    if (r == Reduce::kMean) want /= static_cast<double>(inner);
    EXPECT_NEAR(fused[i], want, 1e-5 * (std::abs(want) + 1) * static_cast<double>(inner));
  }
}

constexpr int64_t kFoldRowLengths[] = {1, 15, 17, 4096 * 2 + 37};

// A sum or mean whose last node multiplies folds the products without storing them
// (accumulate_products): the same roundings in the same order as the stored products reduced
// afterwards, for each row's accumulator, with operand scales, tails shorter than the fold's
// lanes, and across several chunks.
TEST(EngineExpression, SumOfProductsFoldsAsTheStoredProductsWould) {
  std::mt19937 rng(11);
  const DType in[] = {DType::kFloat, DType::kFloat};
  const auto products = [&] {
    ExprBuilder b(in);
    const ExprArg d = b.apply("sub", {b.input(0), b.input(1)});
    b.apply("mul", {d, b.input(1)}, {0.5, 3.0});
    return b.build();
  };
  const auto term = [](double x, double y) { return 0.5 * (x - y) * 3.0 * y; };
  for (const int64_t inner : kFoldRowLengths)
    for (const Reduce r : {Reduce::kSum, Reduce::kMean})
      expect_fold_as_stored(products, term, inner, r, rng);
}

// sum((x - y)^2) and its mean fold each difference's square as the difference is made
// (accumulate_squared_differences): bit for bit the stored squares reduced afterwards, per row,
// with a scale on the difference's operand (a converted chunk) and tails shorter than the lanes.
TEST(EngineExpression, SquaredDifferencesFoldAsTheStoredSquaresWould) {
  std::mt19937 rng(12);
  const DType in[] = {DType::kFloat, DType::kFloat};
  for (const double sx : {1.0, 0.5}) {
    const auto squares = [&] {
      ExprBuilder b(in);
      const ExprArg d = b.apply("sub", {b.input(0), b.input(1)}, {sx, 1.0});
      b.apply("mul", {d, d});
      return b.build();
    };
    const auto term = [&](double x, double y) { return (sx * x - y) * (sx * x - y); };
    for (const int64_t inner : kFoldRowLengths)
      for (const Reduce r : {Reduce::kSum, Reduce::kMean})
        expect_fold_as_stored(squares, term, inner, r, rng);
  }
}

// A product reduced over the outer dim (an accumulator per inner element) takes the stored
// products' path and still sums each column.
TEST(EngineExpression, ProductsReducedAcrossRowsSumEachColumn) {
  const DType f = DType::kFloat;
  const int64_t rows = 40, cols = 33;
  std::vector<float> x(rows * cols);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 3;
  const TensorDesc m = row_major(f, std::vector<int64_t>{rows, cols});
  const DType in[] = {f};
  ExprBuilder b(in);
  b.apply("mul", {b.input(0), b.input(0)});
  std::vector<float> out(cols, -1);
  const ConstOperand ops[] = {{m, x.data()}};
  evaluate(b.build(), {row_major(f, std::vector<int64_t>{1, cols}), out.data()}, ops, Reduce::kSum);
  for (int64_t j = 0; j < cols; ++j) {
    double want = 0;
    for (int64_t i = 0; i < rows; ++i) want += double(x[i * cols + j]) * x[i * cols + j];
    EXPECT_EQ(out[j], static_cast<float>(want)) << "column " << j;
  }
}

TEST(EngineExpression, OperandScalesApplyBeforeTheOp) {
  std::vector<float> x{1, 2, 3}, z{10, 20, 30}, out(3);
  binary("add", {vec(DType::kFloat, 3), out.data()}, {vec(DType::kFloat, 3), x.data()},
         {vec(DType::kFloat, 3), z.data()}, 2.0, -0.5);
  EXPECT_EQ(out, (std::vector<float>{-3, -6, -9}));
  std::vector<int32_t> xi{1, 2, 3}, oi(3);
  unary("neg", {vec(DType::kInt32, 3), oi.data()}, {vec(DType::kInt32, 3), xi.data()}, 3);
  EXPECT_EQ(oi, (std::vector<int32_t>{-3, -6, -9}));
  EXPECT_THROW(
      unary("neg", {vec(DType::kInt32, 3), oi.data()}, {vec(DType::kInt32, 3), xi.data()}, 0.5),
      Error);
}

TEST(EngineExpression, ScalarOperandBroadcastsAgainstAnyShape) {
  std::vector<double> x(12), out(12);
  std::iota(x.begin(), x.end(), 0.0);
  const TensorDesc d = row_major(DType::kDouble, std::vector<int64_t>{3, 4});
  binary("mul", {d, out.data()}, {d, x.data()}, ConstOperand::scalar(0.5, DType::kDouble));
  for (int i = 0; i < 12; ++i) EXPECT_EQ(out[i], i * 0.5);
}

TEST(EngineExpression, TransposedInputIsReadThroughItsStridesWithoutCopy) {
  std::vector<int32_t> a(6), out(6);
  std::iota(a.begin(), a.end(), 0);  // (2,3): [[0,1,2],[3,4,5]]
  const TensorDesc at = transpose(row_major(DType::kInt32, std::vector<int64_t>{2, 3}));
  unary("identity", {row_major(DType::kInt32, std::vector<int64_t>{3, 2}), out.data()},
        {at, a.data()});
  EXPECT_EQ(out, (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
}

TEST(EngineExpression, InPlaceOnTheSameViewIsAllowed) {
  std::vector<float> x(5000, 2.f);
  const TensorDesc d = vec(DType::kFloat, 5000);
  binary("mul", {d, x.data()}, {d, x.data()}, {d, x.data()});
  for (float v : x) ASSERT_EQ(v, 4.f);
}

TEST(EngineExpression, OverlappingShiftedInputIsReadAsItWasBefore) {
  // x[1:] = x[:-1] + 1 must read the old x, as if the input were a separate array.
  std::vector<int64_t> x(3000);
  std::iota(x.begin(), x.end(), 0);
  const std::vector<int64_t> before = x;
  const TensorDesc all = vec(DType::kInt64, 3000);
  const TensorDesc head = slice(all, 0, 0, 2999), tail = slice(all, 0, 1, 3000);
  binary("add", {tail, x.data()}, {head, x.data()}, ConstOperand::scalar(1, DType::kInt64));
  EXPECT_EQ(x[0], 0);
  for (int i = 1; i < 3000; ++i) ASSERT_EQ(x[i], before[i - 1] + 1);
}

TEST(EngineExpression, InputsAreNeverModified) {
  std::vector<float> a(300, 1.5f), b(300, -2.f), out(300);
  const auto a0 = a, b0 = b;
  binary("pow", {vec(DType::kFloat, 300), out.data()}, {vec(DType::kFloat, 300), a.data()},
         {vec(DType::kFloat, 300), b.data()});
  EXPECT_EQ(a, a0);
  EXPECT_EQ(b, b0);
}

TEST(EngineExpression, ThreadCountDoesNotChangeElementwiseResults) {
  const int64_t n = 1 << 18;
  std::vector<float> x(n), o1(n), o3(n);
  std::mt19937 rng(11);
  for (float& v : x) v = std::uniform_real_distribution<float>(-3, 3)(rng);
  ThreadPool one(1), three(3);
  EngineOptions a, b;
  a.pool = &one;
  b.pool = &three;
  const TensorDesc d = row_major(DType::kFloat, std::vector<int64_t>{512, 512});
  unary("tanh", {d, o1.data()}, {transpose(d), x.data()}, 1, a);
  unary("tanh", {d, o3.data()}, {transpose(d), x.data()}, 1, b);
  EXPECT_EQ(o1, o3);
}

// Passes with an operand strided along the inner dim run in tiles of rows by elements; the
// shapes here leave partial tiles both ways (390 rows of 1665 elements, 44 rows of 37), and
// each pass is checked against index arithmetic on one and on three threads: a uint8 NHWC
// array read as NCHW into float, a float NHWC array read as NCHW times a per-channel scale plus
// a dense array, and a dense array written into a transposed destination.
TEST(EngineExpression, TransposingPassesInTilesMatchIndexArithmetic) {
  const int64_t N = 3, H = 45, W = 37, C = 130, HW = H * W;
  std::vector<uint8_t> nhwc(N * HW * C);
  std::vector<float> nhwc_f(N * HW * C), dense(N * C * HW), scale(C);
  std::mt19937 rng(5);
  for (auto& v : nhwc) v = static_cast<uint8_t>(rng() % 256);
  for (size_t i = 0; i < nhwc.size(); ++i) nhwc_f[i] = std::ldexp(float(nhwc[i]), -3);
  for (auto& v : dense) v = std::uniform_real_distribution<float>(-2, 2)(rng);
  for (auto& v : scale) v = std::uniform_real_distribution<float>(0.5f, 2)(rng);
  const int64_t to_nchw[] = {0, 3, 1, 2};
  const TensorDesc as_nchw =
      permute(row_major(DType::kUInt8, std::vector<int64_t>{N, H, W, C}), to_nchw);
  const TensorDesc nchw_f = row_major(DType::kFloat, std::vector<int64_t>{N, C, H, W});
  const TensorDesc scale_d = row_major(DType::kFloat, std::vector<int64_t>{1, C, 1, 1});
  auto x = [&](int64_t n, int64_t c, int64_t hw) { return float(nhwc[(n * HW + hw) * C + c]); };
  auto at = [&](int64_t n, int64_t c, int64_t hw) { return (n * C + c) * HW + hw; };

  ThreadPool one(1), three(3);
  for (ThreadPool* pool : {&one, &three}) {
    EngineOptions opt;
    opt.pool = pool;
    std::vector<float> converted(N * C * HW), sum(N * C * HW), back(N * HW * C);
    assign({nchw_f, converted.data()}, {as_nchw, nhwc.data()}, opt);
    const DType in[] = {DType::kFloat, DType::kFloat, DType::kFloat};
    ExprBuilder b(in);
    b.apply("add", {b.apply("mul", {b.input(0), b.input(2)}), b.input(1)});
    const ConstOperand ops[] = {
        {permute(row_major(DType::kFloat, std::vector<int64_t>{N, H, W, C}), to_nchw),
         nhwc_f.data()},
        {nchw_f, dense.data()},
        {scale_d, scale.data()}};
    evaluate(b.build(), {nchw_f, sum.data()}, ops, Reduce::kNone, opt);
    // dense (NCHW) written into an NHWC array seen as NCHW.
    assign(
        {permute(row_major(DType::kFloat, std::vector<int64_t>{N, H, W, C}), to_nchw), back.data()},
        {nchw_f, dense.data()}, opt);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t hw = 0; hw < HW; ++hw) {
          ASSERT_EQ(converted[at(n, c, hw)], x(n, c, hw)) << n << " " << c << " " << hw;
          const float scaled = std::ldexp(x(n, c, hw), -3) * scale[c], d = dense[at(n, c, hw)];
          // float rounding of the two steps (or of one fused multiply-add)
          ASSERT_NEAR(sum[at(n, c, hw)], scaled + d, 1e-6f * (std::fabs(scaled) + std::fabs(d)));
          ASSERT_EQ(back[(n * HW + hw) * C + c], dense[at(n, c, hw)]);
        }
  }
  // A short inner dim (37) over 44 rows, transposed: under the tile width, the plain loop.
  std::vector<int32_t> small(44 * 37), out(44 * 37);
  std::iota(small.begin(), small.end(), 0);
  unary("identity", {row_major(DType::kInt32, std::vector<int64_t>{37, 44}), out.data()},
        {transpose(row_major(DType::kInt32, std::vector<int64_t>{44, 37})), small.data()});
  for (int64_t i = 0; i < 37; ++i)
    for (int64_t j = 0; j < 44; ++j) ASSERT_EQ(out[i * 44 + j], small[j * 37 + i]);
}

// Chunk buffers are kept per thread between passes up to a size and allocated per pass
// beyond it, and chunk pointers live on the stack up to a node count: a long chain (beyond
// both), then short passes of other sizes on the same thread, each equal step by step.
TEST(EngineExpression, LongChainsAndShortPassesAlternatingAgreeWithStepByStep) {
  const DType f = DType::kFloat;
  std::mt19937 rng(7);
  for (int nodes : {1, 3, 24, 2, 40, 1}) {
    for (int64_t n : {int64_t{5}, int64_t{4096 * 3 + 17}}) {
      std::vector<float> x(n), fused(n), stepped(n);
      for (float& v : x) v = std::uniform_real_distribution<float>(-1, 1)(rng);
      const DType in[] = {f, f};
      ExprBuilder b(in);
      ExprArg acc = b.input(0);
      for (int k = 0; k < nodes; ++k) acc = b.apply(k % 2 ? "mul" : "add", {acc, b.input(1)});
      const ConstOperand ops[] = {{vec(f, n), x.data()}, ConstOperand::scalar(0.5, f)};
      evaluate(b.build(), {vec(f, n), fused.data()}, ops);
      stepped = x;
      for (int k = 0; k < nodes; ++k)
        binary(k % 2 ? "mul" : "add", {vec(f, n), stepped.data()}, {vec(f, n), stepped.data()},
               ops[1]);
      SCOPED_TRACE("nodes " + std::to_string(nodes) + ", n " + std::to_string(n));
      EXPECT_EQ(fused, stepped);
    }
  }
}

TEST(EngineExpression, DestinationSmallerThanLoopNeedsAReduction) {
  std::vector<float> x(6), out(3);
  try {
    unary("exp", {vec(DType::kFloat, 3), out.data()},
          {row_major(DType::kFloat, std::vector<int64_t>{2, 3}), x.data()});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pass a reduction"), std::string::npos) << e.what();
  }
}

TEST(EngineExpression, BroadcastDestinationIsRejected) {
  std::vector<float> x(6), out(3);
  TensorDesc dst = row_major(DType::kFloat, std::vector<int64_t>{2, 3});
  dst.strides = {0, 1};
  try {
    unary("exp", {dst, out.data()},
          {row_major(DType::kFloat, std::vector<int64_t>{2, 3}), x.data()});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("alias"), std::string::npos) << e.what();
  }
}

TEST(EngineExpression, OpNotDefinedForTheTypeNamesOpAndType) {
  std::vector<int32_t> x(3), out(3);
  try {
    unary("exp", {vec(DType::kInt32, 3), out.data()}, {vec(DType::kInt32, 3), x.data()});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'exp' is not defined for int32"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(
      unary("no_such_op", {vec(DType::kInt32, 3), out.data()}, {vec(DType::kInt32, 3), x.data()}),
      Error);
}

TEST(EngineExpression, InputDtypeMustMatchTheExpression) {
  const DType in[] = {DType::kFloat};
  ExprBuilder b(in);
  b.apply("exp", {b.input(0)});
  std::vector<double> x(3);
  std::vector<float> out(3);
  const ConstOperand ops[] = {{vec(DType::kDouble, 3), x.data()}};
  EXPECT_THROW(evaluate(b.build(), {vec(DType::kFloat, 3), out.data()}, ops), Error);
}

}  // namespace
}  // namespace geon
