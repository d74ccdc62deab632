// Import rules: the shape family (see families.h for the ops it covers). The ops live in
// shape_*.cc by concept; this file joins their rules and holds the helpers they share.
#include <vector>

#include "importer/ops/families.h"
#include "importer/ops/shape_parts.h"

namespace geon::importer {

std::span<const RuleEntry> shape_rules() {
  static const std::vector<RuleEntry> rules = [] {
    std::vector<RuleEntry> t;
    for (auto part : {shape_source_rules(), shape_view_rules(), shape_slice_rules(),
                      shape_extend_rules(), shape_layout_rules(), shape_resize_rules()})
      t.insert(t.end(), part.begin(), part.end());
    return t;
  }();
  return rules;
}

std::string list_string(std::span<const int64_t> v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::vector<int> normalize_axes(const RuleContext& c, std::span<const int64_t> axes, int rank,
                                std::string_view what) {
  std::vector<int> out;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank)
      c.fail(std::string(what) + " " + list_string(axes) + ": " + std::to_string(a) +
             " is out of range for rank " + std::to_string(rank));
    const int n = static_cast<int>(a < 0 ? a + rank : a);
    if (seen[static_cast<size_t>(n)])
      c.fail(std::string(what) + " " + list_string(axes) + " names axis " + std::to_string(n) +
             " twice");
    seen[static_cast<size_t>(n)] = true;
    out.push_back(n);
  }
  return out;
}

Axes axes_from_entries(RuleContext& c, std::span<const Length> entries, std::string_view what) {
  std::vector<Axis> axes;
  for (const Length& l : entries) {
    if (l.is_static() && l.value < 0)
      c.fail(std::string(what) + " has the negative entry " + std::to_string(l.value));
    axes.push_back(c.new_axis(l));
  }
  return Axes(std::move(axes));
}

void unknown_lengths_like_input(RuleContext& c, int out, DType t) {
  const Value& in = c.input(0);
  if (!in.rank_known) {
    c.set_output_unknown_rank(out, t);
    return;
  }
  std::vector<Length> lens(static_cast<size_t>(in.rank()), Length::unknown());
  c.set_output(out, t, lens);
}

}  // namespace geon::importer
