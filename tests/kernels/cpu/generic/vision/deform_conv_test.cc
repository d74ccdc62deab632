// cpu.generic DeformConv against a naive reference (each output element summed over its
// group's channels and kernel taps, each tap interpolated multilinearly at its offset position
// with zeros outside): 1-D, 2-D and 3-D, groups and offset groups, strides, pads, dilations,
// bias and mask, every float type, strided inputs, and the errors for mismatched offset, mask,
// bias and channel counts and for absurd pads.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

struct Conv {
  int64_t group = 1, offset_group = 1;
  std::vector<int64_t> strides, pads, dilations;  // per spatial dim (pads: begins then ends)
};

// X[n, c] at real position p, multilinear with zero outside the image.
double sample(const Host& x, int64_t n, int64_t c, const std::vector<double>& p) {
  const Dims& s = x.shape();
  const size_t r = p.size();
  double sum = 0;
  for (int k = 0; k < (1 << r); ++k) {
    int64_t flat = n * s[1] + c;
    double w = 1;
    bool inside = true;
    for (size_t i = 0; i < r; ++i) {
      const double f = std::floor(p[i]);
      const bool up = (k >> i) & 1;
      const auto idx = static_cast<int64_t>(f) + (up ? 1 : 0);
      w *= up ? p[i] - f : 1 - (p[i] - f);
      inside = inside && idx >= 0 && idx < s[i + 2];
      flat = flat * s[i + 2] + idx;
    }
    if (inside) sum += w * x.at(flat);
  }
  return sum;
}

std::vector<double> reference(const Host& x, const Host& w, const Host& offset, const Host* b,
                              const Host* mask, const Conv& cv, Dims& out_shape) {
  const Dims& xs = x.shape();
  const Dims& ws = w.shape();
  const size_t r = xs.size() - 2;
  Dims out(r), kernel(ws.begin() + 2, ws.end());
  for (size_t i = 0; i < r; ++i)
    out[i] = (xs[i + 2] + cv.pads[i] + cv.pads[i + r] - ((kernel[i] - 1) * cv.dilations[i] + 1)) /
                 cv.strides[i] +
             1;
  out_shape = {xs[0], ws[0]};
  out_shape.insert(out_shape.end(), out.begin(), out.end());
  const int64_t taps = element_count(kernel), points = element_count(out);
  const int64_t cg = ws[1], mg = ws[0] / cv.group, per_og = xs[1] / cv.offset_group;
  std::vector<double> y;
  for (int64_t n = 0; n < xs[0]; ++n)
    for (int64_t m = 0; m < ws[0]; ++m)
      for (int64_t o = 0; o < points; ++o) {
        double acc = b ? b->at(m) : 0;
        for (int64_t ci = 0; ci < cg; ++ci) {
          const int64_t c = (m / mg) * cg + ci, og = c / per_og;
          for (int64_t t = 0; t < taps; ++t) {
            std::vector<double> p(r);
            int64_t orest = o, trest = t;
            for (size_t i = r; i-- > 0;) {
              const int64_t oi = orest % out[i], ti = trest % kernel[i];
              orest /= out[i];
              trest /= kernel[i];
              const int64_t ch =
                  (og * taps + t) * static_cast<int64_t>(r) + static_cast<int64_t>(i);
              p[i] = static_cast<double>(oi * cv.strides[i] - cv.pads[i] + ti * cv.dilations[i]) +
                     offset.at((n * offset.shape()[1] + ch) * points + o);
            }
            const double mk =
                mask ? mask->at((n * mask->shape()[1] + og * taps + t) * points + o) : 1;
            acc += w.at((m * cg + ci) * taps + t) * mk * sample(x, n, c, p);
          }
        }
        y.push_back(acc);
      }
  return y;
}

struct Case {
  Host x, w, offset, b, mask;
  bool has_b = false, has_mask = false;
  Conv cv;
};

Case random_case(std::mt19937& rng, DType t, int r, int64_t group, int64_t og, bool b, bool mask) {
  Case c;
  c.cv.group = group;
  c.cv.offset_group = og;
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const int64_t channels = group * og * pick(1, 2), m = group * pick(1, 2);
  Dims xs = {pick(1, 2), channels}, ws = {m, channels / group}, out;
  for (int i = 0; i < r; ++i) {
    c.cv.strides.push_back(pick(1, 2));
    c.cv.dilations.push_back(pick(1, 2));
    const int64_t k = pick(1, 3);
    ws.push_back(k);
    const int64_t span = (k - 1) * c.cv.dilations.back() + 1;
    xs.push_back(span + pick(0, 4));
  }
  for (int i = 0; i < 2 * r; ++i) c.cv.pads.push_back(pick(0, 1));
  int64_t taps = 1;
  for (int i = 0; i < r; ++i) {
    taps *= ws[i + 2];
    out.push_back(
        (xs[i + 2] + c.cv.pads[i] + c.cv.pads[i + r] - ((ws[i + 2] - 1) * c.cv.dilations[i] + 1)) /
            c.cv.strides[i] +
        1);
  }
  c.x = Host::random(t, xs, rng);
  c.w = Host::random(t, ws, rng);
  Dims os = {xs[0], og * taps * r};
  os.insert(os.end(), out.begin(), out.end());
  c.offset = Host::random(t, os, rng, -2, 2);  // enough to leave the image at the borders
  c.has_b = b;
  c.has_mask = mask;
  if (b) c.b = Host::random(t, {m}, rng);
  os[1] = og * taps;
  if (mask) c.mask = Host::random(t, os, rng, 0, 1);
  return c;
}

void expect_deform_conv(const Case& c, int opset, double tol) {
  NodeGraph ng("DeformConv", opset);
  ng.in(c.x).in(c.w).in(c.offset);
  if (c.has_b)
    ng.in(c.b);
  else if (c.has_mask)
    ng.omitted();
  if (c.has_mask) ng.in(c.mask);
  ng.out(c.x.desc.dtype).attr_i("group", c.cv.group).attr_i("offset_group", c.cv.offset_group);
  ng.attr_ints("strides", c.cv.strides).attr_ints("pads", c.cv.pads);
  ng.attr_ints("dilations", c.cv.dilations);
  Dims shape;
  const std::vector<double> want = reference(c.x, c.w, c.offset, c.has_b ? &c.b : nullptr,
                                             c.has_mask ? &c.mask : nullptr, c.cv, shape);
  expect_values(
      ng.run(gen())[0], shape, [&](int64_t i) { return want[i]; }, tol);
}

TEST(CpuGenericDeformConv, GroupsOffsetGroupsBiasAndMaskIn2D) {
  std::mt19937 rng(61);
  for (int trial = 0; trial < 24; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const Case c = random_case(rng, DType::kFloat, 2, 1 + trial % 2, 1 + (trial / 2) % 2,
                               trial % 3 != 0, trial % 4 >= 2);
    expect_deform_conv(c, 19, 1e-4);
  }
}

TEST(CpuGenericDeformConv, OneAndThreeSpatialDims) {
  std::mt19937 rng(62);
  for (int r : {1, 3}) {
    for (int trial = 0; trial < 4; ++trial) {
      SCOPED_TRACE("rank " + std::to_string(r) + " trial " + std::to_string(trial));
      expect_deform_conv(random_case(rng, DType::kFloat, r, 1 + trial % 2, 1, true, trial % 2), 19,
                         1e-4);
    }
  }
}

TEST(CpuGenericDeformConv, DefaultsAndEveryFloatType) {
  std::mt19937 rng(63);
  for (DType t : {DType::kDouble, DType::kFloat16, DType::kBFloat16}) {
    const Case c = random_case(rng, t, 2, 1, 1, true, true);
    const double tol = t == DType::kDouble ? 1e-10 : t == DType::kFloat16 ? 1e-2 : 5e-2;
    expect_deform_conv(c, 22, tol);
  }
  // No attributes at all: stride, dilation 1, no pads, one group.
  Case c = random_case(rng, DType::kFloat, 2, 1, 1, false, false);
  c.cv.strides = {1, 1};
  c.cv.dilations = {1, 1};
  c.cv.pads = {0, 0, 0, 0};
  Dims shape;
  const Dims& xs = c.x.shape();
  const Dims& ws = c.w.shape();
  c.offset = Host::random(DType::kFloat,
                          {xs[0], 2 * ws[2] * ws[3], xs[2] - ws[2] + 1, xs[3] - ws[3] + 1}, rng);
  NodeGraph ng("DeformConv", 19);
  ng.in(c.x).in(c.w).in(c.offset).out(DType::kFloat);
  const std::vector<double> want = reference(c.x, c.w, c.offset, nullptr, nullptr, c.cv, shape);
  expect_values(
      ng.run(gen())[0], shape, [&](int64_t i) { return want[i]; }, 1e-4);
}

TEST(CpuGenericDeformConv, StridedInputs) {
  std::mt19937 rng(64);
  Case c = random_case(rng, DType::kFloat, 2, 2, 2, true, true);
  c.x = c.x.strided({3, 2, 1, 0});
  c.w = c.w.strided({1, 0, 3, 2});
  c.offset = c.offset.strided({2, 3, 0, 1});
  c.mask = c.mask.strided({3, 0, 2, 1});
  expect_deform_conv(c, 19, 1e-4);
}

TEST(CpuGenericDeformConv, MismatchedShapesAndAbsurdPadsAreErrors) {
  const Host x = Host::dense(DType::kFloat, {1, 2, 4, 4});
  const Host w = Host::dense(DType::kFloat, {2, 2, 3, 3});
  const Host offset = Host::dense(DType::kFloat, {1, 18, 2, 2});
  NodeGraph off("DeformConv", 19);
  off.in(x).in(w).in(Host::dense(DType::kFloat, {1, 18, 3, 2})).out(DType::kFloat);
  expect_error(off, gen(), ErrorCode::kInvalidArgument, {"DeformConv", "offset is"});
  NodeGraph mask("DeformConv", 19);
  mask.in(x).in(w).in(offset).omitted().in(Host::dense(DType::kFloat, {1, 18, 2, 2}));
  mask.out(DType::kFloat);
  expect_error(mask, gen(), ErrorCode::kInvalidArgument, {"mask is", "[1, 9, 2, 2]"});
  NodeGraph bias("DeformConv", 19);
  bias.in(x).in(w).in(offset).in(Host::dense(DType::kFloat, {3})).out(DType::kFloat);
  expect_error(bias, gen(), ErrorCode::kInvalidArgument, {"B is"});
  NodeGraph groups("DeformConv", 19);
  groups.in(x).in(w).in(offset).out(DType::kFloat).attr_i("group", 2);
  expect_error(groups, gen(), ErrorCode::kInvalidArgument, {"group 2"});
  NodeGraph og("DeformConv", 19);
  og.in(x).in(w).in(offset).out(DType::kFloat).attr_i("offset_group", 3);
  expect_error(og, gen(), ErrorCode::kInvalidArgument, {"offset groups"});
  NodeGraph pads("DeformConv", 19);
  pads.in(x).in(w).in(offset).out(DType::kFloat);
  pads.attr_ints("pads", {int64_t{1} << 62, 0, int64_t{1} << 62, 0});
  expect_error(pads, gen(), ErrorCode::kInvalidArgument, {"too large"});
  NodeGraph small("DeformConv", 19);
  small.in(Host::dense(DType::kFloat, {1, 2, 2, 2})).in(w).in(offset).out(DType::kFloat);
  expect_error(small, gen(), ErrorCode::kInvalidArgument, {"longer than"});
}

}  // namespace
}  // namespace geon::cpu::testing
