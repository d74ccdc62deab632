// cpu.generic GridSample against onnx.reference's algorithm written out naively (nested 1-D
// interpolations, reflection by repeated folding): every mode, padding mode and align_corners
// in 2-D and 3-D, opset 16's mode names, float / double / float16 / bfloat16 / integer data,
// exact nearest sampling of int64 beyond double's precision, strided X and grid, and the
// errors for mismatched shapes and NaN coordinates.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "kernels/cpu/kernel_sets.h"
#include "tests/kernels/cpu/expect_error.h"
#include "tests/kernels/cpu/reference.h"

namespace geon::cpu::testing {
namespace {

const KernelSet& gen() { return generic_kernels(); }

// onnx.reference's GridSample for one (n, c) plane of X, as that code is written.
struct RefPlane {
  const Host& x;
  int64_t base;  // row-major index of X[n, c, 0, ...]
  Dims dims;
  std::string mode, pad;
  bool align;

  double lo(size_t) const { return align ? 0.0 : -0.5; }
  double hi(size_t i) const {
    return align ? static_cast<double>(dims[i]) - 1 : static_cast<double>(dims[i]) - 0.5;
  }
  static double reflect(double x, double lo, double hi) {
    const double rng = hi - lo;
    if (rng == 0) return lo;
    if (x < lo) {
      const double dx = lo - x;
      const auto n = static_cast<int64_t>(dx / rng);
      const double r = dx - static_cast<double>(n) * rng;
      return n % 2 == 0 ? lo + r : hi - r;
    }
    if (x > hi) {
      const double dx = x - hi;
      const auto n = static_cast<int64_t>(dx / rng);
      const double r = dx - static_cast<double>(n) * rng;
      return n % 2 == 0 ? hi - r : lo + r;
    }
    return x;
  }
  // X at integer position idx (one per dim) with the padding rule; offset = flat of dims < d.
  double pixel(std::vector<int64_t> idx) const {
    int64_t flat = 0;
    for (size_t i = 0; i < dims.size(); ++i) {
      int64_t k = idx[i];
      if (pad == "zeros") {
        if (k < 0 || k >= dims[i]) return 0;
      } else if (pad == "border") {
        k = std::min<int64_t>(std::max<int64_t>(k, 0), dims[i] - 1);
      } else {
        k = static_cast<int64_t>(reflect(static_cast<double>(k), lo(i), hi(i)));
      }
      flat = flat * dims[i] + k;
    }
    return x.at(base + flat);
  }
  static void cubic(double t, double c[4]) {
    const double a = -0.75;
    double s = t + 1;
    c[0] = ((a * s - 5 * a) * s + 8 * a) * s - 4 * a;
    c[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
    s = 1 - t;
    c[2] = ((a + 2) * s - (a + 3)) * s * s + 1;
    s = 2 - t;
    c[3] = ((a * s - 5 * a) * s + 8 * a) * s - 4 * a;
  }
  // Interpolation along dims d.. at x, with the leading indices fixed in idx.
  double nested(const std::vector<double>& x, std::vector<int64_t>& idx, size_t d) const {
    if (d == dims.size()) return pixel(idx);
    const double f = std::floor(x[d]);
    const auto x0 = static_cast<int64_t>(f);
    std::vector<double> w;
    std::vector<int64_t> at;
    if (mode == "linear") {
      w = {1 - (x[d] - f), x[d] - f};
      at = {x0, x0 + 1};
    } else {
      double c[4];
      cubic(x[d] - f, c);
      w.assign(c, c + 4);
      at = {x0 - 1, x0, x0 + 1, x0 + 2};
    }
    double sum = 0;
    for (size_t k = 0; k < w.size(); ++k) {
      idx[d] = at[k];
      sum += w[k] * nested(x, idx, d + 1);
    }
    return sum;
  }
  double sample(std::vector<double> x) const {
    // Far outside is all the same to zeros and border padding; keeps the casts below defined.
    for (double& v : x) v = std::min(std::max(v, -1e15), 1e15);
    if (mode == "nearest")
      for (double& v : x) v = std::nearbyint(v);
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i] < lo(i) || x[i] > hi(i)) {
        if (pad == "border")
          x[i] = std::min(std::max(x[i], 0.0), static_cast<double>(dims[i] - 1));
        else if (pad == "reflection")
          x[i] = reflect(x[i], lo(i), hi(i));
      }
    std::vector<int64_t> idx(x.size());
    if (mode == "nearest") {
      for (size_t i = 0; i < x.size(); ++i) idx[i] = static_cast<int64_t>(x[i]);
      return pixel(idx);
    }
    return nested(x, idx, 0);
  }
};

// The expected Y for X, grid (any layout), with the reference's float32 denormalisation.
std::vector<double> reference(const Host& x, const Host& grid, const std::string& mode,
                              const std::string& pad, bool align) {
  const Dims xs = x.shape(), gs = grid.shape();
  const size_t r = xs.size() - 2;
  const Dims dims(xs.begin() + 2, xs.end());
  const int64_t plane = element_count(dims), points = element_count(gs) / gs[0] / r;
  const bool f32 = grid.desc.dtype != DType::kDouble;
  std::vector<double> y;
  for (int64_t n = 0; n < xs[0]; ++n)
    for (int64_t c = 0; c < xs[1]; ++c) {
      const RefPlane p{x, (n * xs[1] + c) * plane, dims, mode, pad, align};
      for (int64_t o = 0; o < points; ++o) {
        std::vector<double> coords(r);
        for (size_t i = 0; i < r; ++i) {
          const double g = grid.at((n * points + o) * static_cast<int64_t>(r) + (r - 1 - i));
          const auto len = static_cast<double>(dims[i]);
          const double v = align ? (g + 1) / 2 * (len - 1) : ((g + 1) * len - 1) / 2;
          if (f32) {
            const auto gf = static_cast<float>(g), lf = static_cast<float>(len);
            coords[i] = align ? (gf + 1.f) / 2.f * (lf - 1.f) : ((gf + 1.f) * lf - 1.f) / 2.f;
          } else {
            coords[i] = v;
          }
        }
        y.push_back(p.sample(coords));
      }
    }
  return y;
}

Dims out_shape(const Host& x, const Host& grid) {
  Dims s = {x.shape()[0], x.shape()[1]};
  const Dims gs = grid.shape();
  s.insert(s.end(), gs.begin() + 1, gs.end() - 1);
  return s;
}

void expect_grid_sample(const Host& x, const Host& grid, const std::string& mode,
                        const std::string& pad, bool align, int opset, double tol) {
  NodeGraph ng("GridSample", opset);
  std::string name = mode;
  if (opset < 20 && mode == "linear") name = "bilinear";
  if (opset < 20 && mode == "cubic") name = "bicubic";
  ng.in(x).in(grid).out(x.desc.dtype).attr_s("mode", name).attr_s("padding_mode", pad);
  ng.attr_i("align_corners", align ? 1 : 0);
  const std::vector<double> want = reference(x, grid, mode, pad, align);
  SCOPED_TRACE(mode + " " + pad + (align ? " align" : "") + " opset " + std::to_string(opset));
  expect_values(
      ng.run(gen())[0], out_shape(x, grid), [&](int64_t i) { return want[i]; }, tol);
}

TEST(CpuGenericGridSample, EveryModeAndPaddingIn2DAnd3D) {
  std::mt19937 rng(21);
  for (int r : {2, 3}) {
    for (const char* mode : {"nearest", "linear", "cubic"}) {
      for (const char* pad : {"zeros", "border", "reflection"}) {
        for (bool align : {false, true}) {
          Dims xs = {1 + static_cast<int64_t>(rng() % 2), 1 + static_cast<int64_t>(rng() % 3)};
          Dims gs = {xs[0]};
          for (int i = 0; i < r; ++i) {
            xs.push_back(1 + static_cast<int64_t>(rng() % 5));
            gs.push_back(1 + static_cast<int64_t>(rng() % 4));
          }
          gs.push_back(r);
          // Coordinates reach well outside [-1, 1], so every padding rule is exercised.
          const Host x = Host::random(DType::kFloat, xs, rng);
          const Host grid = Host::random(DType::kFloat, gs, rng, -2.5, 2.5);
          expect_grid_sample(x, grid, mode, pad, align, 20, 1e-4);
        }
      }
    }
  }
}

TEST(CpuGenericGridSample, Opset16ModeNamesAndOnlyThem) {
  std::mt19937 rng(22);
  const Host x = Host::random(DType::kFloat, {2, 3, 4, 5}, rng);
  const Host grid = Host::random(DType::kFloat, {2, 3, 2, 2}, rng, -1.2, 1.2);
  for (const char* mode : {"nearest", "linear", "cubic"})
    for (const char* pad : {"zeros", "border", "reflection"})
      expect_grid_sample(x, grid, mode, pad, false, 16, 1e-4);
  NodeGraph ng("GridSample", 16);
  ng.in(x).in(grid).out(DType::kFloat).attr_s("mode", "linear");
  EXPECT_TRUE(ng.supports(gen()).has_value());  // opset 16 says bilinear
  NodeGraph ng20("GridSample", 20);
  ng20.in(x).in(grid).out(DType::kFloat).attr_s("mode", "bicubic");
  EXPECT_TRUE(ng20.supports(gen()).has_value());  // 20 says cubic
}

TEST(CpuGenericGridSample, DefaultsAreLinearZerosWithoutAlign) {
  std::mt19937 rng(23);
  const Host x = Host::random(DType::kFloat, {1, 2, 3, 4}, rng);
  const Host grid = Host::random(DType::kFloat, {1, 2, 3, 2}, rng, -1.5, 1.5);
  for (int opset : {16, 20}) {
    NodeGraph ng("GridSample", opset);
    ng.in(x).in(grid).out(DType::kFloat);
    const std::vector<double> want = reference(x, grid, "linear", "zeros", false);
    expect_values(
        ng.run(gen())[0], out_shape(x, grid), [&](int64_t i) { return want[i]; }, 1e-4);
  }
}

TEST(CpuGenericGridSample, FloatTypesAndMixedGridType) {
  std::mt19937 rng(24);
  struct Case {
    DType x, grid;
    double tol;
  };
  for (const Case& c :
       {Case{DType::kDouble, DType::kDouble, 1e-9}, Case{DType::kFloat16, DType::kFloat, 4e-3},
        Case{DType::kBFloat16, DType::kBFloat16, 2e-2}, Case{DType::kDouble, DType::kFloat16, 1e-9},
        Case{DType::kFloat, DType::kDouble, 1e-5}}) {
    for (const char* mode : {"nearest", "linear", "cubic"}) {
      const Host x = Host::random(c.x, {2, 2, 3, 4, 3}, rng);
      const Host grid = Host::random(c.grid, {2, 2, 3, 2, 3}, rng, -1.3, 1.3);
      expect_grid_sample(x, grid, mode, "border", true, 22, c.tol);
    }
  }
}

TEST(CpuGenericGridSample, IntegerAndBoolData) {
  std::mt19937 rng(25);
  for (DType t : {DType::kInt32, DType::kUInt8, DType::kInt8, DType::kInt64, DType::kBool}) {
    const Host x = Host::random(t, {1, 2, 4, 5}, rng, 0, t == DType::kBool ? 2 : 100);
    const Host grid = Host::random(DType::kFloat, {1, 3, 3, 2}, rng, -1.2, 1.2);
    expect_grid_sample(x, grid, "nearest", "reflection", false, 20, 0);
    // Linear: computed in double, stored with truncation toward zero (numpy's astype).
    NodeGraph ng("GridSample", 20);
    ng.in(x).in(grid).out(t).attr_s("padding_mode", "border");
    const std::vector<double> want = reference(x, grid, "linear", "border", false);
    const Host got = ng.run(gen())[0];
    for (int64_t i = 0; i < element_count(got.shape()); ++i) {
      const double w = t == DType::kBool ? (want[i] != 0 ? 1.0 : 0.0) : std::trunc(want[i]);
      EXPECT_NEAR(got.at(i), w, t == DType::kBool ? 0 : 1) << "at " << i;
    }
  }
}

TEST(CpuGenericGridSample, NearestCopiesInt64Exactly) {
  // Values above 2^53 differ in their last bits: a pass through double would merge them.
  Host x = Host::dense(DType::kInt64, {1, 1, 2, 3});
  auto* v = reinterpret_cast<int64_t*>(x.bytes->data());
  for (int64_t i = 0; i < 6; ++i) v[i] = (int64_t{1} << 60) + i;
  const Host grid =
      Host::of(DType::kFloat, {1, 1, 6, 2}, {-1, -1, 0, -1, 1, -1, -1, 1, 0, 1, 1, 1});
  NodeGraph ng("GridSample", 20);
  ng.in(x).in(grid).out(DType::kInt64).attr_s("mode", "nearest").attr_i("align_corners", 1);
  const Host y = ng.run(gen())[0];
  const auto* got = reinterpret_cast<const int64_t*>(y.bytes->data());
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(got[i], v[i]) << i;
}

TEST(CpuGenericGridSample, StridedXAndGrid) {
  std::mt19937 rng(26);
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    const Host x = Host::random(DType::kFloat, {2, 3, 4, 5}, rng).strided({3, 1, 0, 2});
    const Host grid =
        Host::random(DType::kFloat, {2, 3, 4, 2}, rng, -1.5, 1.5).strided({3, 2, 0, 1});
    expect_grid_sample(x, grid, mode, "reflection", true, 20, 1e-4);
  }
}

TEST(CpuGenericGridSample, FarAndInfiniteCoordinatesReadThePadding) {
  const Host x = Host::of(DType::kFloat, {1, 1, 2, 2}, {1, 2, 3, 4});
  const double inf = std::numeric_limits<double>::infinity();
  const Host grid = Host::of(DType::kFloat, {1, 1, 3, 2}, {inf, 0, -1e30, 0, 0, -inf});
  for (const char* pad : {"zeros", "border"})
    for (const char* mode : {"nearest", "linear", "cubic"})
      expect_grid_sample(x, grid, mode, pad, false, 20, 1e-5);
  // Reflection folds them somewhere inside: any value of the image range, never a crash.
  for (const char* mode : {"nearest", "linear"}) {
    NodeGraph ng("GridSample", 20);
    ng.in(x).in(grid).out(DType::kFloat).attr_s("mode", mode).attr_s("padding_mode", "reflection");
    const Host y = ng.run(gen())[0];
    for (int64_t i = 0; i < 3; ++i) {
      EXPECT_GE(y.at(i), 1.0);
      EXPECT_LE(y.at(i), 4.0);
    }
  }
}

TEST(CpuGenericGridSample, BadShapesAndNaNAreErrors) {
  const Host x = Host::of(DType::kFloat, {1, 1, 2, 2}, {1, 2, 3, 4});
  NodeGraph last("GridSample", 20);
  last.in(x).in(Host::dense(DType::kFloat, {1, 2, 2, 3})).out(DType::kFloat);
  expect_error(last, gen(), ErrorCode::kInvalidArgument, {"GridSample", "last dim is 3"});
  NodeGraph rank("GridSample", 20);
  rank.in(x).in(Host::dense(DType::kFloat, {1, 2, 2, 2, 2})).out(DType::kFloat);
  expect_error(rank, gen(), ErrorCode::kInvalidArgument, {"grid has rank 5"});
  NodeGraph batch("GridSample", 20);
  batch.in(x).in(Host::dense(DType::kFloat, {2, 2, 2, 2})).out(DType::kFloat);
  expect_error(batch, gen(), ErrorCode::kInvalidArgument, {"batch size 2"});
  NodeGraph nan("GridSample", 20);
  nan.in(x).in(Host::of(DType::kFloat, {1, 1, 1, 2}, {0.5, std::nan("")})).out(DType::kFloat);
  expect_error(nan, gen(), ErrorCode::kInvalidArgument, {"NaN", "coordinate 1"});
  // Cubic in 10 spatial dims would combine 4^10 pixels per point: refused, not attempted.
  NodeGraph wide("GridSample", 20);
  Dims gs(12, 1);
  gs.back() = 10;
  wide.in(Host::dense(DType::kFloat, Dims(12, 1))).in(Host::dense(DType::kFloat, gs));
  wide.out(DType::kFloat).attr_s("mode", "cubic");
  expect_error(wide, gen(), ErrorCode::kNotSupported, {"10 spatial dims"});
  NodeGraph strings("GridSample", 20);
  strings.in(Host::dense(DType::kString, {1, 1, 1, 1}))
      .in(Host::dense(DType::kFloat, {1, 1, 1, 2}));
  strings.out(DType::kString);
  EXPECT_TRUE(strings.supports(gen()).has_value());
}

TEST(CpuGenericGridSample, EmptyOutputsAndSinglePixels) {
  std::mt19937 rng(27);
  NodeGraph empty("GridSample", 20);
  empty.in(Host::random(DType::kFloat, {1, 2, 3, 3}, rng))
      .in(Host::dense(DType::kFloat, {1, 0, 3, 2}));
  empty.out(DType::kFloat);
  EXPECT_EQ(empty.run(gen())[0].shape(), (Dims{1, 2, 0, 3}));
  // A 1-pixel dim under align_corners has no room to reflect in: everything reads pixel 0.
  const Host x = Host::random(DType::kFloat, {1, 1, 1, 3}, rng);
  const Host grid = Host::random(DType::kFloat, {1, 2, 2, 2}, rng, -3, 3);
  for (const char* mode : {"nearest", "linear", "cubic"})
    expect_grid_sample(x, grid, mode, "reflection", true, 20, 1e-4);
}

}  // namespace
}  // namespace geon::cpu::testing
