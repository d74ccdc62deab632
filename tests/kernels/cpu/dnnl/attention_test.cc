// cpu.dnnl Attention against a naive loop written from the ONNX spec and against cpu.generic's
// kernel: odd sizes, masks (float and bool) of every broadcast rank, causal, GQA/MQA, 3-D
// inputs, strided Q/K/V, fully masked rows, run-time fallback and the cases it refuses.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <thread>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Case {
  int64_t B = 2, Hq = 2, Hkv = 2, Sq = 5, S = 7, D = 9, Dv = 11;
  bool three_d = false, causal = false, strided = false;
  Dims mask;  // empty: none
  bool bool_mask = false;
  bool dead_row = false;  // the bool mask drops every key of its first row
  float scale = 0;
};

// (b, h, s, d) of a 4-D tensor, or of a 3-D (b, s, h·d) one.
double at4(const Host& t, bool three_d, int64_t H, int64_t b, int64_t h, int64_t s, int64_t d) {
  const Dims& sh = t.desc.shape;
  if (!three_d) return t.at(((b * sh[1] + h) * sh[2] + s) * sh[3] + d);
  const int64_t dd = sh[2] / H;
  return t.at((b * sh[1] + s) * sh[2] + h * dd + d);
}

// Y as the spec computes it, in Y's own layout.
std::vector<double> naive(const Case& c, const Host& q, const Host& k, const Host& v,
                          const Host* mask) {
  const double scale = c.scale != 0 ? c.scale : 1 / std::sqrt(static_cast<double>(c.D));
  std::vector<double> y4(static_cast<size_t>(c.B * c.Hq * c.Sq * c.Dv));
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t h = 0; h < c.Hq; ++h)
      for (int64_t i = 0; i < c.Sq; ++i) {
        const int64_t kvh = h / (c.Hq / c.Hkv);
        std::vector<double> s(static_cast<size_t>(c.S));
        for (int64_t j = 0; j < c.S; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < c.D; ++d)
            dot += at4(q, c.three_d, c.Hq, b, h, i, d) * at4(k, c.three_d, c.Hkv, b, kvh, j, d);
          double x = dot * scale;
          if (mask) {
            const Dims full{c.B, c.Hq, c.Sq, c.S};
            const double m = bcast_at(*mask, full, ((b * c.Hq + h) * c.Sq + i) * c.S + j);
            x += c.bool_mask ? (m != 0 ? 0 : -kInf) : m;
          }
          if (c.causal && j > i) x = -kInf;
          s[j] = x;
        }
        double mx = -kInf, sum = 0;
        for (double x : s) mx = std::max(mx, x);
        for (double& x : s) sum += (x = std::exp(x - mx));
        for (int64_t d = 0; d < c.Dv; ++d) {
          double acc = 0;
          for (int64_t j = 0; j < c.S; ++j)
            acc += s[j] / sum * at4(v, c.three_d, c.Hkv, b, kvh, j, d);
          y4[((b * c.Hq + h) * c.Sq + i) * c.Dv + d] = mx == -kInf ? NAN : acc;
        }
      }
  if (!c.three_d) return y4;
  std::vector<double> y;  // (B, Sq, Hq·Dv)
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t i = 0; i < c.Sq; ++i)
      for (int64_t h = 0; h < c.Hq; ++h)
        for (int64_t d = 0; d < c.Dv; ++d) y.push_back(y4[((b * c.Hq + h) * c.Sq + i) * c.Dv + d]);
  return y;
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
    v = v.strided(c.three_d ? std::vector<int64_t>{1, 0, 2} : std::vector<int64_t>{0, 2, 1, 3});
  }
  Host mask;
  if (!c.mask.empty()) {
    if (c.bool_mask) {
      std::vector<double> keep(static_cast<size_t>(element_count(c.mask)));
      for (double& x : keep) x = rng() % 3 != 0;
      if (c.dead_row)
        for (int64_t j = 0; j < c.mask.back(); ++j) keep[static_cast<size_t>(j)] = 0;
      mask = Host::of(DType::kBool, c.mask, keep);
    } else {
      mask = Host::random(f, c.mask, rng, -1, 1);
    }
  }
  NodeGraph ng("Attention", 23);
  ng.in(q).in(k).in(v);
  if (!c.mask.empty()) ng.in(mask);
  const Dims ys = c.three_d ? Dims{c.B, c.Sq, c.Hq * c.Dv} : Dims{c.B, c.Hq, c.Sq, c.Dv};
  ng.out(f, ys);
  if (c.three_d) ng.attr_i("q_num_heads", c.Hq).attr_i("kv_num_heads", c.Hkv);
  if (c.causal) ng.attr_i("is_causal", 1);
  if (c.scale != 0) ng.attr_f("scale", c.scale);
  ASSERT_EQ(ng.supports(dnnl_kernels()), std::nullopt);
  const Host got = ng.run(dnnl_kernels())[0];
  const Host generic = ng.run(generic_kernels())[0];
  const std::vector<double> want = naive(c, q, k, v, c.mask.empty() ? nullptr : &mask);
  expect_values(
      got, ys, [&](int64_t i) { return want[static_cast<size_t>(i)]; }, 1e-4);
  expect_values(
      got, ys, [&](int64_t i) { return generic.at(i); }, 1e-4);
}

// oneDNN fixes a primitive's thread count when it is made, from OpenMP's count on the making
// thread: Attention's batched products, first made on a thread that had never run oneDNN
// (OpenMP's default: every core), opened an OpenMP team that large at each run beside the
// session's pool (a 1-thread session's Attention ran on two cores). Counted in /proc/self/task:
// the run starts no thread.
TEST(CpuDnnlAttention, OnAFreshThreadItStartsNoOpenMpTeam) {
  if (!std::filesystem::exists("/proc/self/task"))
    GTEST_SKIP() << "counts the process's threads in /proc/self/task (Linux only)";
  const auto threads = [] {
    const std::filesystem::directory_iterator tasks("/proc/self/task");
    return std::distance(begin(tasks), end(tasks));
  };
  std::mt19937 rng(40);
  const DType f = DType::kFloat;
  const Host q = Host::random(f, {1, 64, 128}, rng), k = Host::random(f, {1, 64, 128}, rng);
  const Host v = Host::random(f, {1, 64, 128}, rng);
  NodeGraph ng("Attention", 23);
  ng.in(q).in(k).in(v).out(f, {1, 64, 128});
  ng.attr_i("q_num_heads", 4).attr_i("kv_num_heads", 4);
  const Host generic = ng.run(generic_kernels())[0];
  std::ptrdiff_t before = 0, after = 0;
  Host got;
  std::thread fresh([&] {
    omp_set_num_threads(4);  // OpenMP's default on a 4-core machine
    ThreadPool single(1);
    ScopedPool scope(&single);
    before = threads();
    got = ng.run(dnnl_kernels())[0];
    after = threads();
  });
  fresh.join();
  EXPECT_EQ(after, before) << "oneDNN started threads of its own";
  expect_values(
      got, Dims{1, 64, 128}, [&](int64_t i) { return generic.at(i); }, 1e-4);
}

TEST(CpuDnnlAttention, OddSizesMatchTheSpecAndTheGenericKernel) {
  check(Case{}, 1);
  Case c;
  c.B = 1, c.Hq = 3, c.Hkv = 3, c.Sq = 1, c.S = 13, c.D = 3, c.Dv = 1, c.scale = 0.7f;
  check(c, 2);
}

TEST(CpuDnnlAttention, FloatMasksBroadcastFromEveryRank) {
  int seed = 10;
  for (const Dims& m : {Dims{7}, Dims{5, 7}, Dims{2, 1, 1, 7}, Dims{1, 2, 5, 7}, Dims{2, 2, 5, 7},
                        Dims{2, 1, 5, 1}}) {
    Case c;
    c.mask = m;
    if (m.back() == 1) c.S = 1;
    SCOPED_TRACE(seed);
    check(c, seed++);
  }
}

TEST(CpuDnnlAttention, BoolMasksKeepOrDropKeys) {
  Case c;
  c.bool_mask = true;
  c.mask = {2, 2, 5, 7};
  check(c, 20);
  c.mask = {5, 7};
  check(c, 21);
}

TEST(CpuDnnlAttention, CausalMasksKeysAfterTheQueryRow) {
  Case c;
  c.causal = true;
  check(c, 30);
  c.Sq = 9, c.S = 4;  // more queries than keys
  check(c, 31);
  c.Sq = 5, c.S = 7, c.mask = {1, 1, 5, 7};
  check(c, 32);
}

TEST(CpuDnnlAttention, GroupedAndMultiQueryHeadsShareKeyValueHeads) {
  Case gqa;
  gqa.Hq = 6, gqa.Hkv = 2, gqa.mask = {1, 6, 5, 7};
  check(gqa, 40);
  Case mqa;
  mqa.Hq = 4, mqa.Hkv = 1, mqa.causal = true;
  check(mqa, 41);
}

TEST(CpuDnnlAttention, ThreeDimensionalInputsSplitAndJoinHeads) {
  Case c;
  c.three_d = true, c.Hq = 6, c.Hkv = 3, c.mask = {5, 7};
  check(c, 50);
}

TEST(CpuDnnlAttention, StridedInputsAreReadThroughTheirViews) {
  Case c;
  c.strided = true, c.Hq = 4, c.mask = {2, 1, 5, 7};
  check(c, 60);
  c.three_d = true, c.mask = {};
  check(c, 61);
}

TEST(CpuDnnlAttention, FullyMaskedRowIsNaNAsInTheOnnxReference) {
  Case c;
  c.bool_mask = true, c.dead_row = true, c.mask = {2, 2, 5, 7};
  check(c, 70);
}

TEST(CpuDnnlAttention, BertSizedRunMatches) {
  Case c;
  c.B = 2, c.Hq = 4, c.Hkv = 4, c.Sq = 128, c.S = 128, c.D = 64, c.Dv = 64, c.mask = {2, 1, 1, 128};
  check(c, 80);
}

TEST(CpuDnnlAttention, LargeRunsSplitKvHeadsOrQueryRowsAcrossThreads) {
  Case heads;  // three kv heads over the threads, a group of two query heads each
  heads.Hq = 6, heads.Hkv = 3, heads.Sq = 63, heads.S = 65, heads.D = 64, heads.Dv = 33;
  heads.mask = {2, 6, 63, 65}, heads.bool_mask = true, heads.dead_row = true, heads.causal = true;
  check(heads, 85);
  Case rows;  // one kv head: the query rows are split instead
  rows.B = 1, rows.Hq = 4, rows.Hkv = 1, rows.Sq = 97, rows.S = 96, rows.D = 48, rows.Dv = 40;
  rows.mask = {97, 96}, rows.causal = true, rows.strided = true;
  check(rows, 86);
}

TEST(CpuDnnlAttention, LongSequencesAreMadeAFewBatchesOrQueryRowsAtATime) {
  Case rows;  // a block's scores exceed the thread's buffer: query rows in chunks
  rows.B = 1, rows.Hq = 1, rows.Hkv = 1, rows.Sq = 4100, rows.S = 4096, rows.D = 4, rows.Dv = 3;
  rows.mask = {4096}, rows.causal = true;
  check(rows, 87);
  Case batches;  // two of the three batches fit at once
  batches.B = 3, batches.Sq = 1024, batches.S = 1536, batches.D = 4, batches.Dv = 5;
  batches.mask = {3, 1, 1, 1536};
  check(batches, 88);
}

TEST(CpuDnnlAttention, ShortMaskLastDimFallsBackToTheGenericKernel) {
  // A mask shorter than the keys is padded with -inf; this path hands it to cpu.generic.
  std::mt19937 rng(90);
  const DType f = DType::kFloat;
  const Host q = Host::random(f, {1, 2, 3, 4}, rng), k = Host::random(f, {1, 2, 5, 4}, rng),
             v = Host::random(f, {1, 2, 5, 4}, rng), m = Host::random(f, {3, 2}, rng);
  NodeGraph ng("Attention", 23);
  ng.in(q).in(k).in(v).in(m).out(f, {1, 2, 3, 4});
  ASSERT_EQ(ng.supports(dnnl_kernels()), std::nullopt);
  const Host got = ng.run(dnnl_kernels())[0], want = ng.run(generic_kernels())[0];
  expect_values(
      got, {1, 2, 3, 4}, [&](int64_t i) { return want.at(i); }, 1e-5);
}

TEST(CpuDnnlAttention, RefusesPastSoftcapAndQkOutputWithAReason) {
  const DType f = DType::kFloat;
  const Host x = Host::dense(f, {1, 1, 2, 2});
  {
    NodeGraph ng("Attention", 23);
    ng.in(x).in(x).in(x).omitted().in(x).in(x).out(f, {1, 1, 2, 2});
    ng.out(f, {1, 1, 4, 2}).out(f, {1, 1, 4, 2});
    ASSERT_TRUE(ng.supports(dnnl_kernels()).has_value());
    EXPECT_NE(ng.supports(dnnl_kernels())->find("past"), std::string::npos);
  }
  {
    NodeGraph ng("Attention", 23);
    ng.in(x).in(x).in(x).out(f, {1, 1, 2, 2}).attr_f("softcap", 2.0f);
    ASSERT_TRUE(ng.supports(dnnl_kernels()).has_value());
    EXPECT_NE(ng.supports(dnnl_kernels())->find("softcap"), std::string::npos);
  }
  {
    NodeGraph ng("Attention", 23);
    ng.in(Host::dense(DType::kDouble, {1, 1, 2, 2}))
        .in(Host::dense(DType::kDouble, {1, 1, 2, 2}))
        .in(Host::dense(DType::kDouble, {1, 1, 2, 2}))
        .out(DType::kDouble, {1, 1, 2, 2});
    ASSERT_TRUE(ng.supports(dnnl_kernels()).has_value());
    EXPECT_NE(ng.supports(dnnl_kernels())->find("double"), std::string::npos);
  }
}

}  // namespace
}  // namespace geon::cpu::testing
