// cpu.generic elementwise kernels against naive loops: binary ops on seeded random broadcast
// shapes (with strided, transposed inputs), unary ops and activations with alpha, variadic
// Sum/Mean/Max, comparisons, Where, and supports() reasons.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

struct BinCase {
  const char* op;
  std::function<double(double, double)> f;
  double lo, hi;
};

TEST(CpuGenericElementwise, BinaryBroadcastRandom) {
  std::mt19937 rng(7);
  const BinCase cases[] = {
      {"Add", [](double a, double b) { return a + b; }, -2, 2},
      {"Sub", [](double a, double b) { return a - b; }, -2, 2},
      {"Mul", [](double a, double b) { return a * b; }, -2, 2},
      {"Div", [](double a, double b) { return a / b; }, 0.5, 2},
      {"Pow", [](double a, double b) { return std::pow(a, b); }, 0.5, 2},
      {"PRelu", [](double a, double b) { return a >= 0 ? a : a * b; }, -2, 2},
  };
  for (const BinCase& c : cases) {
    for (int trial = 0; trial < 8; ++trial) {
      const Dims out = random_shape(rng, 1 + static_cast<int>(rng() % 4));
      Host a = Host::random(DType::kFloat, out, rng, c.lo, c.hi);
      Host b = Host::random(DType::kFloat, broadcastable(rng, out), rng, c.lo, c.hi);
      if (a.desc.rank() == 2 && trial % 2) a = a.strided({1, 0});  // a transposed layout
      NodeGraph ng(c.op, 14);
      ng.in(a).in(b).out(DType::kFloat, out);
      const Host y = ng.run(gen())[0];
      SCOPED_TRACE(std::string(c.op) + " " + to_string(a.desc) + " " + to_string(b.desc));
      expect_values(y, out, [&](int64_t i) { return c.f(a.at(i), bcast_at(b, out, i)); });
    }
  }
}

TEST(CpuGenericElementwise, TransposedInputs) {
  std::mt19937 rng(11);
  Host a = Host::random(DType::kFloat, {3, 4, 5}, rng).strided({2, 0, 1});
  Host b = Host::random(DType::kFloat, {4, 1}, rng);
  ASSERT_FALSE(is_contiguous(a.desc));
  NodeGraph ng("Mul", 14);
  ng.in(a).in(b).out(DType::kFloat, {3, 4, 5});
  const Host y = ng.run(gen())[0];
  expect_values(y, {3, 4, 5}, [&](int64_t i) { return a.at(i) * bcast_at(b, {3, 4, 5}, i); });
}

TEST(CpuGenericElementwise, IntegerAndComparison) {
  std::mt19937 rng(3);
  Host a = Host::random(DType::kInt32, {4, 3}, rng, -10, 10);
  Host b = Host::random(DType::kInt32, {3}, rng, 1, 5);
  NodeGraph add("Add", 14);
  add.in(a).in(b).out(DType::kInt32, {4, 3});
  expect_values(add.run(gen())[0], {4, 3}, [&](int64_t i) {
    return a.at(i) + bcast_at(b, {4, 3}, i);
  });
  NodeGraph mod("Mod", 13);
  mod.in(a).in(b).out(DType::kInt32, {4, 3});
  expect_values(mod.run(gen())[0], {4, 3}, [&](int64_t i) {
    const int64_t x = static_cast<int64_t>(a.at(i)),
                  y = static_cast<int64_t>(bcast_at(b, {4, 3}, i));
    int64_t r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return static_cast<double>(r);
  });
  NodeGraph less("Less", 13);
  less.in(a).in(b).out(DType::kBool, {4, 3});
  expect_values(less.run(gen())[0], {4, 3}, [&](int64_t i) {
    return a.at(i) < bcast_at(b, {4, 3}, i) ? 1 : 0;
  });
}

TEST(CpuGenericElementwise, UnaryAndActivations) {
  std::mt19937 rng(5);
  const Host x = Host::random(DType::kFloat, {2, 3, 4}, rng).strided({2, 1, 0});
  struct U {
    const char* op;
    std::function<double(double)> f;
  };
  const U cases[] = {
      {"Relu", [](double v) { return v > 0 ? v : 0; }},
      {"Exp", [](double v) { return std::exp(v); }},
      {"Tanh", [](double v) { return std::tanh(v); }},
      {"Sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }},
      {"Abs", [](double v) { return std::abs(v); }},
      {"Neg", [](double v) { return -v; }},
      {"Erf", [](double v) { return std::erf(v); }},
      {"Floor", [](double v) { return std::floor(v); }},
      {"Softsign", [](double v) { return v / (1 + std::abs(v)); }},
      {"Identity", [](double v) { return v; }},
  };
  for (const U& c : cases) {
    NodeGraph ng(c.op, 14);
    ng.in(x).out(DType::kFloat, {2, 3, 4});
    SCOPED_TRACE(c.op);
    expect_values(ng.run(gen())[0], {2, 3, 4}, [&](int64_t i) { return c.f(x.at(i)); });
  }
  NodeGraph leaky("LeakyRelu", 16);
  leaky.in(x).out(DType::kFloat, {2, 3, 4}).attr_f("alpha", 0.25f);
  expect_values(leaky.run(gen())[0], {2, 3, 4},
                [&](int64_t i) { return x.at(i) >= 0 ? x.at(i) : 0.25 * x.at(i); });
  NodeGraph elu("Elu", 6);  // default alpha 1
  elu.in(x).out(DType::kFloat, {2, 3, 4});
  expect_values(elu.run(gen())[0], {2, 3, 4},
                [&](int64_t i) { return x.at(i) >= 0 ? x.at(i) : std::expm1(x.at(i)); });
}

TEST(CpuGenericElementwise, VariadicAndWhere) {
  std::mt19937 rng(9);
  const Dims out = {3, 4, 2};
  const Host a = Host::random(DType::kFloat, out, rng);
  const Host b = Host::random(DType::kFloat, {4, 1}, rng);
  const Host c = Host::random(DType::kFloat, {2}, rng);
  auto at3 = [&](int64_t i, int k) {
    return k == 0 ? a.at(i) : k == 1 ? bcast_at(b, out, i) : bcast_at(c, out, i);
  };
  NodeGraph sum("Sum", 13), mean("Mean", 13), mx("Max", 13), one("Max", 13);
  sum.in(a).in(b).in(c).out(DType::kFloat, out);
  mean.in(a).in(b).in(c).out(DType::kFloat, out);
  mx.in(b).in(a).in(c).out(DType::kFloat, out);
  one.in(b).out(DType::kFloat, {4, 1});
  expect_values(sum.run(gen())[0], out,
                [&](int64_t i) { return at3(i, 0) + at3(i, 1) + at3(i, 2); });
  expect_values(mean.run(gen())[0], out,
                [&](int64_t i) { return (at3(i, 0) + at3(i, 1) + at3(i, 2)) / 3; });
  expect_values(mx.run(gen())[0], out, [&](int64_t i) {
    return std::max({at3(i, 0), at3(i, 1), at3(i, 2)});
  });
  expect_values(one.run(gen())[0], {4, 1}, [&](int64_t i) { return b.at(i); });

  const Host cond = Host::random(DType::kBool, {4, 1}, rng, 0, 2);
  NodeGraph where("Where", 16);
  where.in(cond).in(a).in(c).out(DType::kFloat, out);
  expect_values(where.run(gen())[0], out, [&](int64_t i) {
    return bcast_at(cond, out, i) != 0 ? a.at(i) : bcast_at(c, out, i);
  });
}

TEST(CpuGenericElementwise, BitShiftDirection) {
  const Host x = Host::of(DType::kUInt8, {3}, {1, 2, 3});
  const Host s = Host::of(DType::kUInt8, {3}, {1, 2, 3});
  NodeGraph l("BitShift", 11), r("BitShift", 11);
  l.in(x).in(s).out(DType::kUInt8, {3}).attr_s("direction", "LEFT");
  r.in(x).in(s).out(DType::kUInt8, {3}).attr_s("direction", "RIGHT");
  expect_values(l.run(gen())[0], {3}, [](int64_t i) { return (i + 1) << (i + 1); });
  expect_values(r.run(gen())[0], {3}, [](int64_t i) { return (i + 1) >> (i + 1); });
}

// The kernel builds its expression once for the dtypes the graph declares; calls with other
// shapes reuse it, and a call whose inputs have another dtype than declared builds its own.
TEST(CpuGenericElementwise, OneKernelServesCallsOfOtherShapesAndDtypes) {
  std::mt19937 rng(13);
  NodeGraph ng("Mul", 14);
  ng.in(Host::random(DType::kFloat, {2, 3}, rng)).in(Host::random(DType::kFloat, {3}, rng));
  ng.out(DType::kFloat, {2, 3});
  const std::unique_ptr<Kernel> k = find_kernel(gen(), *ng.node)->create(ng.g, *ng.node);
  struct Call {
    DType t;
    Dims a, b, out;
  };
  const Call calls[] = {{DType::kFloat, {2, 3}, {3}, {2, 3}},
                        {DType::kFloat, {4, 1, 5}, {1, 6, 1}, {4, 6, 5}},
                        {DType::kDouble, {3, 2}, {2}, {3, 2}},
                        {DType::kFloat, {7}, {7}, {7}}};
  for (const Call& c : calls) {
    const Host a = Host::random(c.t, c.a, rng), b = Host::random(c.t, c.b, rng);
    FakeContext ctx({a, b}, {c.t});
    k->compute(ctx);
    SCOPED_TRACE(to_string(a.desc) + " * " + to_string(b.desc));
    EXPECT_EQ(ctx.result(0).desc.dtype, c.t);
    expect_values(ctx.result(0), c.out,
                  [&](int64_t i) { return bcast_at(a, c.out, i) * bcast_at(b, c.out, i); });
  }
}

TEST(CpuGenericElementwise, SupportsReasons) {
  NodeGraph str("Add", 14);
  str.in(Host{TensorDesc{DType::kString, {2}, {1}, 0, {}}, nullptr})
      .in(Host{TensorDesc{DType::kString, {2}, {1}, 0, {}}, nullptr})
      .out(DType::kString, {2});
  ASSERT_TRUE(str.supports(gen()));
  EXPECT_NE(str.supports(gen())->find("string"), std::string::npos) << *str.supports(gen());

  NodeGraph exp_int("Exp", 13);
  exp_int.in(Host::dense(DType::kInt32, {2})).out(DType::kInt32, {2});
  ASSERT_TRUE(exp_int.supports(gen()));
  EXPECT_NE(exp_int.supports(gen())->find("exp"), std::string::npos);

  // One-signed IsInf and an integer base with a floating exponent run now (their values:
  // elementwise_isinf_pow_test.cc).
  NodeGraph isinf("IsInf", 10);
  isinf.in(Host::dense(DType::kFloat, {2})).out(DType::kBool, {2}).attr_i("detect_positive", 0);
  EXPECT_FALSE(isinf.supports(gen())) << *isinf.supports(gen());

  NodeGraph pow("Pow", 15);
  pow.in(Host::dense(DType::kInt32, {2}))
      .in(Host::dense(DType::kFloat, {2}))
      .out(DType::kInt32, {2});
  EXPECT_FALSE(pow.supports(gen())) << *pow.supports(gen());

  NodeGraph shift("BitShift", 11);
  shift.in(Host::dense(DType::kUInt8, {2}))
      .in(Host::dense(DType::kUInt8, {2}))
      .out(DType::kUInt8, {2});
  EXPECT_TRUE(shift.supports(gen()));  // no direction

  NodeGraph unknown("NoSuchOp", 6);  // an op no set has a row for
  EXPECT_EQ(unknown.supports(gen()), "no entry");
}

}  // namespace
}  // namespace geon::cpu::testing
