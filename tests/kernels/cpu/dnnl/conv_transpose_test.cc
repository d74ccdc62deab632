// cpu.dnnl ConvTranspose against a naive scatter of each input element through the kernel:
// seeded random 1-D to 3-D cases with groups, dilations, strides, pads and output_padding,
// output_shape (smaller and larger than the footprint, so pads come out negative), the SAME
// auto_pad modes, strided views and per-run weights.
#include <gtest/gtest.h>

#include <random>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/dnnl/conv_reference.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

int64_t pick(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

struct Case {
  Dims x, w, out;
  int64_t group = 1;
  Dims strides, dilations, pads, output_padding, output_shape;
  std::string auto_pad;
  Dims pad_begin;  // ONNX begin pads the reference uses
};

// A random ConvTranspose with explicit pads and output_padding.
Case random_case(std::mt19937& rng, int spatial) {
  Case c;
  c.group = pick(rng, 1, 3);
  const int64_t cg = pick(rng, 1, 3), mg = pick(rng, 1, 3), n = pick(rng, 1, 2);
  c.x = {n, cg * c.group};
  c.w = {cg * c.group, mg};
  c.out = {n, mg * c.group};
  c.pads.assign(2 * spatial, 0);
  for (int i = 0; i < spatial; ++i) {
    const int64_t k = pick(rng, 1, 3), d = pick(rng, 1, 2), s = pick(rng, 1, 3);
    const int64_t eff = (k - 1) * d + 1, in = pick(rng, 1, 5);
    const int64_t op = pick(rng, 0, std::max(s, d) - 1);
    const int64_t full = s * (in - 1) + op + eff;  // the output before pads
    int64_t pb = pick(rng, 0, eff - 1), pe = pick(rng, 0, eff - 1);
    if (pb + pe >= full) pb = pe = 0;  // at least one output position
    c.x.push_back(in);
    c.w.push_back(k);
    c.strides.push_back(s);
    c.dilations.push_back(d);
    c.output_padding.push_back(op);
    c.pads[i] = pb;
    c.pads[i + spatial] = pe;
    c.pad_begin.push_back(pb);
    c.out.push_back(full - pb - pe);
  }
  return c;
}

// Floor division, as the spec's total_padding / 2 works out on the test data.
int64_t floor_half(int64_t t) { return t >= 0 ? t / 2 : -((-t + 1) / 2); }

// Turns a case into one whose output size is given (output_shape or SAME), pads derived.
void derive_pads(Case& c) {
  const size_t n = c.strides.size();
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = c.x[i + 2], s = c.strides[i];
    const int64_t eff = (c.w[i + 2] - 1) * c.dilations[i] + 1;
    const int64_t out = c.output_shape.empty() ? in * s : c.output_shape[i];
    const int64_t total = s * (in - 1) + c.output_padding[i] + eff - out;
    c.pad_begin[i] = c.auto_pad == "SAME_UPPER" ? floor_half(total) : total - floor_half(total);
    c.out[i + 2] = out;
  }
}

void expect_transpose(const Case& c, const Host& x, const Host& w, const Host* b, bool const_w) {
  NodeGraph ng("ConvTranspose", 11);
  ng.in(x).in(w, const_w);
  if (b) ng.in(*b, true);
  ng.out(DType::kFloat, c.out).attr_i("group", c.group);
  ng.attr_ints("strides", c.strides).attr_ints("dilations", c.dilations);
  ng.attr_ints("output_padding", c.output_padding);
  if (!c.auto_pad.empty()) ng.attr_s("auto_pad", c.auto_pad);
  if (!c.output_shape.empty()) ng.attr_ints("output_shape", c.output_shape);
  if (c.auto_pad.empty() && c.output_shape.empty()) ng.attr_ints("pads", c.pads);
  ASSERT_EQ(ng.supports(dnnl_kernels()), std::nullopt);
  const auto got = ng.run(dnnl_kernels());
  const auto want =
      conv_reference(x, w, b, c.out, ConvRef{c.strides, c.dilations, c.pad_begin, c.group, true});
  expect_values(
      got[0], c.out, [&](int64_t i) { return want[i]; }, 1e-4);
}

void expect_random(const Case& c, std::mt19937& rng, bool const_w, bool bias) {
  const Host x = Host::random(DType::kFloat, c.x, rng), w = Host::random(DType::kFloat, c.w, rng);
  const Host b = Host::random(DType::kFloat, {c.out[1]}, rng);
  expect_transpose(c, x, w, bias ? &b : nullptr, const_w);
}

TEST(DnnlConvTranspose, Random2dCasesWithOutputPaddingMatchTheScatter) {
  std::mt19937 rng(31);
  for (int t = 0; t < 40; ++t) {
    SCOPED_TRACE(t);
    expect_random(random_case(rng, 2), rng, t % 2 == 0, t % 3 != 0);
  }
}

TEST(DnnlConvTranspose, Random1dAnd3dCasesMatchTheScatter) {
  std::mt19937 rng(32);
  for (int t = 0; t < 30; ++t) {
    SCOPED_TRACE(t);
    expect_random(random_case(rng, t % 2 ? 1 : 3), rng, t % 3 == 0, t % 2 == 0);
  }
}

TEST(DnnlConvTranspose, OutputShapeOverridesPadsEvenPastTheFootprint) {
  std::mt19937 rng(33);
  for (int t = 0; t < 30; ++t) {
    SCOPED_TRACE(t);
    Case c = random_case(rng, 2);
    // Smaller, equal and larger than the unpadded footprint (negative pads both sides).
    for (int i = 0; i < 2; ++i) {
      const int64_t full = c.strides[i] * (c.x[i + 2] - 1) + c.output_padding[i] +
                           (c.w[i + 2] - 1) * c.dilations[i] + 1;
      c.output_shape.push_back(std::max<int64_t>(1, full + pick(rng, -3, 3)));
    }
    const char* modes[] = {"", "SAME_UPPER", "SAME_LOWER"};
    c.auto_pad = modes[t % 3];
    derive_pads(c);
    expect_random(c, rng, t % 2 == 0, true);
  }
}

TEST(DnnlConvTranspose, SameAutoPadGivesInputTimesStride) {
  std::mt19937 rng(34);
  for (const std::string mode : {"SAME_UPPER", "SAME_LOWER"})
    for (int t = 0; t < 8; ++t) {
      SCOPED_TRACE(mode + " " + std::to_string(t));
      Case c = random_case(rng, t % 2 ? 1 : 2);
      c.auto_pad = mode;
      derive_pads(c);
      expect_random(c, rng, true, t % 2 == 0);
    }
}

TEST(DnnlConvTranspose, WideChannelsAndStridedViews) {
  std::mt19937 rng(35);
  Case c;
  c.group = 1;
  c.x = {2, 24, 5, 6};
  c.w = {24, 20, 3, 3};
  c.strides = {2, 2};
  c.dilations = {1, 1};
  c.pads = {1, 1, 1, 1};
  c.pad_begin = {1, 1};
  c.output_padding = {1, 1};
  c.out = {2, 20, 2 * 4 + 1 + 3 - 2, 2 * 5 + 1 + 3 - 2};
  const Host x = Host::random(DType::kFloat, c.x, rng), w = Host::random(DType::kFloat, c.w, rng);
  const Host b = Host::random(DType::kFloat, {20}, rng);
  expect_transpose(c, x, w, &b, true);
  expect_transpose(c, x.strided({0, 2, 3, 1}), w.strided({1, 0, 3, 2}), &b, false);
  expect_transpose(c, x.strided({3, 2, 1, 0}), w, &b, true);
}

}  // namespace
}  // namespace geon::cpu::testing
