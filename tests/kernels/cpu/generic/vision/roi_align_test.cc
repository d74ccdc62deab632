// cpu.generic RoiAlign against a naive reference (every sample of every bin of every channel
// interpolated afresh, as the spec's reference loops do): avg and max, opset 10 and both of
// 16's coordinate modes, sampling_ratio fixed and adaptive, spatial_scale, RoIs reaching out of
// the image, every float type, strided X and rois, and the errors for bad batch indices, bad
// shapes, non-finite and oversized RoIs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

struct Attrs {
  std::string mode = "avg";
  bool half_pixel = true;
  int64_t oh = 2, ow = 3, ratio = 0;
  double scale = 1;
};

// Bilinear X[n, c] at (y, x) with ONNX Runtime's edge rules; the four weighted corners.
void corners(const Host& x, int64_t n, int64_t c, double y, double xx, double v[4]) {
  const int64_t h = x.shape()[2], w = x.shape()[3];
  v[0] = v[1] = v[2] = v[3] = 0;
  if (y < -1 || y > static_cast<double>(h) || xx < -1 || xx > static_cast<double>(w)) return;
  y = std::max(y, 0.0);
  xx = std::max(xx, 0.0);
  int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(xx), y1 = y0 + 1, x1 = x0 + 1;
  if (y0 >= h - 1) y = static_cast<double>(y0 = y1 = h - 1);
  if (x0 >= w - 1) xx = static_cast<double>(x0 = x1 = w - 1);
  const double ly = y - static_cast<double>(y0), lx = xx - static_cast<double>(x0);
  auto at = [&](int64_t i, int64_t j) { return x.at(((n * x.shape()[1] + c) * h + i) * w + j); };
  v[0] = (1 - ly) * (1 - lx) * at(y0, x0);
  v[1] = (1 - ly) * lx * at(y0, x1);
  v[2] = ly * (1 - lx) * at(y1, x0);
  v[3] = ly * lx * at(y1, x1);
}

std::vector<double> reference(const Host& x, const Host& rois, const std::vector<int64_t>& bi,
                              const Attrs& a) {
  std::vector<double> y;
  const double off = a.half_pixel ? 0.5 : 0;
  for (size_t r = 0; r < bi.size(); ++r) {
    const auto ri = static_cast<int64_t>(r);
    const double x0 = rois.at(ri * 4) * a.scale - off, y0 = rois.at(ri * 4 + 1) * a.scale - off;
    double rw = rois.at(ri * 4 + 2) * a.scale - off - x0;
    double rh = rois.at(ri * 4 + 3) * a.scale - off - y0;
    if (!a.half_pixel) {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    const double bh = rh / static_cast<double>(a.oh), bw = rw / static_cast<double>(a.ow);
    const int64_t gh = a.ratio > 0 ? a.ratio : static_cast<int64_t>(std::ceil(bh));
    const int64_t gw = a.ratio > 0 ? a.ratio : static_cast<int64_t>(std::ceil(bw));
    for (int64_t c = 0; c < x.shape()[1]; ++c)
      for (int64_t ph = 0; ph < a.oh; ++ph)
        for (int64_t pw = 0; pw < a.ow; ++pw) {
          double sum = 0, best = 0;
          bool first = true;
          for (int64_t iy = 0; iy < gh; ++iy)
            for (int64_t ix = 0; ix < gw; ++ix) {
              double v[4];
              corners(x, bi[r], c,
                      y0 + static_cast<double>(ph) * bh +
                          (static_cast<double>(iy) + .5) * bh / static_cast<double>(gh),
                      x0 + static_cast<double>(pw) * bw +
                          (static_cast<double>(ix) + .5) * bw / static_cast<double>(gw),
                      v);
              sum += v[0] + v[1] + v[2] + v[3];
              const double m = std::max(std::max(v[0], v[1]), std::max(v[2], v[3]));
              best = first ? m : std::max(best, m);
              first = false;
            }
          y.push_back(a.mode == "max" ? best
                                      : sum / static_cast<double>(std::max<int64_t>(gh * gw, 1)));
        }
  }
  return y;
}

NodeGraph& build(NodeGraph& ng, const Host& x, const Host& rois, const std::vector<int64_t>& bi,
                 const Attrs& a) {
  ng.in(x).in(rois).in(ints(bi)).out(x.desc.dtype);
  ng.attr_s("mode", a.mode).attr_i("output_height", a.oh).attr_i("output_width", a.ow);
  ng.attr_i("sampling_ratio", a.ratio).attr_f("spatial_scale", static_cast<float>(a.scale));
  if (ng.node->opset >= 16)
    ng.attr_s("coordinate_transformation_mode", a.half_pixel ? "half_pixel" : "output_half_pixel");
  return ng;
}

void expect_roi_align(const Host& x, const Host& rois, const std::vector<int64_t>& bi,
                      const Attrs& a, int opset, double tol) {
  NodeGraph ng("RoiAlign", opset);
  build(ng, x, rois, bi, a);
  const std::vector<double> want = reference(x, rois, bi, a);
  SCOPED_TRACE(a.mode + (a.half_pixel ? " half_pixel" : " output_half_pixel") + " ratio " +
               std::to_string(a.ratio) + " opset " + std::to_string(opset));
  expect_values(
      ng.run(gen())[0], Dims{static_cast<int64_t>(bi.size()), x.shape()[1], a.oh, a.ow},
      [&](int64_t i) { return want[i]; }, tol);
}

// RoIs as (x1, y1, x2, y2) in a field a little larger than the image (scaled by 1 / scale).
Host random_rois(std::mt19937& rng, int64_t count, double h, double w, DType t = DType::kFloat) {
  std::uniform_real_distribution<double> u(-0.2, 1.1);
  std::vector<double> v;
  for (int64_t r = 0; r < count; ++r) {
    double xa = u(rng) * w, xb = u(rng) * w, ya = u(rng) * h, yb = u(rng) * h;
    v.insert(v.end(), {std::min(xa, xb), std::min(ya, yb), std::max(xa, xb), std::max(ya, yb)});
  }
  return Host::of(t, {count, 4}, v);
}

TEST(CpuGenericRoiAlign, ModesCoordinateRulesAndSampling) {
  std::mt19937 rng(51);
  const Host x = Host::random(DType::kFloat, {2, 3, 6, 7}, rng);
  const Host rois = random_rois(rng, 5, 12, 14);
  const std::vector<int64_t> bi = {0, 1, 1, 0, 1};
  for (const char* mode : {"avg", "max"})
    for (int64_t ratio : {0, 2})
      for (bool half : {true, false}) {
        Attrs a;
        a.mode = mode;
        a.ratio = ratio;
        a.half_pixel = half;
        a.scale = 0.5;
        expect_roi_align(x, rois, bi, a, 16, 1e-4);
        if (!half) expect_roi_align(x, rois, bi, a, 10, 1e-4);  // 10 has no half-pixel shift
      }
}

TEST(CpuGenericRoiAlign, Opset16DefaultsToHalfPixel) {
  std::mt19937 rng(52);
  const Host x = Host::random(DType::kFloat, {1, 2, 5, 5}, rng);
  const Host rois = random_rois(rng, 3, 5, 5);
  NodeGraph ng("RoiAlign", 16);
  ng.in(x).in(rois).in(ints({0, 0, 0})).out(DType::kFloat);
  const std::vector<double> want = reference(x, rois, {0, 0, 0}, Attrs{"avg", true, 1, 1, 0, 1});
  expect_values(
      ng.run(gen())[0], Dims{3, 2, 1, 1}, [&](int64_t i) { return want[i]; }, 1e-4);
}

TEST(CpuGenericRoiAlign, FloatTypesAndStridedInputs) {
  std::mt19937 rng(53);
  for (DType t : {DType::kDouble, DType::kFloat16, DType::kBFloat16}) {
    const Host x = Host::random(t, {1, 2, 5, 6}, rng);
    const Host rois = random_rois(rng, 3, 5, 6, t);
    Attrs a;
    a.ratio = 2;  // the sample count must not hinge on how the type rounds a RoI's size
    const double tol = t == DType::kDouble ? 1e-10 : t == DType::kFloat16 ? 5e-3 : 3e-2;
    expect_roi_align(x, rois, {0, 0, 0}, a, 22, tol);
  }
  const Host x = Host::random(DType::kFloat, {2, 3, 5, 6}, rng).strided({2, 3, 1, 0});
  const Host rois = random_rois(rng, 4, 5, 6).strided({1, 0});
  Attrs a;
  a.mode = "max";
  expect_roi_align(x, rois, {1, 0, 1, 1}, a, 16, 1e-4);
}

TEST(CpuGenericRoiAlign, NoRois) {
  std::mt19937 rng(54);
  NodeGraph ng("RoiAlign", 16);
  build(ng, Host::random(DType::kFloat, {1, 2, 3, 3}, rng), Host::dense(DType::kFloat, {0, 4}), {},
        Attrs{});
  EXPECT_EQ(ng.run(gen())[0].shape(), (Dims{0, 2, 2, 3}));
}

TEST(CpuGenericRoiAlign, BadInputsAreErrors) {
  const Host x = Host::dense(DType::kFloat, {2, 1, 4, 4});
  const Host rois = Host::of(DType::kFloat, {1, 4}, {0, 0, 2, 2});
  NodeGraph index("RoiAlign", 16);
  build(index, x, rois, {2}, Attrs{});
  expect_error(index, gen(), ErrorCode::kInvalidArgument, {"RoiAlign", "batch_indices[0] is 2"});
  NodeGraph negative("RoiAlign", 16);
  build(negative, x, rois, {-1}, Attrs{});
  expect_error(negative, gen(), ErrorCode::kInvalidArgument, {"batch_indices[0] is -1"});
  NodeGraph width("RoiAlign", 16);
  build(width, x, Host::dense(DType::kFloat, {1, 5}), {0}, Attrs{});
  expect_error(width, gen(), ErrorCode::kInvalidArgument, {"rois must be (num_rois, 4)"});
  NodeGraph count("RoiAlign", 16);
  build(count, x, rois, {0, 0}, Attrs{});
  expect_error(count, gen(), ErrorCode::kInvalidArgument, {"batch_indices must be"});
  NodeGraph inf("RoiAlign", 16);
  build(inf, x, Host::of(DType::kFloat, {1, 4}, {0, 0, std::numeric_limits<double>::infinity(), 2}),
        {0}, Attrs{});
  expect_error(inf, gen(), ErrorCode::kInvalidArgument, {"RoI 0", "not finite"});
  NodeGraph huge("RoiAlign", 16);
  build(huge, x, Host::of(DType::kFloat, {1, 4}, {0, 0, 1e30, 1e30}), {0}, Attrs{});
  expect_error(huge, gen(), ErrorCode::kInvalidArgument, {"RoI 0", "above the limit"});
  Attrs many;
  many.ratio = int64_t{1} << 40;
  NodeGraph ratio("RoiAlign", 16);
  build(ratio, x, rois, {0}, many);
  expect_error(ratio, gen(), ErrorCode::kInvalidArgument, {"above the limit"});
  NodeGraph empty("RoiAlign", 16);
  build(empty, Host::dense(DType::kFloat, {1, 1, 0, 4}), rois, {0}, Attrs{});
  expect_error(empty, gen(), ErrorCode::kInvalidArgument, {"nothing to sample"});
}

}  // namespace
}  // namespace geon::cpu::testing
