// cpu.generic Attention against a naive loop written from the ONNX spec: 4-D and 3-D inputs,
// GQA/MQA head sharing, past/present key and value, causal masks with a past, bool and float
// masks broadcast from lower ranks with a short last dim, softcap, every qk_matmul_output_mode,
// nonpad_kv_seqlen, strided inputs, and fully masked rows.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Case {
  int64_t B = 2, Hq = 2, Hkv = 2, Sq = 3, S = 4, D = 5, Dv = 5, P = 0;
  bool three_d = false, causal = false, strided = false;
  Dims mask;  // empty: none
  bool bool_mask = false;
  float scale = 0, softcap = 0;
  int mode = -1;  // -1: no qk output
  std::vector<int64_t> nonpad;
};

struct Outputs {
  std::vector<double> y, present_k, present_v, qk;
};

// (b, h, s, d) of a 4-D tensor, or of a 3-D (b, s, h·d) one.
double at4(const Host& t, bool three_d, int64_t H, int64_t b, int64_t h, int64_t s, int64_t d) {
  const Dims& sh = t.desc.shape;
  if (!three_d) return t.at(((b * sh[1] + h) * sh[2] + s) * sh[3] + d);
  const int64_t dd = sh[2] / H;
  return t.at((b * sh[1] + s) * sh[2] + h * dd + d);
}

Outputs naive(const Case& c, const Host& q, const Host& k, const Host& v, const Host* mask,
              const Host* pk, const Host* pv) {
  const int64_t T = c.P + c.S;
  auto kall = [&](int64_t b, int64_t h, int64_t j, int64_t d) {
    return j < c.P ? pk->at(((b * c.Hkv + h) * c.P + j) * c.D + d)
                   : at4(k, c.three_d, c.Hkv, b, h, j - c.P, d);
  };
  auto vall = [&](int64_t b, int64_t h, int64_t j, int64_t d) {
    return j < c.P ? pv->at(((b * c.Hkv + h) * c.P + j) * c.Dv + d)
                   : at4(v, c.three_d, c.Hkv, b, h, j - c.P, d);
  };
  Outputs o;
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t h = 0; h < c.Hkv; ++h)
      for (int64_t j = 0; j < T; ++j) {
        for (int64_t d = 0; d < c.D; ++d) o.present_k.push_back(kall(b, h, j, d));
        for (int64_t d = 0; d < c.Dv; ++d) o.present_v.push_back(vall(b, h, j, d));
      }
  const double scale = c.scale != 0 ? c.scale : 1 / std::sqrt(static_cast<double>(c.D));
  std::vector<double> y4(c.B * c.Hq * c.Sq * c.Dv);
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t h = 0; h < c.Hq; ++h)
      for (int64_t i = 0; i < c.Sq; ++i) {
        const int64_t kvh = h / (c.Hq / c.Hkv);
        std::vector<double> s(T);
        for (int64_t j = 0; j < T; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < c.D; ++d)
            dot += at4(q, c.three_d, c.Hq, b, h, i, d) * kall(b, kvh, j, d);
          double x = dot * scale;
          if (c.mode == 0) o.qk.push_back(x);
          if (c.softcap > 0) x = c.softcap * std::tanh(x / c.softcap);
          if (c.mode == 1) o.qk.push_back(x);
          if (mask) {
            const int64_t last = c.mask.back();
            if (j >= last) {
              x = -kInf;
            } else {
              const Dims full{c.B, c.Hq, c.Sq, last};
              const double m = bcast_at(*mask, full, ((b * c.Hq + h) * c.Sq + i) * last + j);
              x += c.bool_mask ? (m != 0 ? 0 : -kInf) : m;
            }
          }
          if (c.causal && j > c.P + i) x = -kInf;
          if (!c.nonpad.empty() && j >= c.nonpad[b]) x = -kInf;
          if (c.mode == 2) o.qk.push_back(x);
          s[j] = x;
        }
        double mx = -kInf, sum = 0;
        for (double x : s) mx = std::max(mx, x);
        for (double& x : s) sum += (x = std::exp(x - mx));
        for (int64_t j = 0; j < T; ++j) {
          s[j] /= sum;
          if (c.mode == 3) o.qk.push_back(s[j]);
        }
        for (int64_t d = 0; d < c.Dv; ++d) {
          double acc = 0;
          for (int64_t j = 0; j < T; ++j)
            if (s[j] != 0) acc += s[j] * vall(b, kvh, j, d);
          y4[((b * c.Hq + h) * c.Sq + i) * c.Dv + d] = mx == -kInf ? NAN : acc;
        }
      }
  if (!c.three_d) {
    o.y = y4;
  } else {  // (B, Sq, Hq·Dv)
    for (int64_t b = 0; b < c.B; ++b)
      for (int64_t i = 0; i < c.Sq; ++i)
        for (int64_t h = 0; h < c.Hq; ++h)
          for (int64_t d = 0; d < c.Dv; ++d)
            o.y.push_back(y4[((b * c.Hq + h) * c.Sq + i) * c.Dv + d]);
  }
  return o;
}

void check(const Case& c, unsigned seed) {
  std::mt19937 rng(seed);
  const DType f = DType::kFloat;
  const Dims qs = c.three_d ? Dims{c.B, c.Sq, c.Hq * c.D} : Dims{c.B, c.Hq, c.Sq, c.D};
  const Dims ks = c.three_d ? Dims{c.B, c.S, c.Hkv * c.D} : Dims{c.B, c.Hkv, c.S, c.D};
  const Dims vs = c.three_d ? Dims{c.B, c.S, c.Hkv * c.Dv} : Dims{c.B, c.Hkv, c.S, c.Dv};
  Host q = Host::random(f, qs, rng), k = Host::random(f, ks, rng), v = Host::random(f, vs, rng);
  if (c.strided) {
    q = q.strided(c.three_d ? std::vector<int64_t>{2, 0, 1} : std::vector<int64_t>{3, 1, 0, 2});
    k = k.strided(c.three_d ? std::vector<int64_t>{1, 2, 0} : std::vector<int64_t>{2, 3, 0, 1});
  }
  Host mask, pk, pv;
  if (!c.mask.empty()) {
    if (c.bool_mask) {
      std::vector<double> keep(static_cast<size_t>(element_count(c.mask)));
      for (double& x : keep) x = rng() % 3 != 0;
      mask = Host::of(DType::kBool, c.mask, keep);
    } else {
      mask = Host::random(f, c.mask, rng, -1, 1);
    }
  }
  if (c.P > 0) {
    pk = Host::random(f, {c.B, c.Hkv, c.P, c.D}, rng);
    pv = Host::random(f, {c.B, c.Hkv, c.P, c.Dv}, rng);
  }
  NodeGraph ng("Attention", c.nonpad.empty() ? 23 : 24);
  ng.in(q).in(k).in(v);
  if (!c.mask.empty())
    ng.in(mask);
  else
    ng.omitted();
  if (c.P > 0)
    ng.in(pk).in(pv);
  else
    ng.omitted().omitted();
  if (!c.nonpad.empty()) ng.in(ints(c.nonpad));
  const int64_t T = c.P + c.S;
  const Dims ys = c.three_d ? Dims{c.B, c.Sq, c.Hq * c.Dv} : Dims{c.B, c.Hq, c.Sq, c.Dv};
  ng.out(f, ys).out(f, {c.B, c.Hkv, T, c.D}).out(f, {c.B, c.Hkv, T, c.Dv});
  if (c.mode >= 0) ng.out(f, {c.B, c.Hq, c.Sq, T}).attr_i("qk_matmul_output_mode", c.mode);
  if (c.three_d) ng.attr_i("q_num_heads", c.Hq).attr_i("kv_num_heads", c.Hkv);
  if (c.causal) ng.attr_i("is_causal", 1);
  if (c.scale != 0) ng.attr_f("scale", c.scale);
  if (c.softcap != 0) ng.attr_f("softcap", c.softcap);
  ASSERT_EQ(ng.supports(gen()), std::nullopt);
  const std::vector<Host> got = ng.run(gen());
  const Outputs want = naive(c, q, k, v, c.mask.empty() ? nullptr : &mask, c.P > 0 ? &pk : nullptr,
                             c.P > 0 ? &pv : nullptr);
  expect_values(
      got[0], ys, [&](int64_t i) { return want.y[i]; }, 1e-4);
  expect_values(got[1], {c.B, c.Hkv, T, c.D}, [&](int64_t i) { return want.present_k[i]; });
  expect_values(got[2], {c.B, c.Hkv, T, c.Dv}, [&](int64_t i) { return want.present_v[i]; });
  if (c.mode >= 0) {  // masked scores are -inf in mode 2
    ASSERT_EQ(got[3].shape(), (Dims{c.B, c.Hq, c.Sq, T}));
    for (int64_t i = 0; i < element_count(got[3].shape()); ++i) {
      if (std::isinf(want.qk[i]))
        EXPECT_EQ(got[3].at(i), want.qk[i]) << "qk at " << i;
      else
        EXPECT_NEAR(got[3].at(i), want.qk[i], 1e-4 * std::max(1.0, std::abs(want.qk[i])))
            << "qk at " << i;
    }
  }
}

TEST(CpuGenericAttention, FourDimensionalPlain) { check(Case{}, 1); }

TEST(CpuGenericAttention, ThreeDimensionalSplitsAndJoinsHeads) {
  Case c;
  c.three_d = true, c.Hq = 3, c.Hkv = 3, c.D = 4, c.Dv = 6;
  check(c, 2);
}

TEST(CpuGenericAttention, GroupedAndMultiQueryHeadsShareKeyValueHeads) {
  Case gqa;
  gqa.Hq = 6, gqa.Hkv = 2, gqa.three_d = true;
  check(gqa, 3);
  Case mqa;
  mqa.Hq = 4, mqa.Hkv = 1;
  check(mqa, 4);
}

TEST(CpuGenericAttention, PastIsConcatenatedAndCausalMaskIsOffsetByIt) {
  Case c;
  c.P = 3, c.causal = true, c.Dv = 7;
  check(c, 5);
  c.causal = false, c.mask = {c.Sq, c.P + c.S};
  check(c, 6);
}

TEST(CpuGenericAttention, MasksBroadcastFromLowerRanksAndShortLastDimIsNegInf) {
  Case c;
  c.mask = {c.Sq, c.S};
  check(c, 7);
  c.mask = {c.B, 1, c.Sq, c.S - 1};  // padded with -inf
  check(c, 8);
  c.mask = {c.B, c.Hq, c.Sq, c.S};
  c.bool_mask = true;
  check(c, 9);
  c.mask = {c.S};
  check(c, 10);
}

TEST(CpuGenericAttention, ScaleSoftcapAndEveryQkOutputMode) {
  for (int mode = 0; mode < 4; ++mode) {
    Case c;
    c.scale = 0.3f, c.softcap = 1.5f, c.mode = mode, c.mask = {c.Sq, c.S}, c.causal = true;
    SCOPED_TRACE(mode);
    check(c, 11 + mode);
  }
}

TEST(CpuGenericAttention, NonpadKvSeqlenMasksEachBatchTail) {
  Case c;
  c.nonpad = {2, 4};
  check(c, 20);
}

TEST(CpuGenericAttention, StridedInputsAreReadThroughTheirViews) {
  Case c;
  c.strided = true;
  check(c, 21);
  c.three_d = true;
  check(c, 22);
}

TEST(CpuGenericAttention, ManyRowsSplitAcrossThreads) {
  Case c;
  c.B = 2, c.Hq = 8, c.Hkv = 4, c.Sq = 16, c.S = 24, c.D = 16, c.Dv = 12, c.P = 8;
  c.causal = true, c.mode = 3;
  check(c, 24);
}

TEST(CpuGenericAttention, FullyMaskedRowIsNaNAsInTheOnnxReference) {
  Case c;
  c.nonpad = {0, 4};  // batch 0 has no valid key at all
  check(c, 23);
}

TEST(CpuGenericAttention, RefusesIntegerInputsWithAReason) {
  NodeGraph ng("Attention", 23);
  ng.in(Host::dense(DType::kInt32, {1, 1, 2, 2}))
      .in(Host::dense(DType::kInt32, {1, 1, 2, 2}))
      .in(Host::dense(DType::kInt32, {1, 1, 2, 2}))
      .out(DType::kInt32, {1, 1, 2, 2});
  ASSERT_TRUE(ng.supports(gen()).has_value());
  EXPECT_NE(ng.supports(gen())->find("int32"), std::string::npos);
}

}  // namespace
}  // namespace geon::cpu::testing
