// cpu.dnnl's geon.QConv against an independent reference: the convolution of the dequantized
// values in double (naive loops, conv_reference.h) quantized as QuantizeLinear defines it. The
// kernel's results must equal the reference's exactly, except where the value rounded lies
// within 1e-3 of a tie (half-way between two integers), where the kernel's float arithmetic may
// legitimately round the other way. Weights stay within [-64, 63]: oneDNN's u8·s8 kernels on
// CPUs without VNNI add pairs of products in 16 bits, which these cannot saturate (qconv.cc).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>
#include <set>

#include "core/engine/thread_pool.h"
#include "kernels/cpu/dnnl/ops.h"
#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/dnnl/conv_reference.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

int64_t pick(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}
double uniform(std::mt19937& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

// A quantized convolution: geometry, data and quantization parameters.
struct QCase {
  Dims x, w, out;
  int64_t group = 1;
  Dims strides, dilations, pads;
  std::vector<double> xv, wv, bv;  // X (uint8), W (int8), B (int32 or float; empty: none)
  bool int_bias = true, relu = false;
  int64_t x_zero = 0, y_zero = 0;
  DType y_type = DType::kUInt8;
  double x_scale = 0.02, y_scale = 1, b_scale = 1;
  std::vector<double> w_scale;  // one or one per output channel
  // the residual
  bool residual = false, sum_relu = false;
  std::vector<double> zv;
  DType z_type = DType::kUInt8, c_type = DType::kUInt8;
  int64_t z_zero = 0, c_zero = 0;
  double z_scale = 0.05, c_scale = 1;
};

std::vector<double> random_ints(std::mt19937& rng, int64_t n, int64_t lo, int64_t hi) {
  std::vector<double> v(static_cast<size_t>(n));
  for (double& e : v) e = static_cast<double>(pick(rng, lo, hi));
  return v;
}

// A random layer over `spatial` dims (groups, strides, dilations, asymmetric pads).
QCase random_case(std::mt19937& rng, int spatial, bool residual) {
  QCase c;
  c.group = pick(rng, 0, 3) == 0 ? pick(rng, 2, 3) : 1;
  const int64_t cg = pick(rng, 1, 9), mg = pick(rng, 1, 9), n = pick(rng, 1, 2);
  c.x = {n, cg * c.group};
  c.w = {mg * c.group, cg};
  c.out = {n, mg * c.group};
  c.pads.assign(2 * spatial, 0);
  for (int i = 0; i < spatial; ++i) {
    const int64_t k = pick(rng, 1, 3), d = pick(rng, 1, 2), s = pick(rng, 1, 2);
    const int64_t pb = pick(rng, 0, 2), pe = pick(rng, 0, 2);
    const int64_t eff = (k - 1) * d + 1;
    const int64_t in = pick(rng, std::max<int64_t>(1, eff - pb - pe), eff + 5);
    c.x.push_back(in);
    c.w.push_back(k);
    c.strides.push_back(s);
    c.dilations.push_back(d);
    c.pads[i] = pb;
    c.pads[i + spatial] = pe;
    c.out.push_back((in + pb + pe - eff) / s + 1);
  }
  const int64_t M = c.out[1];
  c.xv = random_ints(rng, element_count(c.x), 0, 255);
  c.wv = random_ints(rng, element_count(c.w), -64, 63);
  c.x_zero = pick(rng, 0, 1) ? pick(rng, 0, 255) : 0;
  c.x_scale = uniform(rng, 0.005, 0.05);
  const bool per_channel = pick(rng, 0, 1) == 1;
  for (int64_t m = 0; m < (per_channel ? M : 1); ++m)
    c.w_scale.push_back(uniform(rng, 0.002, 0.02));
  switch (pick(rng, 0, 2)) {
    case 0:
      c.int_bias = true;
      c.b_scale = c.x_scale * c.w_scale[0];
      c.bv = random_ints(rng, M, -5000, 5000);
      break;
    case 1:
      c.int_bias = false;
      for (int64_t m = 0; m < M; ++m) c.bv.push_back(uniform(rng, -2, 2));
      break;
    default:
      break;
  }
  c.relu = pick(rng, 0, 1) == 1;
  c.y_type = pick(rng, 0, 1) ? DType::kUInt8 : DType::kInt8;
  c.y_zero = c.y_type == DType::kUInt8 ? pick(rng, 0, 200) : pick(rng, -100, 100);
  c.residual = residual;
  if (residual) {
    c.z_type = pick(rng, 0, 1) ? DType::kUInt8 : DType::kInt8;
    c.zv = c.z_type == DType::kUInt8 ? random_ints(rng, element_count(c.out), 0, 255)
                                     : random_ints(rng, element_count(c.out), -128, 127);
    c.z_zero = c.z_type == DType::kUInt8 ? pick(rng, 0, 255) : pick(rng, -128, 127);
    c.z_scale = uniform(rng, 0.01, 0.1);
    c.c_type = pick(rng, 0, 1) ? DType::kUInt8 : DType::kInt8;
    c.c_zero = c.c_type == DType::kUInt8 ? pick(rng, 0, 255) : pick(rng, -128, 127);
    c.sum_relu = pick(rng, 0, 1) == 1;
  }
  return c;
}

// c = activation(Conv(dequantized x, w) + b) in double, ONNX order.
std::vector<double> dequantized_conv(const QCase& c) {
  std::vector<double> xs(c.xv.size());
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = c.xv[i] - static_cast<double>(c.x_zero);
  const Host x = Host::of(DType::kDouble, c.x, xs), w = Host::of(DType::kDouble, c.w, c.wv);
  const int spatial = static_cast<int>(c.strides.size());
  const ConvRef ref{c.strides, c.dilations, Dims(c.pads.begin(), c.pads.begin() + spatial), c.group,
                    false};
  std::vector<double> acc = conv_reference(x, w, nullptr, c.out, ref);
  const int64_t M = c.out[1], inner = element_count(c.out) / (c.out[0] * M);
  for (size_t i = 0; i < acc.size(); ++i) {
    const int64_t m = (static_cast<int64_t>(i) / inner) % M;
    const double ws = c.w_scale.size() == 1 ? c.w_scale[0] : c.w_scale[m];
    double v = acc[i] * c.x_scale * ws;
    if (!c.bv.empty()) v += c.int_bias ? c.bv[m] * c.b_scale : c.bv[m];
    acc[i] = c.relu ? std::max(v, 0.0) : v;
  }
  return acc;
}

// The integers QuantizeLinear may give v (already divided by the scale): round half to even,
// and both neighbours within 1e-3 of a tie; plus the zero point, saturated to t.
std::set<double> quantized(double v, double zero, DType t) {
  const double lo = t == DType::kUInt8 ? 0 : -128, hi = t == DType::kUInt8 ? 255 : 127;
  std::set<double> out;
  auto add = [&](double r) { out.insert(std::clamp(r + zero, lo, hi)); };
  add(std::nearbyint(v));
  if (std::abs(std::abs(v - std::floor(v)) - 0.5) < 1e-3) {
    add(std::floor(v));
    add(std::floor(v) + 1);
  }
  return out;
}

// The values the kernel may give at each output element.
std::vector<std::set<double>> reference(const QCase& c) {
  const std::vector<double> conv = dequantized_conv(c);
  std::vector<std::set<double>> want(conv.size());
  for (size_t i = 0; i < conv.size(); ++i) {
    if (!c.residual) {
      want[i] = quantized(conv[i] / c.y_scale, static_cast<double>(c.y_zero), c.y_type);
      continue;
    }
    for (double q : quantized(conv[i] / c.c_scale, static_cast<double>(c.c_zero), c.c_type)) {
      double s = (q - c.c_zero) * c.c_scale + (c.zv[i] - c.z_zero) * c.z_scale;
      if (c.sum_relu) s = std::max(s, 0.0);
      for (double y : quantized(s / c.y_scale, static_cast<double>(c.y_zero), c.y_type))
        want[i].insert(y);
    }
  }
  return want;
}

Host scalar(DType t, double v) { return Host::of(t, {}, {v}); }

// The geon.QConv node of the case; X (and Z) given as these views.
void build(NodeGraph& ng, const QCase& c, const Host& x, const Host* z) {
  ng.node->domain = "geon";
  const int64_t M = c.out[1];
  ng.in(x).in(scalar(DType::kFloat, c.x_scale), true).in(scalar(DType::kUInt8, c.x_zero), true);
  ng.in(Host::of(DType::kInt8, c.w, c.wv), true);
  ng.in(Host::of(DType::kFloat, {static_cast<int64_t>(c.w_scale.size())}, c.w_scale), true);
  ng.omitted();
  if (c.bv.empty()) {
    ng.omitted().omitted().omitted();
  } else if (c.int_bias) {
    ng.in(Host::of(DType::kInt32, {M}, c.bv), true).in(scalar(DType::kFloat, c.b_scale), true);
    ng.in(scalar(DType::kInt32, 0), true);
  } else {
    ng.in(Host::of(DType::kFloat, {M}, c.bv), true).omitted().omitted();
  }
  ng.in(scalar(DType::kFloat, c.y_scale), true).in(scalar(c.y_type, c.y_zero), true);
  if (z) {
    ng.in(*z).in(scalar(DType::kFloat, c.z_scale), true).in(scalar(c.z_type, c.z_zero), true);
    ng.in(scalar(DType::kFloat, c.c_scale), true).in(scalar(c.c_type, c.c_zero), true);
  }
  ng.out(c.y_type, c.out).attr_i("group", c.group).attr_ints("pads", c.pads);
  ng.attr_ints("strides", c.strides).attr_ints("dilations", c.dilations);
  ng.attr_s("activation", c.relu ? "Relu" : "");
  ng.attr_s("sum_activation", c.sum_relu ? "Relu" : "");
}

// Output scales that put most values inside the output's range and some past it.
void choose_scales(QCase& c) {
  const std::vector<double> conv = dequantized_conv(c);
  double big = 1e-6;
  for (double v : conv) big = std::max(big, std::abs(v));
  c.y_scale = big / 150;
  c.c_scale = big / 120;
}

int expect_case(const QCase& c, const Host& x, const Host* z) {
  NodeGraph ng("QConv", 1);
  build(ng, c, x, z);
  EXPECT_EQ(ng.supports(dnnl_kernels()), std::nullopt);
  const Host got = ng.run(dnnl_kernels()).at(0);
  const std::vector<std::set<double>> want = reference(c);
  EXPECT_EQ(got.shape(), c.out);
  int ties = 0;
  for (int64_t i = 0; i < element_count(c.out); ++i) {
    const std::set<double>& w = want[static_cast<size_t>(i)];
    EXPECT_TRUE(w.count(got.at(i))) << "at " << i << ": " << got.at(i) << ", want " << *w.begin();
    ties += w.size() > 1;
  }
  return ties;
}

TEST(DnnlQConv, RandomLayersMatchTheQuantizedReference) {
  std::mt19937 rng(31);
  int ties = 0, elements = 0;
  for (int t = 0; t < 60; ++t) {
    SCOPED_TRACE(t);
    QCase c = random_case(rng, t % 10 == 0 ? 1 : t % 10 == 1 ? 3 : 2, false);
    choose_scales(c);
    const Host x = Host::of(DType::kUInt8, c.x, c.xv);
    ties += expect_case(c, x, nullptr);
    elements += static_cast<int>(element_count(c.out));
  }
  EXPECT_LT(ties, elements / 100);  // the tolerance applies to few elements
}

TEST(DnnlQConv, ResidualIsAddedAsQuantizedData) {
  std::mt19937 rng(32);
  for (int t = 0; t < 40; ++t) {
    SCOPED_TRACE(t);
    QCase c = random_case(rng, 2, true);
    choose_scales(c);
    const Host x = Host::of(DType::kUInt8, c.x, c.xv);
    const Host z = Host::of(c.z_type, c.out, c.zv);
    expect_case(c, x, &z);
  }
}

// Some output's window holds padding only (pads as wide as the kernel, dilation stepping over
// a short input).
bool reads_only_padding(const QCase& c) {
  for (size_t i = 0; i + 2 < c.x.size(); ++i)
    for (int64_t o = 0; o < c.out[2 + i]; ++o) {
      bool reads = false;
      for (int64_t j = 0; j < c.w[2 + i]; ++j) {
        const int64_t at = o * c.strides[i] - c.pads[i] + j * c.dilations[i];
        reads = reads || (at >= 0 && at < c.x[2 + i]);
      }
      if (!reads) return true;
    }
  return false;
}

// oneDNN 2.6's brgconv int8 kernels (AVX-512 VNNI) fault on such layers, the residual ones
// most: qconv.cc gives them another implementation.
TEST(DnnlQConv, OutputsReadingOnlyPaddingMatchTheReference) {
  std::mt19937 rng(36);
  for (int t = 0, taken = 0; taken < 60; ++t) {
    QCase c = random_case(rng, 2, t % 3 != 0);
    if (!reads_only_padding(c)) continue;
    SCOPED_TRACE(t);
    ++taken;
    choose_scales(c);
    const Host x = Host::of(DType::kUInt8, c.x, c.xv);
    const Host z = c.residual ? Host::of(c.z_type, c.out, c.zv) : Host{};
    expect_case(c, x, c.residual ? &z : nullptr);
  }
}

TEST(DnnlQConv, ChannelsLastAndStridedViewsGiveTheSameValues) {
  std::mt19937 rng(33);
  for (int t = 0; t < 8; ++t) {
    SCOPED_TRACE(t);
    QCase c = random_case(rng, 2, t % 2 == 1);
    choose_scales(c);
    // X channels-last (read in place) or transposed (copied); Z likewise.
    const std::vector<int64_t> perm =
        t < 4 ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 3, 2, 1};
    const Host x = Host::of(DType::kUInt8, c.x, c.xv).strided(perm);
    const Host z = c.residual ? Host::of(c.z_type, c.out, c.zv).strided(perm) : Host{};
    expect_case(c, x, c.residual ? &z : nullptr);
  }
}

// The executor may give Z's memory to Y (in_place_inputs): the sum post-op reads it there. With
// X and Z channels-last, as select_layouts lays them out, nothing is copied.
TEST(DnnlQConv, ResidualSharingTheOutputMemoryIsAddedOnce) {
  std::mt19937 rng(34);
  QCase c = random_case(rng, 2, true);
  choose_scales(c);
  const Host x = Host::of(DType::kUInt8, c.x, c.xv).strided({0, 2, 3, 1});
  const Host z = Host::of(c.z_type, c.out, c.zv).strided({0, 2, 3, 1});
  c.y_type = c.z_type;  // the executor shares memory of one dtype only
  c.y_zero = c.z_type == DType::kUInt8 ? 7 : -7;
  NodeGraph ng("QConv", 1);
  build(ng, c, x, &z);
  const auto kernel = find_kernel(dnnl_kernels(), *ng.node)->create(ng.g, *ng.node);
  ASSERT_EQ(kernel->in_place_inputs().size(), 1u);
  EXPECT_EQ(kernel->in_place_inputs()[0], 11);
  struct InPlace : FakeContext {
    using FakeContext::FakeContext;
    TensorRef& output(int, const Dims&) override { return const_cast<TensorRef&>(input(11)); }
  } ctx(ng.inputs, {c.y_type});
  const std::vector<std::set<double>> want = reference(c);
  const int64_t copies = dnnl_qconv_copies();
  kernel->compute(ctx);
  EXPECT_EQ(dnnl_qconv_copies(), copies);
  for (int64_t i = 0; i < element_count(c.out); ++i)
    EXPECT_TRUE(want[static_cast<size_t>(i)].count(z.at(i))) << "at " << i;
}

// The layers of a ResNet-50 (the 7x7 stride-2 stem over 3 channels, 1x1 and 3x3 bottleneck
// convolutions, a strided 1x1) get oneDNN's jit int8 implementations, never the reference one.
TEST(DnnlQConv, ResNetLayersGetJitImplementations) {
  std::mt19937 rng(35);
  const int64_t before = dnnl_qconv_reference_primitives();
  struct Layer {
    int64_t c, m, k, s, hw;
  };
  for (const Layer& l : {Layer{3, 64, 7, 2, 32}, Layer{64, 64, 1, 1, 14}, Layer{64, 64, 3, 1, 14},
                         Layer{256, 128, 1, 2, 14}}) {
    QCase c;
    const int64_t p = l.k / 2, o = (l.hw + 2 * p - l.k) / l.s + 1;
    c.x = {1, l.c, l.hw, l.hw};
    c.w = {l.m, l.c, l.k, l.k};
    c.out = {1, l.m, o, o};
    c.strides = {l.s, l.s};
    c.dilations = {1, 1};
    c.pads = {p, p, p, p};
    c.xv = random_ints(rng, element_count(c.x), 0, 255);
    c.wv = random_ints(rng, element_count(c.w), -64, 63);
    c.x_zero = l.c == 3 ? 123 : 0;
    c.w_scale = {0.003};
    c.b_scale = c.x_scale * 0.003;
    c.bv = random_ints(rng, l.m, -300, 300);
    c.relu = true;
    choose_scales(c);
    expect_case(c, Host::of(DType::kUInt8, c.x, c.xv), nullptr);
  }
  EXPECT_EQ(dnnl_qconv_reference_primitives(), before);
}

// One image whose weights outweigh its data (the last stage of a ResNet) runs in blocks of
// output channels, each its own primitive over its share of W, scales and bias, written through
// a buffer of its own into its channels (Z copied in first): the values stay the reference's,
// on two and three threads (80 channels: five blocks of 16 split 2 + 2 + 1; 72: four blocks and
// 8 more channels, which the last part takes), with and without a residual, per-tensor and
// per-channel scales.
TEST(DnnlQConv, OneImageWithWideWeightsSplitsByOutputChannels) {
  std::mt19937 rng(37);
  const int64_t before = dnnl_qconv_reference_primitives();
  const int64_t splits = dnnl_qconv_channel_splits();
  int cases = 0;
  for (const int threads : {2, 3}) {
    ThreadPool pool(threads);
    ScopedPool scope(&pool);
    for (int t = 0; t < 8; ++t) {
      SCOPED_TRACE(std::to_string(threads) + " threads, case " + std::to_string(t));
      QCase c;
      const int64_t k = t % 2 ? 3 : 1, s = t % 4 == 3 ? 2 : 1, p = k / 2;
      const int64_t hw = (k == 1 ? 2 : 4) + t % 3;
      const int64_t m = t % 3 == 0 ? 80 : t % 3 == 1 ? 72 : 64, o = (hw + 2 * p - k) / s + 1;
      const int64_t ch = k == 1 ? 1280 : 96;  // enough multiply-adds for every thread
      c.x = {1, ch, hw, hw};
      c.w = {m, ch, k, k};
      c.out = {1, m, o, o};
      c.strides = {s, s};
      c.dilations = {1, 1};
      c.pads = {p, p, p, p};
      c.xv = random_ints(rng, element_count(c.x), 0, 255);
      c.wv = random_ints(rng, element_count(c.w), -64, 63);
      c.x_zero = t % 2 ? 0 : pick(rng, 1, 255);
      for (int64_t i = 0; i < (t % 4 < 2 ? m : 1); ++i)
        c.w_scale.push_back(uniform(rng, 0.0002, 0.002));
      c.int_bias = t % 3 != 1;
      if (c.int_bias) {
        c.b_scale = c.x_scale * c.w_scale[0];
        c.bv = random_ints(rng, m, -5000, 5000);
      } else {
        for (int64_t i = 0; i < m; ++i) c.bv.push_back(uniform(rng, -2, 2));
      }
      c.relu = t % 2 == 0;
      c.y_type = t % 3 ? DType::kUInt8 : DType::kInt8;
      c.y_zero = c.y_type == DType::kUInt8 ? pick(rng, 0, 200) : pick(rng, -100, 100);
      c.residual = t >= 4;
      std::optional<Host> z;
      if (c.residual) {
        c.z_type = t % 2 ? DType::kUInt8 : DType::kInt8;
        c.zv = c.z_type == DType::kUInt8 ? random_ints(rng, element_count(c.out), 0, 255)
                                         : random_ints(rng, element_count(c.out), -128, 127);
        c.z_zero = c.z_type == DType::kUInt8 ? pick(rng, 0, 255) : pick(rng, -128, 127);
        c.sum_relu = t % 3 == 0;
        z = Host::of(c.z_type, c.out, c.zv);
      }
      choose_scales(c);
      const int64_t splits_before = dnnl_qconv_channel_splits();
      expect_case(c, Host::of(DType::kUInt8, c.x, c.xv), z ? &*z : nullptr);
      EXPECT_EQ(dnnl_qconv_channel_splits(), splits_before + 1);
      ++cases;
    }
  }
  EXPECT_EQ(dnnl_qconv_channel_splits(), splits + cases);
  EXPECT_EQ(dnnl_qconv_reference_primitives(), before);
}

// Images whose data outweigh the weights, and batches, keep the split by rows or images.
TEST(DnnlQConv, LayersWhoseDataOutweighTheWeightsKeepTheirSplit) {
  std::mt19937 rng(38);
  ThreadPool pool(2);
  ScopedPool scope(&pool);
  const int64_t splits = dnnl_qconv_channel_splits();
  for (const int64_t n : {1, 2}) {
    QCase c;
    c.x = {n, 16, n == 1 ? 24 : 4, n == 1 ? 24 : 4};
    c.w = {n == 1 ? 32 : 128, 16, 3, 3};
    c.out = {n, c.w[0], c.x[2], c.x[3]};
    c.strides = {1, 1};
    c.dilations = {1, 1};
    c.pads = {1, 1, 1, 1};
    c.xv = random_ints(rng, element_count(c.x), 0, 255);
    c.wv = random_ints(rng, element_count(c.w), -64, 63);
    c.w_scale = {0.003};
    choose_scales(c);
    expect_case(c, Host::of(DType::kUInt8, c.x, c.xv), nullptr);
  }
  EXPECT_EQ(dnnl_qconv_channel_splits(), splits);
}

// geon.QGemm of X (N, K) by W (M, K) with trans_b, else (K, M), against the product in double:
// every output one of the values the quantized reference allows.
void expect_qgemm(std::mt19937& rng, int64_t N, int64_t K, int64_t M, bool trans_b,
                  bool per_channel) {
  const std::vector<double> xv = random_ints(rng, N * K, 0, 255);
  const std::vector<double> wv = random_ints(rng, M * K, -64, 63);
  const int64_t x_zero = pick(rng, 0, 255), y_zero = pick(rng, 0, 255);
  const double x_scale = uniform(rng, 0.01, 0.05);
  std::vector<double> w_scale;
  for (int64_t m = 0; m < (per_channel ? M : 1); ++m) w_scale.push_back(uniform(rng, 0.002, 0.02));
  std::vector<double> bias = random_ints(rng, M, -3000, 3000);
  const double b_scale = x_scale * w_scale[0];
  std::vector<double> c(static_cast<size_t>(N * M));
  double big = 1e-6;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k)
        acc += (xv[n * K + k] - x_zero) * wv[trans_b ? m * K + k : k * M + m];
      const double ws = w_scale.size() == 1 ? w_scale[0] : w_scale[m];
      c[n * M + m] = acc * x_scale * ws + bias[m] * b_scale;
      big = std::max(big, std::abs(c[n * M + m]));
    }
  const double y_scale = big / 100;
  NodeGraph ng("QGemm", 1);
  ng.node->domain = "geon";
  ng.in(Host::of(DType::kUInt8, {N, K}, xv)).in(scalar(DType::kFloat, x_scale), true);
  ng.in(scalar(DType::kUInt8, x_zero), true);
  ng.in(Host::of(DType::kInt8, trans_b ? Dims{M, K} : Dims{K, M}, wv), true);
  ng.in(Host::of(DType::kFloat, {static_cast<int64_t>(w_scale.size())}, w_scale), true);
  ng.omitted().in(Host::of(DType::kInt32, {M}, bias), true);
  ng.in(scalar(DType::kFloat, b_scale), true).omitted();
  ng.in(scalar(DType::kFloat, y_scale), true).in(scalar(DType::kUInt8, y_zero), true);
  ng.out(DType::kUInt8, {N, M}).attr_i("trans_b", trans_b ? 1 : 0);
  ASSERT_EQ(ng.supports(dnnl_kernels()), std::nullopt);
  const Host got = ng.run(dnnl_kernels()).at(0);
  ASSERT_EQ(got.shape(), (Dims{N, M}));
  for (int64_t i = 0; i < N * M; ++i) {
    const std::set<double> want =
        quantized(c[i] / y_scale, static_cast<double>(y_zero), DType::kUInt8);
    EXPECT_TRUE(want.count(got.at(i))) << "at " << i << ": " << got.at(i);
  }
}

// A one-pixel convolution must still get a jit implementation (strides alone would read as the
// plain layout and leave oneDNN's reference one).
TEST(DnnlQGemm, MatchesTheQuantizedReference) {
  std::mt19937 rng(37);
  const int64_t before = dnnl_qconv_reference_primitives();
  for (int t = 0; t < 24; ++t) {
    SCOPED_TRACE(t);
    const int64_t N = pick(rng, 1, 3), K = pick(rng, 1, 40), M = pick(rng, 1, 20);
    expect_qgemm(rng, N, K, M, t % 2 == 0, t % 3 != 0);
  }
  EXPECT_EQ(dnnl_qconv_reference_primitives(), before);
}

// One row by weights far larger than it (a classifier) splits by output channels, the last part
// taking the channels past the last whole block of 16 (M = 200: 12 blocks and 8 more).
TEST(DnnlQGemm, OneRowByWideWeightsSplitsByOutputChannels) {
  std::mt19937 rng(39);
  for (const int threads : {2, 3}) {
    ThreadPool pool(threads);
    ScopedPool scope(&pool);
    for (const int64_t M : {200, 48}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, M " + std::to_string(M));
      const int64_t splits = dnnl_qconv_channel_splits();
      expect_qgemm(rng, 1, 8192, M, M == 200, M == 200);  // enough for every thread
      EXPECT_EQ(dnnl_qconv_channel_splits(), splits + 1);
    }
  }
}

TEST(DnnlQConv, SupportsRefusesWhatItCannotRun) {
  std::mt19937 rng(36);
  QCase c = random_case(rng, 2, false);
  choose_scales(c);
  const Host x = Host::of(DType::kUInt8, c.x, c.xv);
  {  // accepted as built
    NodeGraph ng("QConv", 1);
    build(ng, c, x, nullptr);
    EXPECT_EQ(ng.supports(dnnl_kernels()), std::nullopt);
  }
  {  // int8 X
    NodeGraph ng("QConv", 1);
    build(ng, c, Host::of(DType::kInt8, c.x, std::vector<double>(c.xv.size(), 1)), nullptr);
    EXPECT_NE(ng.supports(dnnl_kernels()), std::nullopt);
  }
  {  // a weight zero point other than zero
    NodeGraph other("QConv", 1);
    build(other, c, x, nullptr);
    const int wz = other.g.add_value([&] {
      Value v;
      v.name = "wz";
      v.type.dtype = DType::kInt8;
      v.rank_known = true;
      v.kind = ValueKind::kConstant;
      auto d = make_tensor_data(DType::kInt8, {});
      d->storage->data()[0] = std::byte{3};
      v.data = d;
      return v;
    }());
    other.node->inputs[5] = wz;
    EXPECT_NE(other.supports(dnnl_kernels()), std::nullopt);
  }
  {  // weights given per run
    NodeGraph ng("QConv", 1);
    build(ng, c, x, nullptr);
    ng.g.value(ng.node->inputs[3]).kind = ValueKind::kInput;
    EXPECT_NE(ng.supports(dnnl_kernels()), std::nullopt);
  }
  {  // an activation other than Relu
    NodeGraph ng("QConv", 1);
    build(ng, c, x, nullptr);
    ng.attr_s("activation", "Sigmoid");
    EXPECT_NE(ng.supports(dnnl_kernels()), std::nullopt);
  }
  {  // a scale that is not positive
    QCase bad = c;
    bad.y_scale = 0;
    NodeGraph ng("QConv", 1);
    build(ng, bad, x, nullptr);
    EXPECT_NE(ng.supports(dnnl_kernels()), std::nullopt);
  }
}

}  // namespace
}  // namespace geon::cpu::testing
