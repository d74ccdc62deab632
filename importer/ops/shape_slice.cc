// Import rules for the ops that cut a tensor into parts or join parts: Slice, Split, Concat.
// Axes that are not cut keep their Axis objects; a cut axis becomes a new axis of the source
// axis's class. Constant inputs fold through views, and shape-tensor contents (rank 1) are
// sliced, split and concatenated, symbols included.
#include <algorithm>
#include <limits>
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "importer/ops/common.h"
#include "importer/ops/shape_contents.h"
#include "importer/ops/shape_fold.h"
#include "importer/ops/shape_parts.h"

namespace geon::importer {
namespace {

// An end at or past INT_MAX means "to the end" (the spec's advice for unknown lengths), so a
// symbolic length sliced [0, INT_MAX) keeps its symbol.
constexpr int64_t kToEnd = std::numeric_limits<int32_t>::max();

// ONNX Slice on one dim of static length len: the first index and the element count.
struct DimSlice {
  int64_t start = 0, count = 0;
};
DimSlice slice_dim(int64_t len, int64_t start, int64_t end, int64_t step) {
  if (len == 0) return {};
  if (start < 0) start += len;
  if (end < 0) end += len;
  DimSlice s;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, len);
    end = std::clamp<int64_t>(end, 0, len);
    s.count = end > start ? 1 + (end - start - 1) / step : 0;
  } else {
    start = std::clamp<int64_t>(start, 0, len - 1);
    end = std::clamp<int64_t>(end, -1, len - 1);
    s.count = start > end ? 1 - (start - end - 1) / step : 0;  // -step overflows at INT64_MIN
  }
  s.start = start;
  return s;
}

// The result length of slicing a symbolic or unknown length: kept for the whole range in
// either direction, unknown otherwise.
Length slice_length(const Length& len, int64_t start, int64_t end, int64_t step) {
  if (len.is_static()) return Length::known(slice_dim(len.value, start, end, step).count);
  if (step == 1 && start == 0 && end >= kToEnd) return len;
  if (step == -1 && (start == -1 || start >= kToEnd) && end <= -kToEnd) return len;
  return Length::unknown();
}

// A 1-D list of ints given as an input (Slice >= 10): its values, or nullopt when not known.
std::optional<std::vector<int64_t>> index_input(RuleContext& c, int i, const char* name,
                                                std::optional<int64_t>& count) {
  require_dtype(c, i, {DType::kInt32, DType::kInt64});
  const Value& v = c.input(i);
  if (v.rank_known && v.rank() != 1)
    c.fail("input " + std::to_string(i) + " (" + name + ") must be 1-D, got rank " +
           std::to_string(v.rank()));
  if (auto st = c.static_shape(i)) count = (*st)[0];
  return c.int_contents(i);
}

void slice_with(RuleContext& c, std::optional<std::vector<int64_t>> starts,
                std::optional<std::vector<int64_t>> ends, std::optional<std::vector<int64_t>> axes,
                std::optional<std::vector<int64_t>> steps, bool steps_known,
                std::optional<int64_t> count) {
  const Value& in = c.input(0);
  const DType t = in.dtype();
  if (!in.rank_known) return c.set_output_unknown_rank(0, t);
  const int r = in.rank();
  auto check_count = [&](const std::optional<std::vector<int64_t>>& v, const char* name) {
    if (v && starts && v->size() != starts->size())
      c.fail(std::string(name) + " has " + std::to_string(v->size()) + " entries but starts has " +
             std::to_string(starts->size()));
  };
  check_count(ends, "ends");
  check_count(axes, "axes");
  check_count(steps, "steps");
  if (steps)
    for (size_t k = 0; k < steps->size(); ++k)
      if ((*steps)[k] == 0) c.fail("steps entry " + std::to_string(k) + " is 0");
  // The axes cut: given, or the first len(starts) ones.
  std::vector<int> ax;
  if (axes) {
    ax = normalize_axes(c, *axes, r, "axes");
  } else {
    if (!starts && !count) return unknown_lengths_like_input(c, 0, t);
    const int64_t n = starts ? static_cast<int64_t>(starts->size()) : *count;
    if (n > r)
      c.fail("starts has " + std::to_string(n) + " entries for an input of rank " +
             std::to_string(r));
    for (int k = 0; k < n; ++k) ax.push_back(k);
  }
  const bool known = starts && ends && steps_known;
  std::vector<Axis> out(in.axes.begin(), in.axes.end());
  const TensorData* data = known ? constant_input(c, 0) : nullptr;
  TensorDesc view = data ? data->desc : TensorDesc{};
  for (size_t k = 0; k < ax.size(); ++k) {
    const Axis& src = in.axes[ax[k]];
    if (!known) {
      out[ax[k]] = make_axis_like(c.graph().factory(), src, Length::unknown());
      continue;
    }
    const int64_t step = steps ? (*steps)[k] : 1;
    const int64_t start = (*starts)[k], end = (*ends)[k];
    bool whole = false;
    if (src.length.is_static()) {
      const DimSlice ds = slice_dim(src.length.value, start, end, step);
      whole = step == 1 && ds.start == 0 && ds.count == src.length.value;
    } else {
      whole = step == 1 && start == 0 && end >= kToEnd;
    }
    if (!whole)
      out[ax[k]] =
          make_axis_like(c.graph().factory(), src, slice_length(src.length, start, end, step));
    if (data) {
      try {
        view = slice(view, ax[k], start, end, step);
      } catch (const Error&) {
        data = nullptr;  // not foldable as a view: computed at run time
      }
    }
  }
  c.set_output(0, t, Axes(std::move(out)));
  if (!known) return;
  if (data) return c.set_output_data(0, materialize(c, *data, view));
  // Shape tensors: slice the entries.
  const auto e = c.contents(0);
  if (r != 1 || ax.size() != 1 || !e) return;
  const int64_t step = steps ? (*steps)[0] : 1;
  const DimSlice s = slice_dim(static_cast<int64_t>(e->size()), (*starts)[0], (*ends)[0], step);
  std::vector<Length> picked;
  for (int64_t i = 0; i < s.count; ++i) picked.push_back((*e)[s.start + i * step]);
  set_contents(c, 0, std::move(picked));
}

void slice_1(RuleContext& c) {
  if (!c.has_attr("starts")) c.fail("attribute 'starts' is required but missing");
  if (!c.has_attr("ends")) c.fail("attribute 'ends' is required but missing");
  std::optional<std::vector<int64_t>> axes;
  if (c.has_attr("axes")) axes = c.attr_ints("axes");
  slice_with(c, c.attr_ints("starts"), c.attr_ints("ends"), axes, std::nullopt, true, std::nullopt);
}

void slice_10(RuleContext& c) {
  std::optional<int64_t> n_starts, n_ends, n_axes, n_steps;
  const auto starts = index_input(c, 1, "starts", n_starts);
  const auto ends = index_input(c, 2, "ends", n_ends);
  if (c.input_dtype(1) != c.input_dtype(2))
    c.fail("input 1 (starts) and input 2 (ends) must have the same dtype");
  std::optional<std::vector<int64_t>> axes, steps;
  if (c.has_input(3)) axes = index_input(c, 3, "axes", n_axes);
  if (c.has_input(4)) steps = index_input(c, 4, "steps", n_steps);
  if (n_starts && n_ends && *n_starts != *n_ends)
    c.fail("ends has " + std::to_string(*n_ends) + " entries but starts has " +
           std::to_string(*n_starts));
  // Which axes are cut is not known: every length is unknown.
  if (c.has_input(3) && !axes) return unknown_lengths_like_input(c, 0, c.input_dtype(0));
  slice_with(c, starts, ends, axes, steps, !c.has_input(4) || steps, n_starts);
}

// ---- Split -----------------------------------------------------------------------------------

void split(RuleContext& c) {
  const Value& in = c.input(0);
  const DType t = in.dtype();
  const int n = c.num_outputs();
  if (n < 1) c.fail("Split needs at least one output");
  std::optional<std::vector<int64_t>> sizes;
  bool sizes_given = false;
  if (c.opset() < 13 && c.has_attr("split")) {
    sizes = c.attr_ints("split");
    sizes_given = true;
  } else if (c.opset() >= 2 && c.opset() < 13 && c.has_input(1)) {
    c.fail("input 1 (split) is an input only in opset 1 and from opset 13; use the attribute");
  } else if (c.has_input(1)) {
    require_dtype(c, 1, {DType::kInt64});
    sizes = c.int_contents(1);
    sizes_given = true;
  }
  std::optional<int64_t> num_outputs;
  if (c.opset() >= 18) {
    if (c.has_attr("num_outputs")) num_outputs = c.attr_int("num_outputs");
    if (sizes_given && num_outputs)
      c.fail("give either input 1 (split) or attribute 'num_outputs', not both");
    if (!sizes_given && !num_outputs)
      c.fail("either input 1 (split) or attribute 'num_outputs' is required");
    if (num_outputs && *num_outputs != n)
      c.fail("attribute 'num_outputs' is " + std::to_string(*num_outputs) + " but the node has " +
             std::to_string(n) + " outputs");
  }
  if (sizes) {
    if (static_cast<int>(sizes->size()) != n)
      c.fail("split " + list_string(*sizes) + " has " + std::to_string(sizes->size()) +
             " entries for " + std::to_string(n) + " outputs");
    for (int64_t s : *sizes)
      if (s < 0) c.fail("split " + list_string(*sizes) + " has a negative size");
  }
  if (!in.rank_known) {
    for (int k = 0; k < n; ++k) c.set_output_unknown_rank(k, t);
    return;
  }
  const int r = in.rank();
  const int64_t axis_attr = c.attr_int("axis", 0);
  if (r == 0) c.fail("input 0 is a scalar; Split needs rank >= 1");
  const int axis = c.normalize_axis(axis_attr, r);
  const Length& len = in.axes[axis].length;
  if (sizes_given && !sizes) {
    for (int k = 0; k < n; ++k) {
      std::vector<Axis> a(in.axes.begin(), in.axes.end());
      a[axis] = make_axis_like(c.graph().factory(), in.axes[axis], Length::unknown());
      c.set_output(k, t, Axes(std::move(a)));
    }
    return;
  }
  std::vector<Length> parts(static_cast<size_t>(n), Length::unknown());
  if (sizes) {
    int64_t sum = 0;
    for (int64_t s : *sizes)
      if (__builtin_add_overflow(sum, s, &sum)) c.fail("split sizes overflow");
    if (len.is_static() && sum != len.value)
      c.fail("split " + list_string(*sizes) + " sums to " + std::to_string(sum) + " but axis " +
             std::to_string(axis) + " has length " + std::to_string(len.value));
    for (int k = 0; k < n; ++k) parts[k] = Length::known((*sizes)[k]);
  } else if (len.is_static()) {
    const int64_t L = len.value;
    if (num_outputs) {
      // ceil(L / n) each and the rest last. When the rest is negative (5 into 4: 2, 2, 2, -1)
      // the node cannot run; that is a run-time error, not an import one, since such nodes
      // sit in If branches that are never taken (AffineGrid's function body): unknown lengths.
      const int64_t chunk = L / n + (L % n != 0 ? 1 : 0);
      const int64_t last = L - chunk * (n - 1);
      for (int k = 0; k < n && last >= 0; ++k) parts[k] = Length::known(k == n - 1 ? last : chunk);
    } else {
      if (L % n != 0)
        c.fail("axis " + std::to_string(axis) + " of length " + std::to_string(L) +
               " does not split evenly into " + std::to_string(n) + " outputs");
      for (int k = 0; k < n; ++k) parts[k] = Length::known(L / n);
    }
  } else if (n == 1) {
    parts[0] = len;
  }
  const TensorData* data = constant_input(c, 0);
  const auto entries = r == 1 ? c.contents(0) : std::nullopt;
  int64_t offset = 0;
  for (int k = 0; k < n; ++k) {
    std::vector<Axis> a(in.axes.begin(), in.axes.end());
    if (n > 1) a[axis] = make_axis_like(c.graph().factory(), in.axes[axis], parts[k]);
    c.set_output(k, t, Axes(std::move(a)));
    if (!parts[k].is_static()) continue;
    const int64_t size = parts[k].value;
    if (data && len.is_static())
      c.set_output_data(k, materialize(c, *data, narrow(data->desc, axis, offset, size)));
    else if (entries && offset + size <= static_cast<int64_t>(entries->size()))
      set_contents(
          c, k, std::vector<Length>(entries->begin() + offset, entries->begin() + offset + size));
    offset += size;
  }
}

// ---- Concat ----------------------------------------------------------------------------------

void concat(RuleContext& c) {
  if (c.num_inputs() < 1) c.fail("Concat needs at least one input");
  for (int i = 0; i < c.num_inputs(); ++i)
    if (!c.has_input(i)) c.fail("input " + std::to_string(i) + " is missing");
  const DType t = common_dtype(c);
  if (c.opset() >= 4 && !c.has_attr("axis")) c.fail("attribute 'axis' is required but missing");
  const int64_t axis_attr = c.attr_int("axis", 1);
  int r = -1;
  for (int i = 0; i < c.num_inputs(); ++i) {
    const Value& v = c.input(i);
    if (!v.rank_known) continue;
    if (r >= 0 && v.rank() != r)
      c.fail("input " + std::to_string(i) + " has rank " + std::to_string(v.rank()) +
             " but the earlier inputs have rank " + std::to_string(r));
    r = v.rank();
  }
  if (r < 0) return c.set_output_unknown_rank(0, t);
  if (r == 0) c.fail("inputs are scalars; Concat needs rank >= 1");
  const int axis = c.normalize_axis(axis_attr, r);
  bool all_known = true;
  for (int i = 0; i < c.num_inputs(); ++i) all_known = all_known && c.input(i).rank_known;
  // Each other dim: the inputs must agree; the output takes the best-known one's axis.
  std::vector<Axis> out;
  for (int d = 0; d < r; ++d) {
    const Axis* best = nullptr;
    for (int i = 0; i < c.num_inputs(); ++i) {
      const Value& v = c.input(i);
      if (!v.rank_known || d == axis) continue;
      const Axis& a = v.axes[d];
      if (best && compare_lengths(best->length, a.length) == LengthRelation::kDifferent)
        c.fail("input " + std::to_string(i) + " has length " + to_string(a.length) + " at dim " +
               std::to_string(d) + " but an earlier input has " + to_string(best->length));
      auto rank_of = [](const Length& l) { return l.is_static() ? 2 : l.is_symbol() ? 1 : 0; };
      if (!best || rank_of(a.length) > rank_of(best->length)) best = &a;
    }
    if (d != axis) {
      out.push_back(best ? *best : c.new_axis(Length::unknown()));
      continue;
    }
    // The concatenated dim: the sum when static, the one non-empty input's length otherwise.
    int64_t sum = 0;
    bool summable = all_known;
    const Length* only = nullptr;
    int nonzero = 0;
    const Axis* source = nullptr;
    for (int i = 0; i < c.num_inputs(); ++i) {
      const Value& v = c.input(i);
      if (!v.rank_known) continue;
      if (!source) source = &v.axes[d];
      const Length& l = v.axes[d].length;
      if (l.is_static() && l.value == 0) continue;
      ++nonzero;
      only = &l;
      if (!l.is_static() || __builtin_add_overflow(sum, l.value, &sum)) summable = false;
    }
    Length len = Length::unknown();
    if (summable)
      len = Length::known(sum);
    else if (all_known && nonzero == 1)
      len = *only;
    out.push_back(make_axis_like(c.graph().factory(), *source, len));
  }
  c.set_output(0, t, Axes(std::move(out)));
  if (!all_known || !c.has_output(0)) return;
  const auto shape = static_lengths(c.output(0).axes);
  if (!shape) return;
  // Fold: copy each constant input into its place.
  bool all_const = true;
  for (int i = 0; i < c.num_inputs(); ++i) all_const = all_const && constant_input(c, i);
  const auto n = checked_count(*shape);
  if (all_const && n && fold_fits(c, t, *n)) {
    auto data = make_tensor_data(t, *shape);
    int64_t offset = 0;
    for (int i = 0; i < c.num_inputs(); ++i) {
      const TensorData* d = constant_input(c, i);
      const int64_t len = d->desc.shape[axis];
      if (!copy_region(*data, narrow(data->desc, axis, offset, len), *d, d->desc)) return;
      offset += len;
    }
    return c.set_output_data(0, data);
  }
  // Shape tensors: concatenate the entries.
  if (r != 1) return;
  std::vector<Length> entries;
  for (int i = 0; i < c.num_inputs(); ++i) {
    const auto e = c.contents(i);
    if (!e || static_cast<int64_t>(entries.size() + e->size()) > kMaxEntries) return;
    entries.insert(entries.end(), e->begin(), e->end());
  }
  set_contents(c, 0, std::move(entries));
}

}  // namespace

std::span<const RuleEntry> shape_slice_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "Slice", 1, slice_1},
      {"", "Slice", 10, slice_10},  // starts, ends, axes, steps become inputs
      {"", "Slice", 11, slice_10},  // negative axes
      {"", "Split", 1, split},      // split as input 1 or attribute
      {"", "Split", 2, split},      // split attribute only
      {"", "Split", 11, split},     // negative axis
      {"", "Split", 13, split},     // split becomes an input
      {"", "Split", 18, split},     // num_outputs
      {"", "Concat", 1, concat},    // axis defaults to 1
      {"", "Concat", 4, concat},    // axis required
      {"", "Concat", 11, concat},   // negative axis
  };
  return rules;
}

}  // namespace geon::importer
