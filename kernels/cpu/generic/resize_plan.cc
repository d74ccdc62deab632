// Resize's per-axis tables (resize_plan.h). The formulas are the ONNX spec's and its reference
// implementation's, in its order of operations (so ties in nearest rounding fall the same way):
// the source coordinate x of each output position, ratio = x - floor(x) (1 when x is a whole
// number), the coefficients of that ratio, and the window of taps nearest to x, edge-clamped.
#include "kernels/cpu/generic/resize_plan.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu::resize {
namespace {

using Ints = std::vector<int64_t>;
using Doubles = std::vector<double>;

template <typename E>
std::optional<E> pick(const std::string& v, std::initializer_list<std::pair<const char*, E>> l) {
  for (const auto& [name, e] : l)
    if (v == name) return e;
  return std::nullopt;
}

// The interpolation coefficients for one output position (their count is fixed per axis).
Doubles coefficients(const Settings& s, double ratio, double scale) {
  switch (s.mode) {
    case Mode::kNearest: {
      if (ratio == 1) return {0, 1};
      bool up = false;
      switch (s.rounding) {
        case Rounding::kRoundPreferFloor:
          up = ratio > 0.5;
          break;
        case Rounding::kRoundPreferCeil:
          up = ratio >= 0.5;
          break;
        case Rounding::kFloor:
          up = false;
          break;
        case Rounding::kCeil:
          up = true;
          break;
        case Rounding::kSimple:
          up = scale < 1;
          break;
      }
      return {up ? 0.0 : 1.0, up ? 1.0 : 0.0};
    }
    case Mode::kLinear: {
      if (!s.antialias) return {1 - ratio, ratio};
      // The triangle filter stretched by 1 / scale when shrinking.
      const double sc = std::min(scale, 1.0);
      const int64_t start = static_cast<int64_t>(std::floor(-1 / sc) + 1);
      const int64_t n = 2 - 2 * start;
      Doubles c(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i)
        c[i] = std::clamp(1 - std::abs((static_cast<double>(start + i) - ratio) * sc), 0.0, 1.0);
      const double sum = std::accumulate(c.begin(), c.end(), 0.0);
      for (double& v : c) v /= sum;
      return c;
    }
    case Mode::kCubic: {
      const double A = s.cubic_a;
      if (!s.antialias) {
        const double r = ratio, q = 1 - ratio;
        return {((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A,
                ((A + 2) * r - (A + 3)) * r * r + 1, ((A + 2) * q - (A + 3)) * q * q + 1,
                ((A * (q + 1) - 5 * A) * (q + 1) + 8 * A) * (q + 1) - 4 * A};
      }
      // Keys' cubic stretched by 1 / scale when shrinking, renormalised.
      const double sc = std::min(scale, 1.0);
      const int64_t first = static_cast<int64_t>(std::floor(-2 / sc) + 1);
      const int64_t last = 2 - first;
      Doubles c;
      for (int64_t i = first; i < last; ++i) {
        const double x = std::abs(sc * (static_cast<double>(i) - ratio));
        const double x2 = x * x, x3 = x * x2;
        c.push_back(x <= 1  ? (A + 2) * x3 - (A + 3) * x2 + 1
                    : x < 2 ? A * x3 - 5 * A * x2 + 8 * A * x - 4 * A
                            : 0.0);
      }
      const double sum = std::accumulate(c.begin(), c.end(), 0.0);
      for (double& v : c) v /= sum;
      return c;
    }
  }
  return {};
}

AxisTaps axis_taps(const Settings& s, int axis, int64_t in_len, int64_t out_len, double scale,
                   double roi_start, double roi_end) {
  AxisTaps a;
  a.axis = axis;
  a.in_len = in_len;
  a.out_len = out_len;
  const bool nearest = s.mode == Mode::kNearest;
  for (int64_t y = 0; y < out_len; ++y) {
    double x = source_coordinate(s.coord, static_cast<double>(y), scale, in_len, out_len, roi_start,
                                 roi_end);
    require(std::isfinite(x), [&] {
      return "output position " + std::to_string(y) + " of axis " + std::to_string(axis) +
             " maps to a coordinate that is not finite";
    });
    // Far outside the input every tap reads the edge anyway; this keeps the casts defined.
    x = std::clamp(x, -4.0e15, 4.0e15);
    if (s.coord == Coord::kTfCropAndResize && (x < 0 || x > static_cast<double>(in_len - 1))) {
      if (a.outside.empty()) a.outside.assign(static_cast<size_t>(out_len), 0);
      a.outside[y] = 1;
    }
    const double fx = std::floor(x);
    Doubles c = coefficients(s, x == fx ? 1.0 : x - fx, scale);
    // The n (even) taps around x: floor(x) - n/2 + 1 onwards, or x - n/2 when x is whole (the
    // ratio of 1 above puts x at tap n/2). Taken from x itself, not from x shifted by a pad as
    // ONNX's reference does: there a coordinate a rounding error above a whole number gets the
    // window of the whole number with the weights of the next one.
    const int64_t n = static_cast<int64_t>(c.size());
    const int64_t start = static_cast<int64_t>(fx) - n / 2 + (x == fx ? 0 : 1);
    if (s.exclude_outside && !nearest) {
      double sum = 0;
      for (int64_t t = 0; t < n; ++t) {
        if (start + t < 0 || start + t >= in_len) c[t] = 0;
        sum += c[t];
      }
      if (sum != 0)
        for (double& v : c) v /= sum;
    }
    if (nearest) {
      // One tap: the coefficient that is 1.
      a.index.push_back(std::clamp<int64_t>(start + (c[1] == 1 ? 1 : 0), 0, in_len - 1));
      a.weight.push_back(1);
      continue;
    }
    a.taps = static_cast<int>(n);
    if (in_len >= n) {
      // A window over the edge reads the edge element more than once: slide it inside and
      // add those weights up, so every window is n consecutive indices.
      const int64_t first = std::clamp<int64_t>(start, 0, in_len - n);
      Doubles merged(static_cast<size_t>(n), 0.0);
      for (int64_t t = 0; t < n; ++t)
        merged[std::clamp<int64_t>(start + t, 0, in_len - 1) - first] += c[t];
      for (int64_t t = 0; t < n; ++t) {
        a.index.push_back(first + t);
        a.weight.push_back(merged[t]);
      }
      continue;
    }
    a.consecutive = false;
    for (int64_t t = 0; t < n; ++t) {
      a.index.push_back(std::clamp<int64_t>(start + t, 0, in_len - 1));
      a.weight.push_back(c[t]);
    }
  }
  return a;
}

// What a pass order costs: the elements each pass writes times its taps, passes along the
// innermost dim (a gather per element rather than a vector loop) counted four times.
double order_cost(const std::vector<AxisTaps>& axes, const std::vector<size_t>& order, Ints shape) {
  double cost = 0;
  for (size_t i : order) {
    const AxisTaps& a = axes[i];
    shape[a.axis] = a.out_len;
    int64_t inner = 1;
    for (size_t k = a.axis + 1; k < shape.size(); ++k) inner *= shape[k];
    double elems = 1;
    for (int64_t len : shape) elems *= static_cast<double>(len);
    cost += elems * a.taps * (inner == 1 ? 4 : 1);
  }
  return cost;
}

bool close(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

}  // namespace

double source_coordinate(Coord c, double y, double scale, int64_t in_len, int64_t out_len,
                         double roi_start, double roi_end) {
  const double in = static_cast<double>(in_len);
  const double width = scale * in;  // the unrounded output length
  switch (c) {
    case Coord::kAlignCorners:
      return width == 1 ? 0.0 : y * (in - 1) / (width - 1);
    case Coord::kAsymmetric:
      return y / scale;
    case Coord::kTfCropAndResize: {
      const double x = width == 1 ? (roi_end - roi_start) * (in - 1) / 2
                                  : y * (roi_end - roi_start) * (in - 1) / (width - 1);
      return x + roi_start * (in - 1);
    }
    case Coord::kPytorchHalfPixel:
      return width == 1 ? -0.5 : (y + 0.5) / scale - 0.5;
    case Coord::kHalfPixel:
      return (y + 0.5) / scale - 0.5;
    case Coord::kHalfPixelSymmetric: {
      const double adjustment = static_cast<double>(out_len) / width;
      const double offset = in / 2 * (1 - adjustment);
      return offset + (y + 0.5) / scale - 0.5;
    }
    case Coord::kTfHalfPixelForNn:
      return (y + 0.5) / scale;
  }
  return y;
}

Reason read_settings(const Node& n, Settings& s) {
  const int v = n.opset;
  const std::string mode = attr_string(n, "mode", "nearest");
  const auto m = pick<Mode>(mode, {{"nearest", Mode::kNearest},
                                   {"linear", Mode::kLinear},
                                   {"bilinear", Mode::kLinear},
                                   {"cubic", Mode::kCubic}});
  const bool upsample_1 = n.op == "Upsample" && v < 7;
  if (!m || (mode == "bilinear" && !upsample_1) || (mode == "linear" && upsample_1) ||
      (*m == Mode::kCubic && (n.op == "Upsample" || v < 11)))
    return n.op + "-" + std::to_string(v) + " has no mode '" + mode + "'";
  s.mode = *m;
  if (n.op == "Upsample" || v < 11) {
    // Before Resize-11 the coordinates are x / scale; nearest rounds down when enlarging
    // (numpy's repeat for whole scales, as ONNX's reference) and up when shrinking (the spec
    // says nothing; ONNX Runtime does this).
    s.coord = Coord::kAsymmetric;
    s.rounding = Rounding::kSimple;
    if (n.op == "Resize") {
      s.scales_at = 1;
    } else if (v >= 9) {
      s.scales_at = 1;
    } else if (v >= 7) {
      const Attribute* a = n.attr("scales");
      if (!a) return std::string("Upsample-7 needs its scales attribute");
      s.fixed_scales = Doubles(a->floats.begin(), a->floats.end());
    } else {
      s.fixed_scales =
          Doubles{1, 1, attr_float(n, "height_scale", 1), attr_float(n, "width_scale", 1)};
    }
    return std::nullopt;
  }
  const std::string ctm = attr_string(n, "coordinate_transformation_mode", "half_pixel");
  const auto c = pick<Coord>(ctm, {{"half_pixel", Coord::kHalfPixel},
                                   {"half_pixel_symmetric", Coord::kHalfPixelSymmetric},
                                   {"pytorch_half_pixel", Coord::kPytorchHalfPixel},
                                   {"align_corners", Coord::kAlignCorners},
                                   {"asymmetric", Coord::kAsymmetric},
                                   {"tf_half_pixel_for_nn", Coord::kTfHalfPixelForNn},
                                   {"tf_crop_and_resize", Coord::kTfCropAndResize}});
  if (!c) return "coordinate_transformation_mode '" + ctm + "' is unknown";
  s.coord = *c;
  const std::string nm = attr_string(n, "nearest_mode", "round_prefer_floor");
  const auto r = pick<Rounding>(nm, {{"round_prefer_floor", Rounding::kRoundPreferFloor},
                                     {"round_prefer_ceil", Rounding::kRoundPreferCeil},
                                     {"floor", Rounding::kFloor},
                                     {"ceil", Rounding::kCeil}});
  if (!r) return "nearest_mode '" + nm + "' is unknown";
  s.rounding = *r;
  s.cubic_a = attr_float(n, "cubic_coeff_a", -0.75f);
  s.exclude_outside = attr_int(n, "exclude_outside", 0) != 0;
  s.extrapolation = attr_float(n, "extrapolation_value", 0.0f);
  s.roi_at = 1;
  s.scales_at = 2;
  s.sizes_at = 3;
  if (v >= 18) {
    s.antialias = attr_int(n, "antialias", 0) != 0;
    s.axes = attr_ints(n, "axes").value_or(Ints{});
    const std::string p = attr_string(n, "keep_aspect_ratio_policy", "stretch");
    const auto pol = pick<Policy>(p, {{"stretch", Policy::kStretch},
                                      {"not_larger", Policy::kNotLarger},
                                      {"not_smaller", Policy::kNotSmaller}});
    if (!pol) return "keep_aspect_ratio_policy '" + p + "' is unknown";
    s.policy = *pol;
  }
  return std::nullopt;
}

Plan make_plan(const Settings& s, const Ints& in_shape, const Doubles& roi, const Doubles& scales,
               const Ints& sizes, const std::function<void(const Ints&)>& on_shape) {
  const int r = static_cast<int>(in_shape.size());
  Ints axes;
  std::vector<bool> seen(r, false);
  for (int64_t a : s.axes) {
    const int k = normalize_axis(a, r);
    require(!seen[k], [&] { return "axes names axis " + std::to_string(k) + " twice"; });
    seen[k] = true;
    axes.push_back(k);
  }
  if (s.axes.empty())
    for (int k = 0; k < r; ++k) axes.push_back(k);
  const size_t n = axes.size();
  Doubles scale(r, 1.0), lo(r, 0.0), hi(r, 1.0);
  Plan p;
  p.out_shape = in_shape;
  if (!scales.empty()) {
    require(scales.size() == n, [&] {
      return "scales has " + std::to_string(scales.size()) + " entries; expected " +
             std::to_string(n);
    });
    for (size_t i = 0; i < n; ++i) {
      const double sc = scales[i];
      require(sc > 0 && std::isfinite(sc), [&] {
        return "scales[" + std::to_string(i) + "] is " + std::to_string(sc) +
               "; scales must be positive";
      });
      const double len = std::floor(static_cast<double>(in_shape[axes[i]]) * sc);
      require(len < 9.0e18,
              [&] { return "scales make axis " + std::to_string(axes[i]) + " too long"; });
      scale[axes[i]] = sc;
      p.out_shape[axes[i]] = static_cast<int64_t>(len);
    }
  } else {
    require(!sizes.empty(), "neither scales nor sizes is given");
    require(sizes.size() == n, [&] {
      return "sizes has " + std::to_string(sizes.size()) + " entries; expected " +
             std::to_string(n);
    });
    for (size_t i = 0; i < n; ++i) {
      const int64_t in = in_shape[axes[i]];
      require(sizes[i] >= 0,
              [&] { return "sizes has the negative entry " + std::to_string(sizes[i]); });
      require(in > 0 || sizes[i] == 0, [&] {
        return "axis " + std::to_string(axes[i]) + " is empty and cannot be resized to " +
               std::to_string(sizes[i]);
      });
      scale[axes[i]] = in > 0 ? static_cast<double>(sizes[i]) / static_cast<double>(in) : 1.0;
      p.out_shape[axes[i]] = sizes[i];
    }
    if (s.policy != Policy::kStretch && n > 0) {
      double one = scale[axes[0]];
      for (int64_t a : axes)
        one = s.policy == Policy::kNotLarger ? std::min(one, scale[a]) : std::max(one, scale[a]);
      for (int64_t a : axes) {
        scale[a] = one;
        const double len = one * static_cast<double>(in_shape[a]) + 0.5;
        require(len < 9.0e18, [&] { return "sizes make axis " + std::to_string(a) + " too long"; });
        p.out_shape[a] = static_cast<int64_t>(len);
      }
    }
  }
  if (s.coord == Coord::kTfCropAndResize) {
    require(roi.size() == 2 * n, [&] {
      return "roi has " + std::to_string(roi.size()) + " entries; expected " +
             std::to_string(2 * n);
    });
    for (size_t i = 0; i < n; ++i) {
      lo[axes[i]] = roi[i];
      hi[axes[i]] = roi[n + i];
    }
  }
  // The tables hold an entry per output position: bound the output before making them.
  check_output_size(DType::kUInt8, p.out_shape, "the resized output");
  if (on_shape) on_shape(p.out_shape);
  if (element_count(p.out_shape) == 0) return p;  // nothing to interpolate
  for (int64_t a : axes) {
    const bool identity =
        close(scale[a], 1.0) && p.out_shape[a] == in_shape[a] && lo[a] == 0 && close(hi[a], 1.0);
    if (identity) continue;
    require(in_shape[a] > 0,
            [&] { return "axis " + std::to_string(a) + " is empty and cannot be resized"; });
    p.axes.push_back(
        axis_taps(s, static_cast<int>(a), in_shape[a], p.out_shape[a], scale[a], lo[a], hi[a]));
  }
  // The cheapest order of the passes (shrinking axes early, the gather along the innermost
  // dim where the data is small); every order for up to 5 axes, else shrinking ones first.
  if (p.axes.size() > 5) {
    std::stable_sort(p.axes.begin(), p.axes.end(), [](const AxisTaps& x, const AxisTaps& y) {
      return static_cast<double>(x.out_len) / static_cast<double>(x.in_len) <
             static_cast<double>(y.out_len) / static_cast<double>(y.in_len);
    });
    return p;
  }
  std::vector<size_t> perm(p.axes.size()), best;
  std::iota(perm.begin(), perm.end(), 0);
  double best_cost = INFINITY;
  do {
    const double c = order_cost(p.axes, perm, in_shape);
    if (c < best_cost) {
      best_cost = c;
      best = perm;
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
  std::vector<AxisTaps> sorted;
  for (size_t i : best) sorted.push_back(std::move(p.axes[i]));
  p.axes = std::move(sorted);
  return p;
}

}  // namespace geon::cpu::resize
