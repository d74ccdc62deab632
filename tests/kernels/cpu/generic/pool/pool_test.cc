// cpu.generic pooling against the naive loops of pool/reference.h: MaxPool (with Indices in both
// storage orders), AveragePool and LpPool over 1-3 spatial dims with random pads, strides,
// dilations and ceil_mode (edge windows clipped past the pads), auto_pad, strided and
// int8, uint8, double and float16 inputs; rows wide enough for the vectorised interior loops;
// channels-last inputs with many channels; the global pools; MaxRoiPool; and the reasons
// supports() gives.
#include <gtest/gtest.h>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/generic/pool/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

const char* op_of(const std::string& kind) {
  return kind == "max" ? "MaxPool" : kind == "avg" ? "AveragePool" : "LpPool";
}

// A node for `c` over x (the latest opset of its op unless given), Indices when asked.
void build(NodeGraph& ng, const Host& x, const PoolCase& c, const Dims& out, bool indices) {
  ng.in(x).out(x.desc.dtype, out);
  if (indices) ng.out(DType::kInt64, out);
  ng.attr_ints("kernel_shape", c.kernel).attr_ints("strides", c.strides);
  ng.attr_ints("dilations", c.dilations).attr_ints("pads", c.pads);
  ng.attr_i("ceil_mode", c.ceil_mode);
  if (c.kind == "avg") ng.attr_i("count_include_pad", c.count_include_pad);
  if (c.kind == "lp") ng.attr_i("p", static_cast<int64_t>(c.p));
  if (indices) ng.attr_i("storage_order", c.column_major);
}

// The storage order (N, D..., C): inputs a layout pass made channels-last.
std::vector<int64_t> channels_last(int sp) {
  std::vector<int64_t> perm = {0};
  for (int i = 0; i < sp; ++i) perm.push_back(i + 2);
  perm.push_back(1);
  return perm;
}

int latest(const std::string& kind) { return kind == "max" ? 12 : kind == "avg" ? 19 : 18; }

TEST(CpuGenericPool, RandomWindowsMatchNaiveLoops) {
  std::mt19937 rng(71);
  for (const std::string kind : {"max", "avg", "lp"}) {
    for (int trial = 0; trial < 30; ++trial) {
      const int sp = 1 + trial % 3;
      PoolCase c = random_pool_case(rng, sp, kind);
      c.p = 1 + trial % 3;
      Host x = Host::random(DType::kFloat, random_pool_input(rng, c), rng);
      if (trial % 2) x = x.strided(channels_last(sp));
      const PoolResult want = naive_pool(x, c);
      NodeGraph ng(op_of(kind), latest(kind));
      build(ng, x, c, want.shape, false);
      SCOPED_TRACE(kind + " trial " + std::to_string(trial) + " " + to_string(x.desc));
      expect_values(
          ng.run(gen())[0], want.shape, [&](int64_t i) { return want.y[i]; }, 1e-5);
    }
  }
}

TEST(CpuGenericPool, MaxPoolIndicesInBothStorageOrders) {
  std::mt19937 rng(72);
  for (int trial = 0; trial < 24; ++trial) {
    const int sp = 1 + trial % 3;
    PoolCase c = random_pool_case(rng, sp, "max");
    c.column_major = trial % 2;
    Host x = Host::random(DType::kFloat, random_pool_input(rng, c), rng);
    if (trial % 4 == 3) x = x.strided(channels_last(sp));
    const PoolResult want = naive_pool(x, c);
    NodeGraph ng("MaxPool", trial % 3 == 0 ? 10 : 12);
    build(ng, x, c, want.shape, true);
    SCOPED_TRACE("trial " + std::to_string(trial) + " " + to_string(x.desc));
    const std::vector<Host> got = ng.run(gen());
    expect_values(got[0], want.shape, [&](int64_t i) { return want.y[i]; });
    expect_values(got[1], want.shape,
                  [&](int64_t i) { return static_cast<double>(want.indices[i]); });
  }
}

// Rows wide enough for the vectorised loops over a row's interior outputs: contiguous, stride-2
// and gathered reads (strides 3, channels-last inputs), with edge windows on both sides, Indices
// in both storage orders, LpPool's p from 1 to 5 (5 takes pow()), float and double.
TEST(CpuGenericPool, WideRowsMatchNaiveLoops) {
  std::mt19937 rng(75);
  for (const std::string kind : {"max", "avg", "lp"}) {
    for (int trial = 0; trial < 18; ++trial) {
      const int sp = 1 + trial % 3;
      PoolCase c = random_pool_case(rng, sp, kind);
      c.p = 1 + trial % 5;
      c.column_major = trial % 2;
      Dims shape = random_pool_input(rng, c);
      shape.back() += 40 + trial;
      Host x = Host::random(trial % 6 == 5 ? DType::kDouble : DType::kFloat, shape, rng);
      if (trial % 3 == 2) x = x.strided(channels_last(sp));
      const bool indices = kind == "max" && trial % 4 < 2;
      const PoolResult want = naive_pool(x, c);
      NodeGraph ng(op_of(kind), latest(kind));
      build(ng, x, c, want.shape, indices);
      SCOPED_TRACE(kind + " trial " + std::to_string(trial) + " " + to_string(x.desc));
      const std::vector<Host> got = ng.run(gen());
      expect_values(
          got[0], want.shape, [&](int64_t i) { return want.y[i]; }, 1e-5);
      if (indices)
        expect_values(got[1], want.shape,
                      [&](int64_t i) { return static_cast<double>(want.indices[i]); });
    }
  }
}

// Channels-last inputs with enough channels for the loops over contiguous channels, every kind,
// Indices in both storage orders, random windows (pads, dilations, ceil_mode).
TEST(CpuGenericPool, ChannelsLastInputsMatchNaiveLoops) {
  std::mt19937 rng(76);
  for (const std::string kind : {"max", "avg", "lp"}) {
    for (int trial = 0; trial < 12; ++trial) {
      const int sp = 1 + trial % 3;
      PoolCase c = random_pool_case(rng, sp, kind);
      c.p = 1 + trial % 5;
      c.column_major = trial % 2;
      Dims shape = random_pool_input(rng, c);
      shape[1] = 8 + static_cast<int64_t>(rng() % 13);
      const DType t = trial % 6 == 5 ? DType::kDouble : DType::kFloat;
      const Host x = Host::random(t, shape, rng).strided(channels_last(sp));
      const bool indices = kind == "max" && trial % 4 < 2;
      const PoolResult want = naive_pool(x, c);
      NodeGraph ng(op_of(kind), latest(kind));
      build(ng, x, c, want.shape, indices);
      SCOPED_TRACE(kind + " trial " + std::to_string(trial) + " " + to_string(x.desc));
      const std::vector<Host> got = ng.run(gen());
      expect_values(
          got[0], want.shape, [&](int64_t i) { return want.y[i]; }, 1e-5);
      if (indices)
        expect_values(got[1], want.shape,
                      [&](int64_t i) { return static_cast<double>(want.indices[i]); });
    }
  }
}

TEST(CpuGenericPool, MaxPoolIndicesKnownValues) {
  // 1x1x3x3 with pads 1 on every side, kernel 2, stride 2: windows cover (-1..0) and (1..2).
  const Host x = Host::of(DType::kFloat, {1, 1, 3, 3}, {1, 9, 2, 3, 4, 8, 7, 5, 6});
  for (int order : {0, 1}) {
    NodeGraph ng("MaxPool", 12);
    ng.in(x).out(DType::kFloat, {1, 1, 2, 2}).out(DType::kInt64, {1, 1, 2, 2});
    ng.attr_ints("kernel_shape", {2, 2}).attr_ints("strides", {2, 2});
    ng.attr_ints("pads", {1, 1, 1, 1}).attr_i("storage_order", order);
    const std::vector<Host> got = ng.run(gen());
    const std::vector<double> y = {1, 9, 7, 8};
    // Row-major positions 0, 1, 6, 5; column-major the same cells are 0, 3, 2, 7.
    const std::vector<double> idx =
        order == 0 ? std::vector<double>{0, 1, 6, 5} : std::vector<double>{0, 3, 2, 7};
    expect_values(got[0], {1, 1, 2, 2}, [&](int64_t i) { return y[i]; });
    expect_values(got[1], {1, 1, 2, 2}, [&](int64_t i) { return idx[i]; });
  }
}

TEST(CpuGenericPool, AverageCeilWindowPastThePadsIsNotCounted) {
  // ONNX's test_averagepool_2d_ceil_last_window_starts_on_pad: the one window covers rows and
  // columns -1..1, all inside the padded extent, so count_include_pad divides by 9.
  const Host x = Host::of(DType::kFloat, {1, 1, 2, 2}, {0.8580, 0.0786, 0.2692, 0.1537});
  NodeGraph ng("AveragePool", 19);
  ng.in(x).out(DType::kFloat, {1, 1, 1, 1});
  ng.attr_ints("kernel_shape", {3, 3}).attr_ints("strides", {3, 3});
  ng.attr_ints("pads", {1, 1, 1, 1}).attr_i("ceil_mode", 1).attr_i("count_include_pad", 1);
  expect_values(ng.run(gen())[0], {1, 1, 1, 1}, [](int64_t) { return 1.3595 / 9; });
  // 1-D, length 5, kernel 2, stride 2, pads 1/0, ceil: windows (-1,0) (1,2) (3,4) and a
  // fourth (5,6) that would start past the input, dropped; with pads 0/0 the last window
  // (4,5) reads only 4 and counts 1 even with count_include_pad.
  const Host v = Host::of(DType::kFloat, {1, 1, 5}, {1, 2, 3, 4, 5});
  NodeGraph ng2("AveragePool", 19);
  ng2.in(v).out(DType::kFloat, {1, 1, 3});
  ng2.attr_ints("kernel_shape", {2}).attr_ints("strides", {2}).attr_ints("pads", {0, 0});
  ng2.attr_i("ceil_mode", 1).attr_i("count_include_pad", 1);
  const std::vector<double> want = {1.5, 3.5, 5};
  expect_values(ng2.run(gen())[0], {1, 1, 3}, [&](int64_t i) { return want[i]; });
}

TEST(CpuGenericPool, AutoPadSameUpperLowerAndValid) {
  std::mt19937 rng(73);
  for (const std::string pad : {"SAME_UPPER", "SAME_LOWER", "VALID"}) {
    for (const std::string kind : {"max", "avg", "lp"}) {
      PoolCase c;
      c.kind = kind;
      c.kernel = {3, 2};
      c.strides = {2, 1};
      c.dilations = {1, 2};
      const Dims in = {2, 3, 7, 6};
      // The pads SAME implies: total = (ceil(in / s) - 1) * s + extent - in, the odd one at
      // the end (UPPER) or the beginning (LOWER).
      c.pads.assign(4, 0);
      if (pad != "VALID") {
        for (int i = 0; i < 2; ++i) {
          const int64_t out = (in[i + 2] + c.strides[i] - 1) / c.strides[i];
          const int64_t ext = (c.kernel[i] - 1) * c.dilations[i] + 1;
          const int64_t total = std::max<int64_t>(0, (out - 1) * c.strides[i] + ext - in[i + 2]);
          c.pads[i] = pad == "SAME_UPPER" ? total / 2 : total - total / 2;
          c.pads[i + 2] = total - c.pads[i];
        }
      }
      c.count_include_pad = false;
      const Host x = Host::random(DType::kFloat, in, rng);
      const PoolResult want = naive_pool(x, c);
      NodeGraph ng(op_of(kind), latest(kind));
      ng.in(x).out(DType::kFloat, want.shape).attr_s("auto_pad", pad);
      ng.attr_ints("kernel_shape", c.kernel).attr_ints("strides", c.strides);
      ng.attr_ints("dilations", c.dilations);
      SCOPED_TRACE(pad + " " + kind);
      expect_values(ng.run(gen())[0], want.shape, [&](int64_t i) { return want.y[i]; });
    }
  }
}

TEST(CpuGenericPool, LpPoolFloatPOfOpset1AndIntPLater) {
  std::mt19937 rng(74);
  const Host x = Host::random(DType::kFloat, {1, 2, 5, 4}, rng);
  PoolCase c;
  c.kind = "lp";
  c.kernel = {2, 3};
  c.strides = {1, 1};
  c.dilations = {1, 1};
  c.pads = {0, 1, 1, 0};
  c.p = 3;
  const PoolResult want = naive_pool(x, c);
  NodeGraph ng("LpPool", 1);
  ng.in(x).out(DType::kFloat, want.shape).attr_f("p", 3.0f);
  ng.attr_ints("kernel_shape", c.kernel).attr_ints("pads", c.pads);
  expect_values(ng.run(gen())[0], want.shape, [&](int64_t i) { return want.y[i]; });
  NodeGraph ng2("LpPool", 11);
  ng2.in(x).out(DType::kFloat, want.shape).attr_i("p", 3);
  ng2.attr_ints("kernel_shape", c.kernel).attr_ints("pads", c.pads);
  expect_values(ng2.run(gen())[0], want.shape, [&](int64_t i) { return want.y[i]; });
}

TEST(CpuGenericPool, GlobalPoolsOverStridedInputs) {
  std::mt19937 rng(75);
  for (int sp = 0; sp <= 3; ++sp) {
    Dims s = {2, 3};
    for (int i = 0; i < sp; ++i) s.push_back(2 + static_cast<int64_t>(rng() % 4));
    std::vector<int64_t> perm(s.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(perm.size() - 1 - i);
    const Host x = Host::random(DType::kFloat, s, rng).strided(perm);
    int64_t plane = 1;
    for (int i = 0; i < sp; ++i) plane *= s[i + 2];
    Dims out = {2, 3};
    for (int i = 0; i < sp; ++i) out.push_back(1);
    for (const char* op : {"GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool"}) {
      NodeGraph ng(op, std::string(op) == "GlobalLpPool" ? 2 : 1);
      ng.in(x).out(DType::kFloat, out);
      if (std::string(op) == "GlobalLpPool") ng.attr_i("p", 3);
      auto want = [&](int64_t i) {
        double m = x.at(i * plane), sum = 0, lp = 0;
        for (int64_t k = 0; k < plane; ++k) {
          const double v = x.at(i * plane + k);
          m = std::max(m, v), sum += v, lp += std::pow(std::abs(v), 3);
        }
        const std::string o = op;
        return o == "GlobalMaxPool" ? m : o == "GlobalAveragePool" ? sum / plane : std::cbrt(lp);
      };
      SCOPED_TRACE(std::string(op) + " " + to_string(x.desc));
      expect_values(ng.run(gen())[0], out, want);
    }
  }
}

TEST(CpuGenericPool, MaxPoolOfInt8AndUInt8AverageOfDoubleLpPoolOfFloat16) {
  std::mt19937 rng(76);
  PoolCase c = random_pool_case(rng, 2, "max");
  c.ceil_mode = true;
  for (DType t : {DType::kInt8, DType::kUInt8}) {
    const Host x = Host::random(t, random_pool_input(rng, c), rng, t == DType::kInt8 ? -100 : 0,
                                t == DType::kInt8 ? 100 : 250);
    const PoolResult want = naive_pool(x, c);
    NodeGraph ng("MaxPool", 12);
    build(ng, x, c, want.shape, false);
    expect_values(ng.run(gen())[0], want.shape, [&](int64_t i) { return want.y[i]; });
  }
  c.kind = "avg";
  const Host x = Host::random(DType::kDouble, random_pool_input(rng, c), rng);
  const PoolResult want = naive_pool(x, c);
  NodeGraph ng("AveragePool", 19);
  build(ng, x, c, want.shape, false);
  expect_values(
      ng.run(gen())[0], want.shape, [&](int64_t i) { return want.y[i]; }, 1e-12);
  // float16 is computed in float and rounded once on the way out.
  c.kind = "lp";
  const Host h = Host::random(DType::kFloat16, random_pool_input(rng, c), rng);
  const PoolResult want_h = naive_pool(h, c);
  NodeGraph lp("LpPool", 18);
  build(lp, h, c, want_h.shape, false);
  expect_values(
      lp.run(gen())[0], want_h.shape, [&](int64_t i) { return want_h.y[i]; }, 2e-3);
}

TEST(CpuGenericPool, SupportsRefusesWhatItCannotRun) {
  NodeGraph i32("MaxPool", 12);
  i32.in(Host::dense(DType::kInt32, {1, 1, 4})).out(DType::kInt32, {1, 1, 3});
  i32.attr_ints("kernel_shape", {2});
  EXPECT_NE(i32.supports(gen()), std::nullopt);
  NodeGraph avg8("AveragePool", 19);
  avg8.in(Host::dense(DType::kInt8, {1, 1, 4})).out(DType::kInt8, {1, 1, 3});
  avg8.attr_ints("kernel_shape", {2});
  EXPECT_NE(avg8.supports(gen()), std::nullopt);
  NodeGraph nokernel("MaxPool", 12);
  nokernel.in(Host::dense(DType::kFloat, {1, 1, 4})).out(DType::kFloat, {1, 1, 3});
  EXPECT_NE(nokernel.supports(gen()), std::nullopt);
}

// Naive MaxRoiPool: rounded scaled corners, floor/ceil bins clipped to the image, 0 if empty.
double naive_roi(const Host& x, const Host& rois, int64_t r, int64_t ch, int64_t ph, int64_t pw,
                 int64_t PH, int64_t PW, double scale) {
  const Dims& s = x.desc.shape;
  const int64_t b = static_cast<int64_t>(rois.at(r * 5));
  const int64_t x1 = std::llround(rois.at(r * 5 + 1) * scale),
                y1 = std::llround(rois.at(r * 5 + 2) * scale);
  const int64_t x2 = std::llround(rois.at(r * 5 + 3) * scale),
                y2 = std::llround(rois.at(r * 5 + 4) * scale);
  const double bh = static_cast<double>(std::max<int64_t>(y2 - y1 + 1, 1)) / PH;
  const double bw = static_cast<double>(std::max<int64_t>(x2 - x1 + 1, 1)) / PW;
  auto clip = [](int64_t v, int64_t hi) { return std::min(std::max<int64_t>(v, 0), hi); };
  const int64_t hs = clip(static_cast<int64_t>(std::floor(ph * bh)) + y1, s[2]);
  const int64_t he = clip(static_cast<int64_t>(std::ceil((ph + 1) * bh)) + y1, s[2]);
  const int64_t ws = clip(static_cast<int64_t>(std::floor(pw * bw)) + x1, s[3]);
  const int64_t we = clip(static_cast<int64_t>(std::ceil((pw + 1) * bw)) + x1, s[3]);
  if (he <= hs || we <= ws) return 0;
  double m = -1e300;
  for (int64_t h = hs; h < he; ++h)
    for (int64_t w = ws; w < we; ++w)
      m = std::max(m, x.at(((b * s[1] + ch) * s[2] + h) * s[3] + w));
  return m;
}

TEST(CpuGenericPool, MaxRoiPoolMatchesNaiveBins) {
  std::mt19937 rng(77);
  const Host x = Host::random(DType::kFloat, {2, 3, 9, 7}, rng).strided({0, 2, 3, 1});
  // Boxes inside, partly outside, degenerate (x2 < x1), and wholly outside the image.
  const Host rois = Host::of(
      DType::kFloat, {5, 5},
      {0, 0, 0, 6, 8, 1, 2.4, 1.6, 5.5, 4.2, 1, -3, -2, 3, 20, 0, 5, 5, 2, 3, 1, 30, 30, 40, 40});
  const int64_t PH = 3, PW = 2;
  for (double scale : {1.0, 0.5}) {
    NodeGraph ng("MaxRoiPool", 1);
    ng.in(x).in(rois).out(DType::kFloat, {5, 3, PH, PW});
    ng.attr_ints("pooled_shape", {PH, PW}).attr_f("spatial_scale", static_cast<float>(scale));
    auto want = [&](int64_t i) {
      const int64_t pw = i % PW, ph = i / PW % PH, ch = i / (PW * PH) % 3, r = i / (PW * PH * 3);
      return naive_roi(x, rois, r, ch, ph, pw, PH, PW, scale);
    };
    SCOPED_TRACE("scale " + std::to_string(scale));
    expect_values(ng.run(gen())[0], {5, 3, PH, PW}, want);
  }
}

}  // namespace
}  // namespace geon::cpu::testing
