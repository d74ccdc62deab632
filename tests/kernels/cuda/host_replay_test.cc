// The CUDA kernels' bodies replayed on the CPU (replay.h) against the CPU engine: every op of
// the table on every compute type, typed and interpreted; fused expressions; reductions of
// every kind; casts between every pair of numeric dtypes. Runs on every machine, so all the
// device code except the CUDA runtime calls and the device math library is checked here.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "core/dtype/float8.h"
#include "kernels/cuda/plan.h"
#include "tests/kernels/cuda/cases.h"
#include "tests/kernels/cuda/replay.h"

namespace geon::cuda {
namespace {

using namespace testing_views;
using namespace cuda::testing;

std::vector<ConstOperand> operands(std::vector<Buffer>& in) {
  std::vector<ConstOperand> ops;
  for (Buffer& b : in) ops.emplace_back(b.desc, b.data());
  return ops;
}

Dims loop_of(const Buffer& dst, const std::vector<Buffer>& in) {
  std::vector<const TensorDesc*> descs{&dst.desc};
  for (const Buffer& b : in) descs.push_back(&b.desc);
  return loop_shape(descs);
}

TEST(CudaHostReplay, EveryOpOfTheTableMatchesTheCpuEngineTypedAndInterpreted) {
  std::mt19937_64 rng(1234);
  int cases = 0, typed = 0;
  for (const OpDef& op : geon::all_ops()) {
    for (int ci = 0; ci < kComputeTypeCount; ++ci) {
      if (!op.fn[ci]) continue;
      for (int rep = 0; rep < 5; ++rep) {
        OpCase c = op_case(rng, op, kComputeTypes[ci], rep);
        // Half the time, inputs and destination in the compute type: the typed kernels' case.
        if (rep % 2 == 0) {
          for (size_t a = 0; a < c.in.size(); ++a)
            if (!(a == 0 && op.condition_first) && c.in[a].desc.dtype != kComputeTypes[ci])
              c.in[a] = random_view(rng, kComputeTypes[ci], c.in[a].desc.shape);
          const DType rt = op.result == OpResult::kBool ? DType::kBool : kComputeTypes[ci];
          c.dst = random_view(rng, rt, c.dst.desc.shape);
          std::vector<DType> dtypes;
          for (const Buffer& b : c.in) dtypes.push_back(b.desc.dtype);
          Expr e = c.expr;
          e.inputs = dtypes;
          c.expr = e;
        }
        Buffer want = c.dst, got = c.dst, via_interpreter = c.dst;
        std::vector<ConstOperand> in = operands(c.in);
        geon::evaluate(c.expr, {want.desc, want.data()}, in);
        const Dims loop = loop_of(c.dst, c.in);
        const DevExpr e = simplify(encode_expr(c.expr));
        const ElementwisePlan plan = plan_elementwise(e, {got.desc, got.data()}, in, loop, {}, 2);
        replay(plan);
        expect_same_values(got, want, 0, c.what);
        ElementwisePlan forced =
            plan_elementwise(e, {via_interpreter.desc, via_interpreter.data()}, in, loop, {}, 2);
        replay(forced, /*force_interpreter=*/true);
        expect_same_values(via_interpreter, want, 0, c.what + " (interpreted)");
        typed += plan.typed;
        ++cases;
      }
    }
  }
  EXPECT_GT(cases, 1000);
  EXPECT_GT(typed, 300);
}

TEST(CudaHostReplay, ScalarOperandsTravelInsideThePass) {
  std::vector<float> x{1, 2, 3, 4}, got(4), want(4);
  const TensorDesc d = row_major(DType::kFloat, std::vector<int64_t>{4});
  const ConstOperand in[] = {{d, x.data()}, ConstOperand::scalar(0.5, DType::kFloat)};
  const DType types[] = {DType::kFloat, DType::kFloat};
  ExprBuilder b(types);
  b.apply("sub", {b.input(0), b.input(1)}, {2.0, 3.0});
  const Expr e = b.build();
  geon::evaluate(e, {d, want.data()}, in);
  const ElementwisePlan plan =
      plan_elementwise(encode_expr(e), {d, got.data()}, in, d.shape, {}, 1);
  EXPECT_TRUE(plan.typed);
  replay(plan);
  EXPECT_EQ(got, want);
  EXPECT_EQ(got[0], 0.5f);  // 2*1 - 3*0.5
}

// A random chain over float inputs: each node applies a random op to earlier values.
Expr random_expression(std::mt19937_64& rng, int inputs, int nodes) {
  const char* unary[] = {"neg", "abs", "exp", "tanh", "sigmoid", "square", "sqrt", "relu"};
  const char* binary[] = {"add", "sub", "mul", "max", "min", "div", "squared_difference"};
  std::vector<DType> dtypes(inputs, DType::kFloat);
  ExprBuilder b(dtypes);
  std::vector<ExprArg> vals;
  for (int i = 0; i < inputs; ++i) vals.push_back(b.input(i));
  for (int k = 0; k < nodes; ++k) {
    const ExprArg x = vals[rng() % vals.size()], y = vals[rng() % vals.size()];
    if (rng() % 3 == 0)
      vals.push_back(b.apply(unary[rng() % 8], {x}));
    else if (rng() % 5 == 0)
      vals.push_back(b.apply("where", {b.apply("less", {x, y}), x, y}));
    else
      vals.push_back(b.apply(binary[rng() % 7], {x, y}, {1.0, rng() % 2 ? 1.0 : -0.5}));
  }
  return b.build();
}

TEST(CudaHostReplay, FusedExpressionsMatchTheCpuEngine) {
  std::mt19937_64 rng(77);
  for (int rep = 0; rep < 200; ++rep) {
    const int inputs = 1 + static_cast<int>(rng() % 4);
    const Expr e = random_expression(rng, inputs, 1 + static_cast<int>(rng() % 10));
    const Dims loop = random_shape(rng, 3, 6);
    std::vector<Buffer> in;
    for (int i = 0; i < inputs; ++i)
      in.push_back(random_view(rng, i == 0 ? DType::kFloat : storage_for(rng, DType::kFloat),
                               i == 0 ? loop : broadcastable_shape(rng, loop)));
    Expr typed_e = e;
    for (int i = 0; i < inputs; ++i) typed_e.inputs[i] = in[i].desc.dtype;
    Buffer want = random_view(rng, storage_for(rng, DType::kFloat), loop), got = want;
    std::vector<ConstOperand> ops = operands(in);
    geon::evaluate(typed_e, {want.desc, want.data()}, ops);
    const ElementwisePlan plan =
        plan_elementwise(simplify(encode_expr(typed_e)), {got.desc, got.data()}, ops, loop, {}, 3);
    replay(plan);
    expect_same_values(got, want, 0, "fused expression, rep " + std::to_string(rep));
  }
}

TEST(CudaHostReplay, SimplifyTurnsTheL2ExampleIntoOneTypedNode) {
  const DType types[] = {DType::kFloat, DType::kFloat};
  ExprBuilder b(types);
  const ExprArg d = b.apply("sub", {b.input(0), b.input(1)}, {1.0, 2.0});
  b.apply("mul", {d, d});
  const DevExpr e = simplify(encode_expr(b.build()));
  ASSERT_EQ(e.n_nodes, 1);
  EXPECT_EQ(e.nodes[0].op, OpId::SquaredDifference);
  EXPECT_EQ(e.nodes[0].scale[1], 2.0);
  ExprBuilder sq(types);
  sq.apply("mul", {sq.input(1), sq.input(1)});
  const DevExpr s = simplify(encode_expr(sq.build()));
  ASSERT_EQ(s.n_nodes, 1);
  EXPECT_EQ(s.nodes[0].op, OpId::Square);
  EXPECT_EQ(s.nodes[0].arg[0], 1);
  // A difference used twice elsewhere stays.
  ExprBuilder keep(types);
  const ExprArg k = keep.apply("sub", {keep.input(0), keep.input(1)});
  const ExprArg m = keep.apply("mul", {k, k});
  keep.apply("add", {m, k});
  EXPECT_EQ(simplify(encode_expr(keep.build())).n_nodes, 3);
}

TEST(CudaHostReplay, ReductionsMatchTheCpuEngine) {
  std::mt19937_64 rng(99);
  const Reduce kinds[] = {Reduce::kSum, Reduce::kMean, Reduce::kMax, Reduce::kMin, Reduce::kProd};
  const DType types[] = {DType::kFloat, DType::kDouble,  DType::kInt32, DType::kInt64,
                         DType::kUInt8, DType::kFloat16, DType::kBool};
  int typed = 0, block = 0;
  for (int rep = 0; rep < 400; ++rep) {
    const Reduce r = kinds[rng() % 5];
    const DType t = types[rng() % 7];
    Dims loop = random_shape(rng, 4, 6);
    if (r == Reduce::kProd && element_count(loop) > 12) loop = {3, 4};
    if (rep % 25 == 0) loop = {2, 3000};  // block per segment, several segments
    if (rep % 40 == 0) loop = {3, 0};     // empty: identities
    Buffer src = random_view(rng, t, loop);
    Dims dshape = loop;
    for (auto& len : dshape) {
      const int pick = static_cast<int>(rng() % 3);
      if (pick == 1) len = 1;
      if (pick == 2 && len % 2 == 0) len /= 2;
    }
    Buffer want = random_view(rng, t == DType::kBool ? DType::kInt32 : t, dshape), got = want;
    std::vector<Buffer> ins{src};
    std::vector<ConstOperand> in = operands(ins);
    geon::reduce(r, {want.desc, want.data()}, in[0]);
    ExprBuilder b(std::span<const DType>(&t, 1));
    b.apply("identity", {b.input(0)});
    const ReductionPlan plan = plan_reduction(encode_expr(b.build()), r, {got.desc, got.data()}, in,
                                              loop, {}, 1 + static_cast<int>(rng() % 3));
    replay(plan);
    typed += plan.typed;
    block += plan.shape == ReduceShape::kBlockPerSegment && plan.first.blocks > 0;
    // Sums of floats add in another order than the CPU's lanes.
    const bool exact = r == Reduce::kMax || r == Reduce::kMin || !is_floating(t);
    expect_same_values(got, want, exact ? 0 : tolerance_for(t, false),
                       "reduce " + std::to_string(static_cast<int>(r)) + " " +
                           std::string(dtype_name(t)) + " " + to_string(src.desc) + " into " +
                           to_string(want.desc));
  }
  EXPECT_GT(typed, 20);
  EXPECT_GE(block, 4);
}

TEST(CudaHostReplay, FusedL2ReductionMatchesTheCpuEngine) {
  std::mt19937_64 rng(5);
  const Dims loop = {1 << 14};
  Buffer x = random_view(rng, DType::kFloat, loop), y = random_view(rng, DType::kFloat, loop);
  const DType types[] = {DType::kFloat, DType::kFloat};
  ExprBuilder b(types);
  const ExprArg d = b.apply("sub", {b.input(0), b.input(1)});
  b.apply("mul", {d, d});
  const Expr e = b.build();
  std::vector<Buffer> ins{x, y};
  std::vector<ConstOperand> in = operands(ins);
  float want = 0, got = 0;
  geon::evaluate(e, {row_major(DType::kFloat, {}), &want}, in, Reduce::kSum);
  const ReductionPlan plan = plan_reduction(simplify(encode_expr(e)), Reduce::kSum,
                                            {row_major(DType::kFloat, {}), &got}, in, loop, {}, 4);
  EXPECT_TRUE(plan.typed);
  replay(plan);
  EXPECT_NEAR(got, want, 1e-5 * want);
}

// Values that hit every conversion rule: signed zeros, ties, saturation edges of each narrow
// format, out-of-range integers, infinities and NaN.
Scalar special_value(std::mt19937_64& rng) {
  static const double kValues[] = {
      0.0,      -0.0,     1,       -1,        0.5,    1.5,      2.5,       -2.5, 3.75,  6.5,
      7,        -8.5,     255.5,   -128.5,    300,    448,      464,       500,  57344, 61440,
      65504,    65520,    1e10,    -1e10,     0x1p63, -0x1p63,  0x1p64,    1e-8, 3e-39, 1e-45,
      0x1p-127, 0x1p-126, 0x1p127, 0x1.8p127, 1e300,  INFINITY, -INFINITY, NAN};
  Scalar s;
  switch (rng() % 4) {
    case 0:
      s.kind = Scalar::Kind::kSigned;
      s.i = static_cast<int64_t>(rng()) >> (rng() % 64);
      return s;
    case 1:
      s.kind = Scalar::Kind::kUnsigned;
      s.u = rng() >> (rng() % 64);
      return s;
    default:
      s.kind = Scalar::Kind::kFloat;
      s.re = kValues[rng() % (sizeof kValues / sizeof kValues[0])];
      if (rng() % 3 == 0) s.re *= 1 + std::uniform_real_distribution<double>(-0.01, 0.01)(rng);
      return s;
  }
}

TEST(CudaHostReplay, CastsBetweenEveryPairOfNumericDtypesMatchTheCpuAssign) {
  std::mt19937_64 rng(2024);
  int pairs = 0;
  for (int a = 1; a < kDTypeCount; ++a)
    for (int b = 1; b < kDTypeCount; ++b) {
      const DType from = static_cast<DType>(a), to = static_cast<DType>(b);
      if (!is_numeric(from) || !is_numeric(to)) continue;
      for (int rep = 0; rep < 3; ++rep) {
        const Dims loop = {3, 1 + static_cast<int64_t>(rng() % 9)};
        Buffer src = random_view(rng, from, rep == 2 ? Dims{loop[1]} : loop);
        for (int64_t i = 0;
             i < static_cast<int64_t>(src.bytes.size() * 8 / std::max(1, dtype_bits(from))) - 8;
             ++i)
          store_scalar(from, src.data(), i, special_value(rng));
        Buffer want = random_view(rng, to, loop), got = want;
        CastOptions opt;
        opt.saturate = rng() % 2;
        opt.e8m0_round = static_cast<E8M0Round>(rng() % 3);
        geon::assign({want.desc, want.data()}, {src.desc, src.data()}, {nullptr, opt});
        replay(plan_cast({got.desc, got.data()}, {src.desc, src.data()}, opt, 2));
        expect_same_values(got, want, 0,
                           std::string(dtype_name(from)) + " to " + std::string(dtype_name(to)));
        if (is_packed(to) || to == from) {
          EXPECT_EQ(got.bytes, want.bytes) << dtype_name(to);
        }
      }
      ++pairs;
    }
  EXPECT_EQ(pairs, 25 * 25);
}

TEST(CudaHostReplay, NarrowFloatCodecsMatchCore) {
  using K = float8_detail::Kind;
  for (unsigned c = 0; c < 256; ++c) {
    auto same = [](float x, float y) {
      return std::bit_cast<uint32_t>(x) == std::bit_cast<uint32_t>(y);
    };
    EXPECT_TRUE(same(decode_narrow(K::kE4M3FN, c), float8e4m3fn_to_float(c))) << c;
    EXPECT_TRUE(same(decode_narrow(K::kE4M3FNUZ, c), float8e4m3fnuz_to_float(c))) << c;
    EXPECT_TRUE(same(decode_narrow(K::kE5M2, c), float8e5m2_to_float(c))) << c;
    EXPECT_TRUE(same(decode_narrow(K::kE5M2FNUZ, c), float8e5m2fnuz_to_float(c))) << c;
    EXPECT_TRUE(same(decode_narrow(K::kE8M0, c), float8e8m0_to_float(c))) << c;
    EXPECT_TRUE(same(decode_narrow(K::kE2M1, c & 15), float4e2m1_to_float(c))) << c;
  }
  std::mt19937_64 rng(8);
  for (int i = 0; i < 200000; ++i) {
    double x = special_value(rng).re;
    if (i % 2)
      x = std::ldexp(std::uniform_real_distribution<double>(-2, 2)(rng),
                     static_cast<int>(rng() % 300) - 150);
    for (bool sat : {true, false}) {
      ASSERT_EQ(encode_e4m3fn(x, sat), float_to_float8e4m3fn(x, sat)) << x;
      ASSERT_EQ(encode_fnuz(x, sat, 3, -7), float_to_float8e4m3fnuz(x, sat)) << x;
      ASSERT_EQ(encode_e5m2(x, sat), float_to_float8e5m2(x, sat)) << x;
      ASSERT_EQ(encode_fnuz(x, sat, 2, -15), float_to_float8e5m2fnuz(x, sat)) << x;
      for (E8M0Round m : {E8M0Round::kUp, E8M0Round::kDown, E8M0Round::kNearest})
        ASSERT_EQ(encode_e8m0(x, sat, m), float_to_float8e8m0(x, sat, m)) << x;
    }
    ASSERT_EQ(encode_e2m1(x), float_to_float4e2m1(x)) << x;
  }
}

}  // namespace
}  // namespace geon::cuda
