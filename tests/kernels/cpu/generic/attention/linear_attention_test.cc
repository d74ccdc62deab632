// cpu.generic LinearAttention against a naive per-token loop written from the spec's formulas:
// every update rule, GQA / MQA, per-head and per-key decay, per-head and shared beta, a past
// state, float16 / bfloat16 inputs with a float state, strided inputs, and the bad inputs
// (shapes that do not fit, rules without their inputs) as clear errors.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

struct Case {
  int64_t B = 2, T = 3, Hq = 2, Hkv = 2, Dk = 3, Dv = 4;
  std::string rule = "gated_delta";
  int64_t decay_w = 0, beta_w = 0;  // 0: kv heads
  bool past = true, strided = false;
  float scale = 0;
  DType t = DType::kFloat, s = DType::kFloat;
};

struct Ref {
  std::vector<double> out, state;
};

// The spec's recurrence, element by element, in double.
Ref naive(const Case& c, const Host& q, const Host& k, const Host& v, const Host* past,
          const Host* decay, const Host* beta) {
  const bool gated = c.rule == "gated" || c.rule == "gated_delta";
  const bool delta = c.rule == "delta" || c.rule == "gated_delta";
  const int64_t G = c.Hq / c.Hkv;
  const int64_t dw = decay ? decay->shape()[2] : 0, bw = beta ? beta->shape()[2] : 0;
  const double scale = c.scale != 0 ? c.scale : 1 / std::sqrt(static_cast<double>(c.Dk));
  Ref r;
  r.out.assign(c.B * c.T * c.Hq * c.Dv, 0);
  r.state.assign(c.B * c.Hkv * c.Dk * c.Dv, 0);
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t h = 0; h < c.Hkv; ++h) {
      auto S = [&](int64_t i, int64_t m) -> double& {
        return r.state[((b * c.Hkv + h) * c.Dk + i) * c.Dv + m];
      };
      if (past)
        for (int64_t i = 0; i < c.Dk; ++i)
          for (int64_t m = 0; m < c.Dv; ++m)
            S(i, m) = past->at(((b * c.Hkv + h) * c.Dk + i) * c.Dv + m);
      for (int64_t t = 0; t < c.T; ++t) {
        const int64_t row = b * c.T + t;
        auto kk = [&](int64_t i) { return k.at(row * c.Hkv * c.Dk + h * c.Dk + i); };
        std::vector<double> u(c.Dv);
        for (int64_t m = 0; m < c.Dv; ++m) u[m] = v.at(row * c.Hkv * c.Dv + h * c.Dv + m);
        if (gated)
          for (int64_t i = 0; i < c.Dk; ++i) {
            const double g = decay->at(row * dw + (dw == c.Hkv ? h : h * c.Dk + i));
            for (int64_t m = 0; m < c.Dv; ++m) S(i, m) *= std::exp(g);
          }
        if (delta) {
          const double bt = beta->at(row * bw + (bw == 1 ? 0 : h));
          for (int64_t m = 0; m < c.Dv; ++m) {
            double ret = 0;
            for (int64_t i = 0; i < c.Dk; ++i) ret += S(i, m) * kk(i);
            u[m] = bt * (u[m] - ret);
          }
        }
        for (int64_t i = 0; i < c.Dk; ++i)
          for (int64_t m = 0; m < c.Dv; ++m) S(i, m) += kk(i) * u[m];
        for (int64_t hq = h * G; hq < (h + 1) * G; ++hq)
          for (int64_t m = 0; m < c.Dv; ++m) {
            double acc = 0;
            for (int64_t i = 0; i < c.Dk; ++i)
              acc += q.at(row * c.Hq * c.Dk + hq * c.Dk + i) * S(i, m);
            r.out[row * c.Hq * c.Dv + hq * c.Dv + m] = scale * acc;
          }
      }
    }
  return r;
}

void check(const Case& c, double tol = 1e-4) {
  std::mt19937 rng(static_cast<unsigned>(c.B * 7 + c.Hq * 3 + c.rule.size()));
  auto make = [&](DType t, const Dims& shape, double lo, double hi) {
    Host h = Host::random(t, shape, rng, lo, hi);
    if (c.strided && shape.size() == 3) h = h.strided({1, 0, 2});
    return h;
  };
  const bool gated = c.rule == "gated" || c.rule == "gated_delta";
  const bool delta = c.rule == "delta" || c.rule == "gated_delta";
  const Host q = make(c.t, {c.B, c.T, c.Hq * c.Dk}, -1, 1);
  const Host k = make(c.t, {c.B, c.T, c.Hkv * c.Dk}, -0.5, 0.5);
  const Host v = make(c.t, {c.B, c.T, c.Hkv * c.Dv}, -1, 1);
  const Host past = make(c.s, {c.B, c.Hkv, c.Dk, c.Dv}, -1, 1);
  const int64_t dw = c.decay_w ? c.decay_w : c.Hkv, bw = c.beta_w ? c.beta_w : c.Hkv;
  const Host decay = make(c.t, {c.B, c.T, dw}, -0.5, 0);
  const Host beta = make(c.t, {c.B, c.T, bw}, 0, 1);
  NodeGraph ng("LinearAttention", 27);
  ng.in(q).in(k).in(v);
  c.past ? ng.in(past) : ng.omitted();
  gated ? ng.in(decay) : ng.omitted();
  delta ? ng.in(beta) : ng.omitted();
  ng.attr_i("q_num_heads", c.Hq).attr_i("kv_num_heads", c.Hkv).attr_s("update_rule", c.rule);
  if (c.scale != 0) ng.attr_f("scale", c.scale);
  ng.out(c.t, {c.B, c.T, c.Hq * c.Dv}).out(c.past ? c.s : c.t, {c.B, c.Hkv, c.Dk, c.Dv});
  const std::vector<Host> y = ng.run(gen());
  const Ref want = naive(c, q, k, v, c.past ? &past : nullptr, gated ? &decay : nullptr,
                         delta ? &beta : nullptr);
  expect_values(
      y[0], {c.B, c.T, c.Hq * c.Dv}, [&](int64_t i) { return want.out[i]; }, tol);
  expect_values(
      y[1], {c.B, c.Hkv, c.Dk, c.Dv}, [&](int64_t i) { return want.state[i]; }, tol);
}

TEST(CpuGenericLinearAttention, EveryRuleMatchesTheRecurrence) {
  for (const char* rule : {"linear", "gated", "delta", "gated_delta"}) {
    SCOPED_TRACE(rule);
    Case c;
    c.rule = rule;
    check(c);
    c.past = false;
    check(c);
  }
}

TEST(CpuGenericLinearAttention, GroupedHeadsDecayAndBetaForms) {
  Case gqa;
  gqa.Hq = 4, gqa.Hkv = 2;
  check(gqa);
  Case mqa;
  mqa.Hq = 3, mqa.Hkv = 1, mqa.beta_w = 1;
  check(mqa);
  Case per_key;
  per_key.decay_w = per_key.Hkv * per_key.Dk;
  per_key.scale = 0.3f;
  check(per_key);
  Case one_token;
  one_token.T = 1, one_token.B = 1;
  check(one_token);
}

TEST(CpuGenericLinearAttention, NarrowTypesAndStridedInputs) {
  Case half;
  half.t = DType::kFloat16;
  half.s = DType::kFloat;  // a float state with float16 activations
  check(half, 2e-2);
  Case bf;
  bf.t = DType::kBFloat16, bf.s = DType::kBFloat16;
  check(bf, 6e-2);
  Case strided;
  strided.strided = true;
  strided.rule = "gated";
  check(strided);
}

TEST(CpuGenericLinearAttention, BadInputsAreClearErrors) {
  const Host q = Host::of(DType::kFloat, {1, 2, 6}, {});
  const Host k = Host::of(DType::kFloat, {1, 2, 6}, {});
  const Host v = Host::of(DType::kFloat, {1, 2, 4}, {});
  {
    NodeGraph ng("LinearAttention", 27);  // past_state of the wrong shape
    ng.in(q).in(k).in(v).in(Host::of(DType::kFloat, {1, 2, 3, 3}, {}));
    ng.attr_i("q_num_heads", 2).attr_i("kv_num_heads", 2).attr_s("update_rule", "linear");
    ng.out(DType::kFloat).out(DType::kFloat);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"LinearAttention", "past_state"});
  }
  {
    NodeGraph ng("LinearAttention", 27);  // value not divisible into kv heads
    ng.in(q).in(k).in(Host::of(DType::kFloat, {1, 2, 5}, {}));
    ng.attr_i("q_num_heads", 2).attr_i("kv_num_heads", 2).attr_s("update_rule", "linear");
    ng.out(DType::kFloat).out(DType::kFloat);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"value", "kv_num_heads"});
  }
  {
    NodeGraph ng("LinearAttention", 27);  // decay of neither accepted width
    ng.in(q).in(k).in(v).omitted().in(Host::of(DType::kFloat, {1, 2, 5}, {}));
    ng.attr_i("q_num_heads", 2).attr_i("kv_num_heads", 2).attr_s("update_rule", "gated");
    ng.out(DType::kFloat).out(DType::kFloat);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"decay", "kv_num_heads"});
  }
  {
    NodeGraph ng("LinearAttention", 27);  // key's sequence length differs
    ng.in(q).in(Host::of(DType::kFloat, {1, 3, 6}, {})).in(v);
    ng.attr_i("q_num_heads", 2).attr_i("kv_num_heads", 2).attr_s("update_rule", "linear");
    ng.out(DType::kFloat).out(DType::kFloat);
    expect_error(ng, gen(), ErrorCode::kInvalidArgument, {"key", "sequence length"});
  }
  {
    // Empty hidden sizes with a huge head count: empty outputs, no walk over the heads.
    const int64_t huge = int64_t{1} << 40;
    NodeGraph ng("LinearAttention", 27);
    for (int i = 0; i < 3; ++i) ng.in(Host::of(DType::kFloat, {1, 2, 0}, {}));
    ng.attr_i("q_num_heads", huge).attr_i("kv_num_heads", huge).attr_s("update_rule", "linear");
    ng.out(DType::kFloat).out(DType::kFloat);
    const std::vector<Host> y = ng.run(gen());
    EXPECT_EQ(y[0].shape(), (Dims{1, 2, 0}));
    EXPECT_EQ(y[1].shape(), (Dims{1, huge, 0, 0}));
  }
  NodeGraph no_beta("LinearAttention", 27);
  no_beta.in(q).in(k).in(v).attr_i("q_num_heads", 2).attr_i("kv_num_heads", 2);
  no_beta.attr_s("update_rule", "delta").out(DType::kFloat).out(DType::kFloat);
  ASSERT_TRUE(no_beta.supports(gen()));
  EXPECT_NE(no_beta.supports(gen())->find("beta"), std::string::npos);
  NodeGraph heads("LinearAttention", 27);
  heads.in(q).in(k).in(v).attr_i("q_num_heads", 3).attr_i("kv_num_heads", 2);
  heads.attr_s("update_rule", "linear").out(DType::kFloat).out(DType::kFloat);
  ASSERT_TRUE(heads.supports(gen()));
  NodeGraph ints("LinearAttention", 27);
  ints.in(Host::of(DType::kInt32, {1, 2, 6}, {})).in(k).in(v).attr_i("q_num_heads", 2);
  ints.attr_i("kv_num_heads", 2).attr_s("update_rule", "linear");
  ints.out(DType::kInt32).out(DType::kInt32);
  ASSERT_TRUE(ints.supports(gen()));
}

}  // namespace
}  // namespace geon::cpu::testing
