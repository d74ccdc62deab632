// cpu.generic CausalConvWithState against a naive loop over the padded sequence: with and
// without past state and bias, SiLU / swish, kernel size 1, inputs shorter than the state,
// float16 and bfloat16, strided inputs, and bad shapes as clear errors.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

struct Case {
  int64_t B = 2, C = 3, L = 5, K = 3;
  bool bias = true, past = true, strided = false;
  std::string act = "none";
  DType t = DType::kFloat;
};

void check(const Case& c, double tol = 1e-5) {
  std::mt19937 rng(static_cast<unsigned>(c.L * 13 + c.K));
  Host x = Host::random(c.t, {c.B, c.C, c.L}, rng);
  if (c.strided) x = x.strided({2, 0, 1});
  const Host w = Host::random(c.t, {c.C, 1, c.K}, rng);
  const Host b = Host::random(c.t, {c.C}, rng);
  const Host past = Host::random(c.t, {c.B, c.C, c.K - 1}, rng);
  NodeGraph ng("CausalConvWithState", 27);
  ng.in(x).in(w);
  c.bias ? ng.in(b) : ng.omitted();
  c.past ? ng.in(past) : ng.omitted();
  ng.attr_s("activation", c.act);
  ng.out(c.t, {c.B, c.C, c.L}).out(c.t, {c.B, c.C, c.K - 1});
  const std::vector<Host> y = ng.run(gen());
  // padded[b, c, j] for j in [0, L + K - 1)
  auto padded = [&](int64_t bb, int64_t cc, int64_t j) {
    if (j >= c.K - 1) return x.at((bb * c.C + cc) * c.L + j - (c.K - 1));
    return c.past ? past.at((bb * c.C + cc) * (c.K - 1) + j) : 0.0;
  };
  expect_values(
      y[0], {c.B, c.C, c.L},
      [&](int64_t i) {
        const int64_t t = i % c.L, cc = (i / c.L) % c.C, bb = i / (c.L * c.C);
        double acc = c.bias ? b.at(cc) : 0;
        for (int64_t j = 0; j < c.K; ++j) acc += w.at(cc * c.K + j) * padded(bb, cc, t + j);
        return c.act == "none" ? acc : acc / (1 + std::exp(-acc));
      },
      tol);
  expect_values(
      y[1], {c.B, c.C, c.K - 1},
      [&](int64_t i) {
        const int64_t j = i % (c.K - 1), cc = (i / (c.K - 1)) % c.C, bb = i / ((c.K - 1) * c.C);
        return padded(bb, cc, c.L + j);
      },
      tol);
}

TEST(CpuGenericCausalConvWithState, MatchesTheConvolutionOverThePaddedSequence) {
  check({});
  Case no_past;
  no_past.past = false, no_past.bias = false;
  check(no_past);
  for (const char* act : {"silu", "swish"}) {
    Case c;
    c.act = act;
    check(c);
  }
  Case k1;
  k1.K = 1;
  check(k1);
  Case short_input;  // the state holds past values and the input
  short_input.L = 1, short_input.K = 4;
  check(short_input);
  short_input.past = false;
  check(short_input);
  Case strided;
  strided.strided = true;
  check(strided);
}

TEST(CpuGenericCausalConvWithState, NarrowTypes) {
  Case half;
  half.t = DType::kFloat16, half.act = "silu";
  check(half, 5e-3);
  Case bf;
  bf.t = DType::kBFloat16;
  check(bf, 3e-2);
}

TEST(CpuGenericCausalConvWithState, BadInputsAreClearErrors) {
  const Host x = Host::of(DType::kFloat, {1, 2, 4}, {});
  {
    NodeGraph ng("CausalConvWithState", 27);  // weight's channels differ
    ng.in(x).in(Host::of(DType::kFloat, {3, 1, 2}, {})).out(DType::kFloat).out(DType::kFloat);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"CausalConvWithState", "weight"});
  }
  {
    NodeGraph ng("CausalConvWithState", 27);  // empty kernel
    ng.in(x).in(Host::of(DType::kFloat, {2, 1, 0}, {})).out(DType::kFloat).out(DType::kFloat);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"weight", "k >= 1"});
  }
  {
    NodeGraph ng("CausalConvWithState", 27);  // past_state of the wrong length
    ng.in(x).in(Host::of(DType::kFloat, {2, 1, 3}, {})).omitted();
    ng.in(Host::of(DType::kFloat, {1, 2, 1}, {})).out(DType::kFloat).out(DType::kFloat);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"past_state", "k - 1"});
  }
  {
    NodeGraph ng("CausalConvWithState", 27);  // bias of the wrong length
    ng.in(x).in(Host::of(DType::kFloat, {2, 1, 3}, {})).in(Host::of(DType::kFloat, {3}, {}));
    ng.out(DType::kFloat).out(DType::kFloat);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"bias"});
  }
  {
    // A long kernel over a short input: the state's size is checked before it is allocated.
    NodeGraph ng("CausalConvWithState", 27);
    ng.in(Host::of(DType::kFloat, {int64_t{1} << 40, 1, 0}, {}));
    ng.in(Host::of(DType::kFloat, {1, 1, int64_t{1} << 20}, {}));
    ng.out(DType::kFloat).out(DType::kFloat);
    expect_error(ng, gen(), ErrorCode::kResourceExhausted, {"present_state"});
    // Nothing to compute: empty outputs, however many rows.
    NodeGraph empty("CausalConvWithState", 27);
    empty.in(Host::of(DType::kFloat, {int64_t{1} << 40, 1, 0}, {}));
    empty.in(Host::of(DType::kFloat, {1, 1, 1}, {})).out(DType::kFloat).out(DType::kFloat);
    EXPECT_EQ(empty.run(gen())[0].shape(), (Dims{int64_t{1} << 40, 1, 0}));
  }
  NodeGraph act("CausalConvWithState", 27);
  act.in(x).in(Host::of(DType::kFloat, {2, 1, 3}, {})).attr_s("activation", "relu");
  act.out(DType::kFloat).out(DType::kFloat);
  ASSERT_TRUE(act.supports(gen()));
  EXPECT_NE(act.supports(gen())->find("relu"), std::string::npos);
}

}  // namespace
}  // namespace geon::cpu::testing
