// cpu.generic Resize and Upsample against a naive reference written from the spec's formulas:
// per output element, each axis maps its coordinate back (coordinate_transformation_mode),
// takes its taps (nearest rounding, the triangle or Keys cubic kernel, stretched for
// antialias, exclude_outside) and the element is the n-D weighted sum, not computed separably
// as the kernel does. Random odd shapes, up and down scales, strided inputs, sizes with the
// aspect-ratio policies, axes, tf_crop_and_resize, integer data and the older opsets' forms.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

struct Opts {
  std::string mode = "nearest", ctm = "half_pixel", nearest = "round_prefer_floor";
  double a = -0.75;
  bool exclude = false, antialias = false;
  double extrapolation = 0;
};

struct AxisRef {
  int64_t in = 1, out = 1;
  double scale = 1, lo = 0, hi = 1;
};

double coordinate(const Opts& o, const AxisRef& ax, double y) {
  const double in = static_cast<double>(ax.in), width = ax.scale * in;
  if (o.ctm == "half_pixel") return (y + 0.5) / ax.scale - 0.5;
  if (o.ctm == "half_pixel_symmetric")
    return in / 2 * (1 - static_cast<double>(ax.out) / width) + (y + 0.5) / ax.scale - 0.5;
  // A length-1 output maps to -0.5 as in ONNX's reference (the spec's text says 0; the two
  // differ for cubic only).
  if (o.ctm == "pytorch_half_pixel") return width == 1 ? -0.5 : (y + 0.5) / ax.scale - 0.5;
  if (o.ctm == "align_corners") return width == 1 ? 0 : y * (in - 1) / (width - 1);
  if (o.ctm == "asymmetric") return y / ax.scale;
  if (o.ctm == "tf_half_pixel_for_nn") return (y + 0.5) / ax.scale;
  // tf_crop_and_resize
  return (width == 1 ? (ax.hi - ax.lo) * (in - 1) / 2
                     : y * (ax.hi - ax.lo) * (in - 1) / (width - 1)) +
         ax.lo * (in - 1);
}

double keys(double a, double d) {
  d = std::abs(d);
  if (d <= 1) return (a + 2) * d * d * d - (a + 3) * d * d + 1;
  if (d < 2) return a * d * d * d - 5 * a * d * d + 8 * a * d - 4 * a;
  return 0;
}

// The (index, weight) pairs output position y of an axis reads; `outside` for extrapolation.
std::vector<std::pair<int64_t, double>> taps(const Opts& o, const AxisRef& ax, int64_t y,
                                             bool& outside) {
  outside = false;
  if (ax.scale == 1 && ax.out == ax.in && ax.lo == 0 && ax.hi == 1) return {{y, 1.0}};
  const double x = coordinate(o, ax, static_cast<double>(y));
  outside = o.ctm == "tf_crop_and_resize" && (x < 0 || x > static_cast<double>(ax.in - 1));
  auto clamp = [&](int64_t i) { return std::clamp<int64_t>(i, 0, ax.in - 1); };
  const double f = std::floor(x), frac = x - f;
  const auto fi = static_cast<int64_t>(f);
  if (o.mode == "nearest") {
    int64_t i = fi;
    if (frac != 0) {
      if (o.nearest == "round_prefer_floor") i = frac > 0.5 ? fi + 1 : fi;
      if (o.nearest == "round_prefer_ceil") i = frac >= 0.5 ? fi + 1 : fi;
      if (o.nearest == "ceil" || (o.nearest == "simple" && ax.scale < 1)) i = fi + 1;
    }
    return {{clamp(i), 1.0}};
  }
  // Every integer i with a nonzero kernel weight at distance (i - x) * s, s < 1 only when
  // antialiasing a shrinking axis.
  const double s = o.antialias ? std::min(ax.scale, 1.0) : 1.0;
  const double support = (o.mode == "linear" ? 1.0 : 2.0) / s;
  std::vector<std::pair<int64_t, double>> t;
  double sum = 0;
  for (int64_t i = fi - static_cast<int64_t>(support) - 1;
       i <= fi + static_cast<int64_t>(support) + 1; ++i) {
    const double d = (static_cast<double>(i) - x) * s;
    double w = o.mode == "linear" ? std::max(0.0, 1 - std::abs(d)) : keys(o.a, d);
    if (std::abs(d) >= (o.mode == "linear" ? 1.0 : 2.0)) w = 0;
    if (o.exclude && (i < 0 || i >= ax.in)) w = 0;
    if (w == 0) continue;
    t.push_back({clamp(i), w});
    sum += w;
  }
  for (auto& p : t) p.second /= sum;
  return t;
}

// The reference output of x resized per `axes` (one AxisRef per dim).
std::vector<double> reference(const Host& x, const Opts& o, const std::vector<AxisRef>& axes) {
  const int r = static_cast<int>(axes.size());
  Dims out(r);
  for (int k = 0; k < r; ++k) out[k] = axes[k].out;
  std::vector<double> y(static_cast<size_t>(element_count(out)));
  for (int64_t i = 0; i < element_count(out); ++i) {
    std::vector<std::vector<std::pair<int64_t, double>>> per(r);
    bool outside = false;
    for (int k = 0; k < r; ++k) {
      int64_t stride = 1;
      for (int j = k + 1; j < r; ++j) stride *= out[j];
      bool o_k = false;
      per[k] = taps(o, axes[k], i / stride % out[k], o_k);
      outside = outside || o_k;
    }
    if (outside) {
      y[i] = o.extrapolation;
      continue;
    }
    // Sum over every combination of the axes' taps.
    double acc = 0;
    std::vector<size_t> pick(r, 0);
    while (true) {
      int64_t src = 0;
      double w = 1;
      for (int k = 0; k < r; ++k) {
        src = src * axes[k].in + per[k][pick[k]].first;
        w *= per[k][pick[k]].second;
      }
      acc += w * x.at(src);
      int k = r - 1;
      while (k >= 0 && ++pick[k] == per[k].size()) pick[k--] = 0;
      if (k < 0) break;
    }
    y[i] = acc;
  }
  return y;
}

std::vector<AxisRef> by_scales(const Dims& in, const std::vector<double>& scales) {
  std::vector<AxisRef> a(in.size());
  for (size_t k = 0; k < in.size(); ++k)
    a[k] = {in[k],
            static_cast<int64_t>(
                std::floor(static_cast<double>(in[k]) * static_cast<float>(scales[k]))),
            static_cast<float>(scales[k])};
  return a;
}

Host floats(const std::vector<double>& v) {
  return Host::of(DType::kFloat, {static_cast<int64_t>(v.size())}, v);
}

void expect_resized(const Host& got, const Host& x, const Opts& o, const std::vector<AxisRef>& a) {
  const std::vector<double> want = reference(x, o, a);
  Dims shape;
  for (const AxisRef& ax : a) shape.push_back(ax.out);
  expect_values(
      got, shape, [&](int64_t i) { return want[i]; }, 1e-4);
}

// A Resize-19 (or 11) node over x with these options and scales given as an input.
std::unique_ptr<NodeGraph> resize_node(const Host& x, const Opts& o, int opset = 19) {
  auto ng = std::make_unique<NodeGraph>("Resize", opset);
  ng->in(x);
  ng->attr_s("mode", o.mode).attr_s("coordinate_transformation_mode", o.ctm);
  ng->attr_s("nearest_mode", o.nearest).attr_f("cubic_coeff_a", static_cast<float>(o.a));
  ng->attr_i("exclude_outside", o.exclude).attr_i("antialias", o.antialias);
  ng->attr_f("extrapolation_value", static_cast<float>(o.extrapolation));
  return ng;
}

TEST(CpuGenericResize, EveryModeAndCoordinateMappingOnRandomShapes) {
  std::mt19937 rng(41);
  const char* ctms[] = {"half_pixel",    "half_pixel_symmetric", "pytorch_half_pixel",
                        "align_corners", "asymmetric",           "tf_half_pixel_for_nn"};
  const char* roundings[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  const double factors[] = {0.5, 0.6, 0.75, 1.0, 1.3, 2.0, 2.5, 3.0};
  int case_no = 0;
  for (const char* mode : {"nearest", "linear", "cubic"})
    for (const char* ctm : ctms)
      for (int trial = 0; trial < 4; ++trial, ++case_no) {
        Opts o;
        o.mode = mode;
        o.ctm = ctm;
        o.nearest = roundings[case_no % 4];
        o.exclude = mode == std::string("cubic") && trial % 2;
        o.a = trial == 3 ? -0.5 : -0.75;
        const int r = 1 + case_no % 4;
        Dims s = random_shape(rng, r, 7);
        Host x = Host::random(DType::kFloat, s, rng);
        if (r > 1 && trial % 2) {
          std::vector<int64_t> reversed(r);
          for (int k = 0; k < r; ++k) reversed[k] = r - 1 - k;
          x = x.strided(reversed);
        }
        std::vector<double> scales(r);
        for (auto& f : scales) f = factors[rng() % 8];
        auto ng = resize_node(x, o, ctm == std::string("tf_half_pixel_for_nn") ? 11 : 19);
        ng->in(Host::dense(DType::kFloat, {0}), true).in(floats(scales), true).out(DType::kFloat);
        SCOPED_TRACE(std::string(mode) + " " + ctm + " " + o.nearest + " rank " +
                     std::to_string(r) + " scales " + ::testing::PrintToString(scales));
        expect_resized(ng->run(gen())[0], x, o, by_scales(s, scales));
      }
}

TEST(CpuGenericResize, AntialiasWidensTheFilterWhenShrinking) {
  std::mt19937 rng(43);
  for (const char* mode : {"linear", "cubic"})
    for (double f : {0.3, 0.5, 0.6, 1.5}) {
      Opts o;
      o.mode = mode;
      o.antialias = true;
      o.exclude = f == 0.6;
      const Host x = Host::random(DType::kFloat, {2, 9, 11}, rng);
      auto ng = resize_node(x, o);
      ng->omitted().in(floats({1, f, f}), true).out(DType::kFloat);
      SCOPED_TRACE(std::string(mode) + " " + std::to_string(f));
      expect_resized(ng->run(gen())[0], x, o, by_scales(x.shape(), {1, f, f}));
    }
}

TEST(CpuGenericResize, SizesWithAspectPoliciesAndAxes) {
  std::mt19937 rng(47);
  const Host x = Host::random(DType::kFloat, {1, 2, 5, 7}, rng);
  Opts o;
  o.mode = "linear";
  // not_larger: one scale min(3/5, 10/7) = 0.6 -> (3, round(4.2) = 4); not_smaller: 10/7.
  for (const char* policy : {"stretch", "not_larger", "not_smaller"}) {
    auto ng = resize_node(x, o);
    ng->omitted().omitted().in(ints({3, 10}), true).out(DType::kFloat);
    ng->attr_ints("axes", {2, -1}).attr_s("keep_aspect_ratio_policy", policy);
    std::vector<AxisRef> a = {{1, 1, 1}, {2, 2, 1}, {5, 3, 0.6}, {7, 10, 10.0 / 7}};
    if (policy == std::string("not_larger")) a[3] = {7, 4, 0.6};
    if (policy == std::string("not_smaller")) a[2] = {5, 7, 10.0 / 7};
    SCOPED_TRACE(policy);
    expect_resized(ng->run(gen())[0], x, o, a);
  }
  // Sizes read at run time, given for axes in reverse order.
  auto rev = resize_node(x, o);
  rev->omitted().omitted().in(ints({9, 4})).out(DType::kFloat).attr_ints("axes", {3, 2});
  expect_resized(rev->run(gen())[0], x, o, {{1, 1, 1}, {2, 2, 1}, {5, 4, 0.8}, {7, 9, 9.0 / 7}});
}

TEST(CpuGenericResize, TfCropAndResizeExtrapolatesOutsideTheRoi) {
  std::mt19937 rng(53);
  const Host x = Host::random(DType::kFloat, {1, 1, 6, 5}, rng);
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    Opts o;
    o.mode = mode;
    o.ctm = "tf_crop_and_resize";
    o.extrapolation = 7.5;
    auto ng = resize_node(x, o);
    ng->in(floats({0, 0, -0.2, 0.4, 1, 1, 0.7, 1.3}), true).omitted().in(ints({1, 1, 4, 6}), true);
    ng->out(DType::kFloat);
    std::vector<AxisRef> a = {
        {1, 1, 1}, {1, 1, 1}, {6, 4, 4.0 / 6, -0.2, 0.7}, {5, 6, 6.0 / 5, 0.4, 1.3}};
    SCOPED_TRACE(mode);
    expect_resized(ng->run(gen())[0], x, o, a);
  }
}

TEST(CpuGenericResize, IntegerDataRoundsAndNearestStaysExact) {
  std::mt19937 rng(59);
  const Host u8 = Host::random(DType::kUInt8, {3, 4}, rng, 0, 255);
  Opts o;
  o.mode = "cubic";  // cubic overshoots: the result saturates to [0, 255]
  auto ng = resize_node(u8, o);
  ng->omitted().in(floats({2, 1.5}), true).out(DType::kUInt8);
  const std::vector<double> want = reference(u8, o, by_scales({3, 4}, {2, 1.5}));
  expect_values(ng->run(gen())[0], {6, 6},
                [&](int64_t i) { return std::clamp(std::nearbyint(want[i]), 0.0, 255.0); });
  // uint4 (two elements a byte) takes the one-tap interpolation path.
  const Host u4 = Host::random(DType::kUInt4, {3, 5}, rng, 0, 15);
  auto n4 = resize_node(u4, Opts{});
  n4->omitted().in(floats({1.5, 0.6}), true).out(DType::kUInt4);
  expect_resized(n4->run(gen())[0], u4, Opts{}, by_scales({3, 5}, {1.5, 0.6}));
  // int64 values above 2^53 survive a nearest resize bit for bit.
  Host big = Host::dense(DType::kInt64, {2});
  auto* p = reinterpret_cast<int64_t*>(big.bytes->data());
  p[0] = (int64_t{1} << 62) + 1;
  p[1] = -(int64_t{1} << 61) - 3;
  auto nn = resize_node(big, Opts{});
  nn->omitted().in(floats({2}), true).out(DType::kInt64);
  const Host y = nn->run(gen())[0];
  const auto* q = reinterpret_cast<const int64_t*>(y.bytes->data());
  EXPECT_EQ(std::vector<int64_t>(q, q + 4), (std::vector<int64_t>{p[0], p[0], p[1], p[1]}));
}

TEST(CpuGenericResize, UpsampleAndResizeTenRoundDownWhenEnlargingUpWhenShrinking) {
  std::mt19937 rng(61);
  const Host x = Host::random(DType::kFloat, {1, 2, 3, 4}, rng).strided({0, 3, 1, 2});
  Opts o;
  o.ctm = "asymmetric";
  o.nearest = "simple";
  for (const char* mode : {"nearest", "linear"}) {
    o.mode = mode;
    const std::vector<double> scales = {1, 1, 2, 3};
    NodeGraph v7("Upsample", 7);
    v7.in(x).out(DType::kFloat).attr_s("mode", mode);
    Attribute a;
    a.kind = Attribute::Kind::kFloats;
    a.floats = {1, 1, 2, 3};
    v7.node->attrs["scales"] = a;
    NodeGraph v9("Upsample", 9), v10("Resize", 10);
    v9.in(x).in(floats(scales)).out(DType::kFloat).attr_s("mode", mode);
    v10.in(x).in(floats({1, 1, 0.7, 0.6}), true).out(DType::kFloat).attr_s("mode", mode);
    SCOPED_TRACE(mode);
    expect_resized(v7.run(gen())[0], x, o, by_scales(x.shape(), scales));
    expect_resized(v9.run(gen())[0], x, o, by_scales(x.shape(), scales));
    expect_resized(v10.run(gen())[0], x, o, by_scales(x.shape(), {1, 1, 0.7, 0.6}));
  }
}

TEST(CpuGenericResize, LargeResizesRunInParallelParts) {
  // Large enough to be cut across the thread pool: per image slab (N, C before the resized H,
  // W), and per pass when the first axis is resized too (one slab).
  std::mt19937 rng(67);
  const Host image = Host::random(DType::kFloat, {1, 3, 67, 45}, rng);
  const Host matrix = Host::random(DType::kFloat, {301, 203}, rng).strided({1, 0});
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    Opts o;
    o.mode = mode;
    auto ng = resize_node(image, o);
    ng->omitted().in(floats({1, 1, 2, 2}), true).out(DType::kFloat, {1, 3, 134, 90});
    SCOPED_TRACE(mode);
    expect_resized(ng->run(gen())[0], image, o, by_scales(image.shape(), {1, 1, 2, 2}));
    auto m = resize_node(matrix, o);
    m->omitted().in(floats({2, 0.5}), true).out(DType::kFloat, {602, 101});
    expect_resized(m->run(gen())[0], matrix, o, by_scales(matrix.shape(), {2, 0.5}));
  }
}

TEST(CpuGenericResize, BadParametersAreRefusedOrErrors) {
  const Host x = Host::dense(DType::kFloat, {2, 3});
  NodeGraph both("Resize", 13);
  both.in(x).omitted().in(floats({1, 2}), true).out(DType::kFloat);
  both.attr_s("coordinate_transformation_mode", "tf_crop_and_resize");
  expect_error(both, gen(), ErrorCode::kInvalidArgument, {"Resize", "roi"});
  NodeGraph count("Resize", 13);
  count.in(x).omitted().in(floats({2})).out(DType::kFloat);
  expect_error(count, gen(), ErrorCode::kInvalidArgument, {"scales has 1 entries"});
  NodeGraph none("Resize", 13);
  none.in(x).out(DType::kFloat);
  expect_error(none, gen(), ErrorCode::kInvalidArgument, {"neither scales nor sizes"});
  NodeGraph huge("Resize", 13);
  huge.in(x).omitted().in(floats({1e6, 1e6})).out(DType::kFloat);
  expect_error(huge, gen(), ErrorCode::kResourceExhausted, {"Resize", "above the limit"});
  NodeGraph mode("Resize", 13);
  mode.in(x).omitted().in(floats({1, 2}), true).out(DType::kFloat).attr_s("mode", "bilinear");
  ASSERT_TRUE(mode.supports(gen()));
  EXPECT_NE(mode.supports(gen())->find("no mode 'bilinear'"), std::string::npos);
}

}  // namespace
}  // namespace geon::cpu::testing
