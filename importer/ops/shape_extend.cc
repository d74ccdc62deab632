// Import rules for the ops that grow (or crop) a tensor along its axes: Pad, Tile, Expand,
// CenterCropPad. An axis left as it is keeps its Axis object; a padded, tiled or cropped axis
// becomes a new axis of the source axis's class; Expand follows numpy broadcasting
// (broadcast_axes). Their shape-like inputs are read through the contents, so symbolic target
// lengths reach the output's axes.
#include <cstring>
#include <vector>

#include "core/axes/broadcast.h"
#include "core/base/error.h"
#include "core/desc/views.h"
#include "importer/ops/common.h"
#include "importer/ops/shape_contents.h"
#include "importer/ops/shape_fold.h"
#include "importer/ops/shape_parts.h"

namespace geon::importer {
namespace {

// An int list input (pads, repeats, shape, axes): its values or nullopt, its length when known.
std::optional<std::vector<int64_t>> int_list_input(RuleContext& c, int i, const char* name,
                                                   std::initializer_list<DType> types,
                                                   std::optional<int64_t>& count) {
  require_dtype(c, i, types);
  const Value& v = c.input(i);
  if (v.rank_known && v.rank() != 1)
    c.fail("input " + std::to_string(i) + " (" + name + ") must be 1-D, got rank " +
           std::to_string(v.rank()));
  if (auto st = c.static_shape(i); st && (*st)[0] <= kMaxInferredRank) count = (*st)[0];
  return c.int_contents(i);
}

// ---- Pad -------------------------------------------------------------------------------------

struct PadArgs {
  std::optional<std::vector<int64_t>> pads;
  std::optional<std::vector<int64_t>> axes;  // nullopt: all axes (or unknown, see axes_known)
  bool axes_known = true;
  std::string mode = "constant";
  const TensorData* value = nullptr;  // constant mode's value; null = zero (or unknown)
  bool value_known = true;
};

void pad_with(RuleContext& c, const PadArgs& p) {
  const bool wrap_ok = c.opset() >= 19;
  if (p.mode != "constant" && p.mode != "reflect" && p.mode != "edge" &&
      !(wrap_ok && p.mode == "wrap"))
    c.fail("attribute 'mode' is '" + p.mode + "'; expected constant, reflect, edge" +
           (wrap_ok ? ", wrap" : " (wrap from opset 19)"));
  const Value& in = c.input(0);
  const DType t = in.dtype();
  if (!in.rank_known) return c.set_output_unknown_rank(0, t);
  const int r = in.rank();
  if (!p.axes_known) return unknown_lengths_like_input(c, 0, t);
  std::vector<int> ax;
  if (p.axes) {
    ax = normalize_axes(c, *p.axes, r, "axes");
  } else {
    for (int k = 0; k < r; ++k) ax.push_back(k);
  }
  const auto n = static_cast<int64_t>(ax.size());
  if (p.pads && static_cast<int64_t>(p.pads->size()) != 2 * n)
    c.fail("pads " + list_string(*p.pads) + " has " + std::to_string(p.pads->size()) +
           " entries; expected 2 * " + std::to_string(n));
  std::vector<Axis> out(in.axes.begin(), in.axes.end());
  for (int64_t k = 0; k < n; ++k) {
    const Axis& src = in.axes[ax[k]];
    if (!p.pads) {
      out[ax[k]] = make_axis_like(c.graph().factory(), src, Length::unknown());
      continue;
    }
    const int64_t b = (*p.pads)[k], e = (*p.pads)[k + n];
    if (b == 0 && e == 0) continue;
    Length len = Length::unknown();
    if (src.length.is_static()) {
      int64_t v = 0;
      if (__builtin_add_overflow(src.length.value, b, &v) || __builtin_add_overflow(v, e, &v))
        c.fail("pads " + list_string(*p.pads) + " overflow the length of axis " +
               std::to_string(ax[k]));
      if (v < 0)
        c.fail("pads " + list_string(*p.pads) + " make axis " + std::to_string(ax[k]) +
               " of length " + std::to_string(src.length.value) + " negative (" +
               std::to_string(v) + ")");
      len = Length::known(v);
    }
    out[ax[k]] = make_axis_like(c.graph().factory(), src, len);
  }
  c.set_output(0, t, Axes(std::move(out)));
  // Fold constant-mode pads of a constant: fill with the value, copy the (cropped) input in.
  const TensorData* data = constant_input(c, 0);
  if (!data || !p.pads || p.mode != "constant" || !p.value_known || !c.has_output(0)) return;
  const auto shape = static_lengths(c.output(0).axes);
  const auto count = shape ? checked_count(*shape) : std::nullopt;
  if (!count || !fold_fits(c, t, *count)) return;
  auto res = make_tensor_data(t, *shape);
  if (p.value && !fill(*res, *p.value)) return;
  TensorDesc src = data->desc, dst = res->desc;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t b = (*p.pads)[k], e = (*p.pads)[k + n];
    const int64_t len = data->desc.shape[ax[k]];
    // Clamped first: -b and len + e overflow for pads near the int64 limits.
    const int64_t from = b < 0 ? (b <= -len ? len : -b) : 0;
    const int64_t to = e < 0 ? (e <= -len ? 0 : len + e) : len;
    if (to <= from) return c.set_output_data(0, res);  // all padding
    src = narrow(src, ax[k], from, to - from);
    dst = narrow(dst, ax[k], b > 0 ? b : 0, to - from);
  }
  if (copy_region(*res, dst, *data, src)) c.set_output_data(0, res);
}

void pad_1(RuleContext& c) {
  PadArgs p;
  const char* name = c.opset() < 2 ? "paddings" : "pads";
  if (!c.has_attr(name)) c.fail(std::string("attribute '") + name + "' is required but missing");
  p.pads = c.attr_ints(name);
  p.mode = c.attr_string("mode", "constant");
  const float v = c.attr_float("value", 0.0f);
  auto value = make_tensor_data(DType::kFloat, {});
  std::memcpy(value->storage->data(), &v, sizeof v);
  p.value = value.get();
  pad_with(c, p);
}

void pad_11(RuleContext& c) {
  PadArgs p;
  p.mode = c.attr_string("mode", "constant");
  std::optional<int64_t> count;
  p.pads = int_list_input(c, 1, "pads", {DType::kInt64}, count);
  if (c.has_input(2)) {
    if (c.input_dtype(2) != c.input_dtype(0))
      c.fail("input 2 (constant_value) is " + std::string(dtype_name(c.input_dtype(2))) +
             " but input 0 is " + std::string(dtype_name(c.input_dtype(0))));
    const Value& v = c.input(2);
    if (v.rank_known && !(v.rank() == 0 || (v.rank() == 1 && v.axes[0].length == Length::known(1))))
      c.fail("input 2 (constant_value) must be a scalar, got " + to_string_with_lengths(v.axes));
    p.value = constant_input(c, 2);
    p.value_known = p.value != nullptr;
  }
  if (c.opset() >= 18 && c.has_input(3)) {
    std::optional<int64_t> n_axes;
    p.axes = int_list_input(c, 3, "axes", {DType::kInt32, DType::kInt64}, n_axes);
    p.axes_known = p.axes.has_value();
  }
  if (!p.pads && count && c.input(0).rank_known && !c.has_input(3) &&
      *count != 2 * c.input(0).rank())
    c.fail("input 1 (pads) has " + std::to_string(*count) + " entries; expected 2 * " +
           std::to_string(c.input(0).rank()));
  pad_with(c, p);
}

// ---- Tile ------------------------------------------------------------------------------------

void tile_with(RuleContext& c, const std::optional<std::vector<int64_t>>& repeats) {
  const Value& in = c.input(0);
  const DType t = in.dtype();
  if (!in.rank_known) return c.set_output_unknown_rank(0, t);
  const int r = in.rank();
  if (!repeats) return unknown_lengths_like_input(c, 0, t);
  if (static_cast<int>(repeats->size()) != r)
    c.fail("repeats " + list_string(*repeats) + " has " + std::to_string(repeats->size()) +
           " entries for an input of rank " + std::to_string(r));
  std::vector<Axis> out(in.axes.begin(), in.axes.end());
  for (int k = 0; k < r; ++k) {
    const int64_t m = (*repeats)[k];
    if (m < 0) c.fail("repeats " + list_string(*repeats) + " has a negative entry");
    if (m == 1) continue;
    const Length& l = in.axes[k].length;
    Length len = Length::unknown();
    int64_t v = 0;
    if (m == 0)
      len = Length::known(0);
    else if (l.is_static() && !__builtin_mul_overflow(l.value, m, &v))
      len = Length::known(v);
    out[k] = make_axis_like(c.graph().factory(), in.axes[k], len);
  }
  c.set_output(0, t, Axes(std::move(out)));
  // Fold: view the input as (r0, d0, r1, d1, ...) with stride 0 over each repeat.
  const TensorData* data = constant_input(c, 0);
  if (!data || !c.has_output(0)) return;
  const auto shape = static_lengths(c.output(0).axes);
  const auto count = shape ? checked_count(*shape) : std::nullopt;
  if (!count || !fold_fits(c, t, *count)) return;
  TensorDesc v = data->desc;
  v.shape.clear();
  v.strides.clear();
  for (int k = 0; k < r; ++k) {
    v.shape.push_back((*repeats)[k]);
    v.strides.push_back(0);
    v.shape.push_back(data->desc.shape[k]);
    v.strides.push_back(data->desc.strides[k]);
  }
  auto res = materialize(c, *data, v);
  if (res) c.set_output_data(0, reshaped_data(*res, *shape));
}

void tile_1(RuleContext& c) {
  // Tile-1: input 1 (tiles) repeats along the one axis given by input 2 (axis).
  const TensorData* tiles = constant_input(c, 1);
  const TensorData* axis = constant_input(c, 2);
  const Value& in = c.input(0);
  if (!in.rank_known || !tiles || !axis || tiles->elements() != 1 || axis->elements() != 1)
    return unknown_lengths_like_input(c, 0, in.dtype());
  const int a = c.normalize_axis(element_as_int(*axis, 0), in.rank(), "input 2 (axis)");
  std::vector<int64_t> repeats(static_cast<size_t>(in.rank()), 1);
  repeats[a] = element_as_int(*tiles, 0);
  tile_with(c, repeats);
}

void tile_6(RuleContext& c) {
  std::optional<int64_t> count;
  const auto repeats = int_list_input(c, 1, "repeats", {DType::kInt64}, count);
  const Value& in = c.input(0);
  if (count && in.rank_known && *count != in.rank())
    c.fail("input 1 (repeats) has " + std::to_string(*count) + " entries for an input of rank " +
           std::to_string(in.rank()));
  tile_with(c, repeats);
}

// ---- Expand ----------------------------------------------------------------------------------

void expand(RuleContext& c) {
  const Value& in = c.input(0);
  const DType t = in.dtype();
  std::optional<int64_t> count;
  int_list_input(c, 1, "shape", {DType::kInt64}, count);
  const auto entries = c.contents(1);
  if (!in.rank_known) return c.set_output_unknown_rank(0, t);
  if (!entries) {
    if (!count) return c.set_output_unknown_rank(0, t);
    std::vector<Length> lens(static_cast<size_t>(std::max<int64_t>(*count, in.rank())),
                             Length::unknown());
    return c.set_output(0, t, lens);
  }
  const Axes target = axes_from_entries(c, *entries, "input 1 (shape)");
  BroadcastAxes b;
  try {
    b = broadcast_axes({in.axes, target}, c.graph().factory());
  } catch (const Error& e) {
    c.fail("input 0 " + to_string_with_lengths(in.axes) + " cannot be expanded to shape " +
           to_string_with_lengths(target) + ": " + e.what());
  }
  c.set_output(0, t, b.out);
  const TensorData* data = constant_input(c, 0);
  if (!data || !c.has_output(0)) return;
  const auto shape = static_lengths(c.output(0).axes);
  const auto n = shape ? checked_count(*shape) : std::nullopt;
  if (!n || !fold_fits(c, t, *n)) return;
  c.set_output_data(0, materialize(c, *data, broadcast_to(data->desc, *shape)));
}

// ---- CenterCropPad ---------------------------------------------------------------------------

void center_crop_pad(RuleContext& c) {
  const Value& in = c.input(0);
  const DType t = in.dtype();
  std::optional<int64_t> count;
  int_list_input(c, 1, "shape", {DType::kInt32, DType::kInt64}, count);
  const auto entries = c.contents(1);
  if (!in.rank_known) return c.set_output_unknown_rank(0, t);
  const int r = in.rank();
  std::vector<int> ax;
  if (c.has_attr("axes")) {
    ax = normalize_axes(c, c.attr_ints("axes"), r, "attribute 'axes'");
  } else {
    for (int k = 0; k < r; ++k) ax.push_back(k);
  }
  const auto n = static_cast<int64_t>(ax.size());
  const int64_t given = entries ? static_cast<int64_t>(entries->size()) : count.value_or(n);
  if (given != n)
    c.fail("input 1 (shape) has " + std::to_string(given) + " entries for " + std::to_string(n) +
           " axes");
  std::vector<Axis> out(in.axes.begin(), in.axes.end());
  for (int64_t k = 0; k < n; ++k) {
    const Axis& src = in.axes[ax[k]];
    const Length len = entries ? (*entries)[k] : Length::unknown();
    if (len.is_static() && len.value < 0)
      c.fail("input 1 (shape) has the negative entry " + std::to_string(len.value));
    if (compare_lengths(len, src.length) == LengthRelation::kEqual) continue;
    out[ax[k]] = make_axis_like(c.graph().factory(), src, len);
  }
  c.set_output(0, t, Axes(std::move(out)));
  // Fold: a zeroed output, the centred window of the input copied in.
  const TensorData* data = constant_input(c, 0);
  if (!data || !entries || !c.has_output(0)) return;
  const auto shape = static_lengths(c.output(0).axes);
  const auto total = shape ? checked_count(*shape) : std::nullopt;
  if (!total || !fold_fits(c, t, *total)) return;
  auto res = make_tensor_data(t, *shape);
  TensorDesc src = data->desc, dst = res->desc;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t len = data->desc.shape[ax[k]], want = (*shape)[ax[k]];
    if (want <= len) {
      src = narrow(src, ax[k], (len - want) / 2, want);
    } else {
      dst = narrow(dst, ax[k], (want - len) / 2, len);
    }
  }
  if (copy_region(*res, dst, *data, src)) c.set_output_data(0, res);
}

}  // namespace

std::span<const RuleEntry> shape_extend_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "Pad", 1, pad_1},    // paddings attribute
      {"", "Pad", 2, pad_1},    // pads attribute
      {"", "Pad", 11, pad_11},  // pads and constant_value become inputs
      {"", "Pad", 18, pad_11},  // axes input
      {"", "Pad", 19, pad_11},  // wrap mode
      {"", "Tile", 1, tile_1},  // tiles and axis inputs
      {"", "Tile", 6, tile_6},  // repeats input
      {"", "Expand", 8, expand}, {"", "CenterCropPad", 18, center_crop_pad},
  };
  return rules;
}

}  // namespace geon::importer
