// Import rules for Resize (opsets 10, 11, 13, 18, 19) and Upsample (1, 7, 9). The output
// length of a resized axis is floor(length * scale), or the `sizes` entry (symbolic entries
// included), adjusted by keep_aspect_ratio_policy; an axis whose length does not change keeps
// its Axis object, a resized one is a new axis of its class.
#include <cmath>
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/shape_contents.h"
#include "importer/ops/shape_fold.h"
#include "importer/ops/shape_parts.h"

namespace geon::importer {
namespace {

// What the rule learned about the target: scales or sizes for the axes in `axes`.
struct Target {
  std::vector<int> axes;
  std::optional<std::vector<double>> scales;  // when given and known
  std::optional<std::vector<Length>> sizes;   // when given and known
  std::string policy = "stretch";
};

void one_of(RuleContext& c, const std::string& what, const std::string& v,
            std::initializer_list<const char*> allowed) {
  std::string list;
  for (const char* a : allowed) {
    if (v == a) return;
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  c.fail("attribute '" + what + "' is '" + v + "'; expected one of " + list);
}

void resized_output(RuleContext& c, const Target& t) {
  const Value& in = c.input(0);
  const int r = in.rank();
  const auto n = t.axes.size();
  std::vector<Length> lens = lengths(in.axes);
  if (t.scales) {
    if (t.scales->size() != n)
      c.fail("scales has " + std::to_string(t.scales->size()) + " entries; expected " +
             std::to_string(n));
    for (size_t k = 0; k < n; ++k) {
      const double s = (*t.scales)[k];
      if (!(s > 0) || !std::isfinite(s))
        c.fail("scales entry " + std::to_string(k) + " is " + std::to_string(s) +
               "; scales must be positive");
      Length& l = lens[t.axes[k]];
      if (l.is_static()) {
        const double v = std::floor(static_cast<double>(l.value) * s);
        if (v > 9.0e18) c.fail("scales entry " + std::to_string(k) + " makes the axis too long");
        l = Length::known(static_cast<int64_t>(v));
      } else if (s != 1.0) {
        l = Length::unknown();
      }
    }
  } else if (t.sizes) {
    if (t.sizes->size() != n)
      c.fail("sizes has " + std::to_string(t.sizes->size()) + " entries; expected " +
             std::to_string(n));
    for (const Length& s : *t.sizes)
      if (s.is_static() && s.value < 0)
        c.fail("sizes has the negative entry " + std::to_string(s.value));
    if (t.policy == "stretch") {
      for (size_t k = 0; k < n; ++k) lens[t.axes[k]] = (*t.sizes)[k];
    } else {
      // One scale for all the axes, chosen so that no extent exceeds (not_larger) or falls
      // short of (not_smaller) its size; needs every length and size now.
      bool known = all_static(*t.sizes);
      double scale = t.policy == "not_larger" ? INFINITY : 0;
      for (size_t k = 0; k < n && known; ++k) {
        const Length& l = lens[t.axes[k]];
        if (!l.is_static() || l.value == 0) {
          known = false;
          break;
        }
        const double s = static_cast<double>((*t.sizes)[k].value) / static_cast<double>(l.value);
        scale = t.policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
      }
      for (size_t k = 0; k < n; ++k) {
        Length& l = lens[t.axes[k]];
        const double v = known ? std::floor(scale * static_cast<double>(l.value) + 0.5) : 0;
        if (v > 9.0e18) c.fail("sizes make axis " + std::to_string(t.axes[k]) + " too long");
        l = known ? Length::known(static_cast<int64_t>(v)) : Length::unknown();
      }
    }
  } else {
    for (int a : t.axes) lens[a] = Length::unknown();
  }
  std::vector<Axis> out;
  for (int k = 0; k < r; ++k) {
    const Axis& src = in.axes[k];
    if (compare_lengths(lens[k], src.length) == LengthRelation::kEqual)
      out.push_back(src);
    else
      out.push_back(make_axis_like(c.graph().factory(), src, lens[k]));
  }
  c.set_output(0, in.dtype(), Axes(std::move(out)));
}

// A float list input (scales): its values when constant; whether it is given and not empty.
std::optional<std::vector<double>> float_list(RuleContext& c, int i, bool& given) {
  given = false;
  if (!c.has_input(i)) return std::nullopt;
  const Value& v = c.input(i);
  if (v.rank_known && v.rank() != 1)
    c.fail("input " + std::to_string(i) + " (scales) must be 1-D, got rank " +
           std::to_string(v.rank()));
  const auto st = c.static_shape(i);
  if (st && (*st)[0] == 0) return std::nullopt;  // an empty tensor stands for "not given"
  given = true;
  const TensorData* d = constant_input(c, i);
  if (!d) return std::nullopt;
  std::vector<double> out;
  for (int64_t k = 0; k < d->elements(); ++k) out.push_back(element_as_double(*d, k));
  return out;
}

void resize(RuleContext& c) {
  const int v = c.opset();
  const std::string mode = c.attr_string("mode", "nearest");
  if (v < 11)
    one_of(c, "mode", mode, {"nearest", "linear"});
  else
    one_of(c, "mode", mode, {"nearest", "linear", "cubic"});
  if (v >= 11) {
    const std::string ctm = c.attr_string("coordinate_transformation_mode", "half_pixel");
    if (v < 13)
      one_of(c, "coordinate_transformation_mode", ctm,
             {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
              "tf_half_pixel_for_nn", "tf_crop_and_resize"});
    else if (v < 19)
      one_of(c, "coordinate_transformation_mode", ctm,
             {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
              "tf_crop_and_resize"});
    else
      one_of(c, "coordinate_transformation_mode", ctm,
             {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
              "asymmetric", "tf_crop_and_resize"});
    one_of(c, "nearest_mode", c.attr_string("nearest_mode", "round_prefer_floor"),
           {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"});
  }
  Target t;
  if (v >= 18) {
    t.policy = c.attr_string("keep_aspect_ratio_policy", "stretch");
    one_of(c, "keep_aspect_ratio_policy", t.policy, {"stretch", "not_larger", "not_smaller"});
  }
  // Inputs: (X, scales) at 10; (X, roi, scales, sizes) from 11.
  const int scales_at = v < 11 ? 1 : 2;
  if (c.has_input(scales_at)) require_dtype(c, scales_at, {DType::kFloat});
  if (v >= 11 && c.has_input(3)) require_dtype(c, 3, {DType::kInt64});
  bool scales_given = false;
  const auto scales = float_list(c, scales_at, scales_given);
  bool sizes_given = false;
  if (v >= 11 && c.has_input(3)) {
    const auto st = c.static_shape(3);
    sizes_given = !(st && st->size() == 1 && (*st)[0] == 0);
  }
  if (v < 11 && !c.has_input(1)) c.fail("input 1 (scales) is required but missing");
  if (scales_given && sizes_given)
    c.fail("input 2 (scales) and input 3 (sizes) are both given; only one may be");
  if (!scales_given && !sizes_given)
    c.fail(v < 11 ? "input 1 (scales) is empty"
                  : "one of input 2 (scales) and input 3 (sizes) must be given");
  const Value& in = c.input(0);
  if (!in.rank_known) return c.set_output_unknown_rank(0, in.dtype());
  const int r = in.rank();
  if (v >= 18 && c.has_attr("axes")) {
    t.axes = normalize_axes(c, c.attr_ints("axes"), r, "attribute 'axes'");
  } else {
    for (int k = 0; k < r; ++k) t.axes.push_back(k);
  }
  if (scales_given) t.scales = scales;
  if (sizes_given) {
    const Value& s = c.input(3);
    if (s.rank_known && s.rank() != 1)
      c.fail("input 3 (sizes) must be 1-D, got rank " + std::to_string(s.rank()));
    t.sizes = c.contents(3);
  }
  resized_output(c, t);
}

// ---- Upsample --------------------------------------------------------------------------------

void upsample_with(RuleContext& c, const std::optional<std::vector<double>>& scales) {
  const Value& in = c.input(0);
  if (!in.rank_known) return c.set_output_unknown_rank(0, in.dtype());
  Target t;
  for (int k = 0; k < in.rank(); ++k) t.axes.push_back(k);
  if (scales) {
    if (static_cast<int>(scales->size()) != in.rank())
      c.fail("scales has " + std::to_string(scales->size()) + " entries for an input of rank " +
             std::to_string(in.rank()));
    for (double s : *scales)
      if (!(s >= 1)) c.fail("scales " + std::to_string(s) + " is below 1; Upsample only enlarges");
  }
  t.scales = scales;
  resized_output(c, t);
}

void upsample_1(RuleContext& c) {
  one_of(c, "mode", c.attr_string("mode", "nearest"), {"nearest", "bilinear"});
  const Value& in = c.input(0);
  if (in.rank_known && in.rank() != 4)
    c.fail("input 0 must be 4-D (N, C, H, W), got rank " + std::to_string(in.rank()));
  const double hs = c.attr_float("height_scale"), ws = c.attr_float("width_scale");
  upsample_with(c, std::vector<double>{1.0, 1.0, hs, ws});
}

void upsample_7(RuleContext& c) {
  one_of(c, "mode", c.attr_string("mode", "nearest"), {"nearest", "linear"});
  std::vector<double> s;
  for (float f : c.attr_floats("scales")) s.push_back(f);
  upsample_with(c, s);
}

void upsample_9(RuleContext& c) {
  one_of(c, "mode", c.attr_string("mode", "nearest"), {"nearest", "linear"});
  require_dtype(c, 1, {DType::kFloat});
  bool given = false;
  const auto s = float_list(c, 1, given);
  if (!given) c.fail("input 1 (scales) is empty");
  upsample_with(c, s);
}

}  // namespace

std::span<const RuleEntry> shape_resize_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "Resize", 10, resize},       // X, scales
      {"", "Resize", 11, resize},       // roi, sizes, coordinate_transformation_mode
      {"", "Resize", 13, resize},       // roi and scales optional
      {"", "Resize", 18, resize},       // axes, keep_aspect_ratio_policy, antialias
      {"", "Resize", 19, resize},       // half_pixel_symmetric
      {"", "Upsample", 1, upsample_1},  // height_scale, width_scale
      {"", "Upsample", 7, upsample_7},  // scales attribute
      {"", "Upsample", 9, upsample_9},  // scales input (deprecated at 10)
  };
  return rules;
}

}  // namespace geon::importer
