// Import rules for the ops that are views of their input: Identity, Reshape, Flatten,
// Squeeze, Unsqueeze, Transpose. Squeeze, Unsqueeze and Transpose keep the input's Axis
// objects (a transpose is the same axes in another order); Reshape and Flatten make new axes.
// All pass constant data (shared, not copied, where the element order is unchanged) and
// shape-tensor contents through.
#include <algorithm>
#include <vector>

#include "core/desc/views.h"
#include "importer/ops/common.h"
#include "importer/ops/shape_contents.h"
#include "importer/ops/shape_fold.h"
#include "importer/ops/shape_parts.h"

namespace geon::importer {
namespace {

// Output 0 holds input 0's elements in the same order: share the data, carry the contents.
void pass_elements(RuleContext& c) {
  if (!c.has_output(0) || !c.output(0).rank_known) return;
  const auto shape = static_lengths(c.output(0).axes);
  if (const TensorData* d = constant_input(c, 0); d && shape) {
    share_data(c, 0, reshaped_data(*d, *shape));
    return;
  }
  if (auto e = c.contents(0)) set_contents(c, 0, std::move(*e));
}

// ---- Identity --------------------------------------------------------------------------------

void identity_tensor(RuleContext& c) {
  const Value& in = c.input(0);
  same_as_input(c);
  if (constant_input(c, 0))
    share_data(c, 0, in.data);
  else if (in.contents_known)
    c.set_output_contents(0, in.contents);
}

void identity_1(RuleContext& c) {
  if (c.input(0).type.kind != TypeKind::kTensor)
    c.fail("input 0 is " + to_string(c.input(0).type) +
           "; Identity takes sequences from opset 14 and optionals from opset 16");
  identity_tensor(c);
}

void identity_14(RuleContext& c) {
  const Value& in = c.input(0);
  if (in.type.kind == TypeKind::kSequence) return c.set_output_type(0, in.type);
  if (in.type.kind == TypeKind::kOptional && c.opset() < 16)
    c.fail("input 0 is " + to_string(in.type) + "; Identity takes optionals from opset 16");
  if (in.type.kind == TypeKind::kOptional) return c.set_output_type(0, in.type);
  identity_1(c);
}

// ---- Reshape ---------------------------------------------------------------------------------

// Static product with overflow as nullopt.
std::optional<int64_t> static_product(std::span<const Length> ls) {
  int64_t n = 1;
  for (const Length& l : ls)
    if (l.is_static() && __builtin_mul_overflow(n, l.value, &n)) return std::nullopt;
  return n;
}

// Symbols of `ls` as a sorted list (with repeats), and whether any length is unknown.
std::vector<std::string> symbols(std::span<const Length> ls, bool& unknown) {
  std::vector<std::string> out;
  for (const Length& l : ls) {
    if (l.is_symbol()) out.push_back(l.symbol);
    if (l.is_unknown()) unknown = true;
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Cancels the symbols both lists hold; returns the rest of each.
void cancel(std::vector<std::string>& a, std::vector<std::string>& b) {
  std::vector<std::string> ra, rb;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(ra));
  std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(rb));
  a = std::move(ra);
  b = std::move(rb);
}

// The length a -1 stands for: the input's elements over the other entries' product, with
// symbols cancelled (Reshape(x[N, 3, 4], [N, -1]) gives 12).
Length infer_minus_one(RuleContext& c, std::span<const Length> in, std::span<const Length> rest) {
  bool unknown = false;
  auto si = symbols(in, unknown), so = symbols(rest, unknown);
  const auto p = static_product(in), q = static_product(rest);
  if (unknown || !p || !q || *q == 0) return Length::unknown();
  cancel(si, so);
  if (!so.empty()) return Length::unknown();
  if (*p % *q != 0) {
    if (si.empty())
      c.fail("cannot infer the -1 in the shape: the input's " + std::to_string(*p) +
             " elements are not a multiple of the other entries' product " + std::to_string(*q));
    return Length::unknown();
  }
  const int64_t r = *p / *q;
  if (si.empty()) return Length::known(r);
  if (si.size() == 1 && r == 1) return Length::symbolic(si[0]);
  return Length::unknown();
}

void reshape_to(RuleContext& c, const std::optional<std::vector<Length>>& entries,
                std::optional<int64_t> count, bool allowzero) {
  const Value& in = c.input(0);
  const DType t = in.dtype();
  if (!entries) {
    if (!count) return c.set_output_unknown_rank(0, t);
    std::vector<Length> lens(static_cast<size_t>(*count), Length::unknown());
    // One entry can only be the element count (or -1 for it).
    if (*count == 1 && in.rank_known) lens[0] = product(lengths(in.axes));
    return c.set_output(0, t, lens);
  }
  const std::vector<Length>& e = *entries;
  const auto n = static_cast<int>(e.size());
  int minus = -1;
  bool zero = false;
  for (int k = 0; k < n; ++k) {
    if (!e[k].is_static()) continue;
    const int64_t v = e[k].value;
    if (v == -1) {
      if (minus >= 0)
        c.fail("shape has more than one -1 (entries " + std::to_string(minus) + " and " +
               std::to_string(k) + ")");
      minus = k;
    } else if (v < -1) {
      c.fail("shape entry " + std::to_string(k) + " is " + std::to_string(v) +
             "; entries must be >= -1");
    } else if (v == 0) {
      zero = true;
    }
  }
  if (allowzero && zero && minus >= 0)
    c.fail("shape has both a 0 and a -1, which allowzero=1 does not allow");
  std::vector<Length> out(e.size());
  std::vector<int> copied(e.size(), -1);
  for (int k = 0; k < n; ++k) {
    if (k == minus) continue;
    if (e[k].is_static() && e[k].value == 0 && !allowzero) {
      if (!in.rank_known) {
        out[k] = Length::unknown();
        continue;
      }
      if (k >= in.rank())
        c.fail("shape entry " + std::to_string(k) + " is 0 (copy the input's dim) but the input " +
               "has rank " + std::to_string(in.rank()));
      out[k] = in.axes[k].length;
      copied[k] = k;
    } else {
      out[k] = e[k];
    }
  }
  if (minus >= 0) {
    std::vector<Length> rest;
    for (int k = 0; k < n; ++k)
      if (k != minus) rest.push_back(out[k]);
    out[minus] = in.rank_known ? infer_minus_one(c, lengths(in.axes), rest) : Length::unknown();
  } else if (in.rank_known) {
    // The element counts must agree where they can be told apart now.
    const std::vector<Length> il = lengths(in.axes);
    bool unknown = false;
    auto si = symbols(il, unknown), so = symbols(out, unknown);
    cancel(si, so);
    const auto p = static_product(il), q = static_product(out);
    if (!unknown && si.empty() && so.empty() && p && q && *p != *q)
      c.fail("cannot reshape input " + to_string_with_lengths(in.axes) + " (" + std::to_string(*p) +
             " elements) to shape with " + std::to_string(*q) + " elements");
  }
  std::vector<Axis> axes;
  for (int k = 0; k < n; ++k)
    axes.push_back(copied[k] >= 0 ? make_axis_like(c.graph().factory(), in.axes[copied[k]], out[k])
                                  : c.new_axis(out[k]));
  c.set_output(0, t, Axes(std::move(axes)));
  pass_elements(c);
}

void reshape_1(RuleContext& c) {
  if (!c.has_attr("shape")) c.fail("attribute 'shape' is required but missing");
  std::vector<Length> e;
  for (int64_t v : c.attr_ints("shape")) e.push_back(entry(v));
  const auto n = static_cast<int64_t>(e.size());
  reshape_to(c, e, n, false);
}

void reshape_5(RuleContext& c) {
  require_dtype(c, 1, {DType::kInt64});
  const Value& s = c.input(1);
  if (s.rank_known && s.rank() != 1)
    c.fail("input 1 (shape) must be 1-D, got rank " + std::to_string(s.rank()));
  std::optional<int64_t> count;
  if (auto st = c.static_shape(1)) count = (*st)[0];
  // The shape's declared length is the output's rank: past any real rank, say nothing rather
  // than allocate a Length per entry.
  if (count && *count > kMaxInferredRank) count.reset();
  const bool allowzero = c.opset() >= 14 && c.attr_int("allowzero", 0) != 0;
  reshape_to(c, c.contents(1), count, allowzero);
}

// ---- Flatten ---------------------------------------------------------------------------------

void flatten(RuleContext& c) {
  const Value& in = c.input(0);
  const int64_t axis = c.attr_int("axis", 1);
  if (!in.rank_known) {
    const Length u[2] = {Length::unknown(), Length::unknown()};
    return c.set_output(0, in.dtype(), u);
  }
  const int r = in.rank();
  if (axis < -r || axis > r)
    c.fail("axis " + std::to_string(axis) + " is out of range [" + std::to_string(-r) + ", " +
           std::to_string(r) + "]");
  const int a = static_cast<int>(axis < 0 ? axis + r : axis);
  const std::vector<Length> ls = lengths(in.axes);
  auto group = [&](int from, int to) {
    if (to - from == 1)
      return make_axis_like(c.graph().factory(), in.axes[from], in.axes[from].length);
    return c.new_axis(product(std::span(ls).subspan(from, to - from)));
  };
  c.set_output(0, in.dtype(), Axes({group(0, a), group(a, r)}));
  pass_elements(c);
}

// ---- Squeeze, Unsqueeze ------------------------------------------------------------------------

// The axes list of Squeeze/Unsqueeze: the attribute before opset 13, input 1 from it.
// nullopt when it is an input whose values are not known; `given` says whether there is one.
std::optional<std::vector<int64_t>> axes_list(RuleContext& c, bool& given,
                                              std::optional<int64_t>& count) {
  if (c.opset() < 13) {
    given = c.has_attr("axes");
    auto v = c.attr_ints("axes", std::vector<int64_t>{});
    count = static_cast<int64_t>(v.size());
    return v;
  }
  given = c.has_input(1);
  if (!given) return std::vector<int64_t>{};
  require_dtype(c, 1, {DType::kInt64});
  const Value& a = c.input(1);
  if (a.rank_known && a.rank() > 1)
    c.fail("input 1 (axes) must be 1-D, got rank " + std::to_string(a.rank()));
  if (auto st = c.static_shape(1)) count = st->empty() ? 1 : (*st)[0];
  if (count && *count > kMaxInferredRank) count.reset();
  return c.int_contents(1);
}

void squeeze(RuleContext& c) {
  const Value& in = c.input(0);
  const DType t = in.dtype();
  bool given = false;
  std::optional<int64_t> count;
  const auto axes = axes_list(c, given, count);
  if (!in.rank_known) return c.set_output_unknown_rank(0, t);
  const int r = in.rank();
  std::vector<bool> drop(static_cast<size_t>(r), false);
  if (!axes) {
    if (!count || *count > r) return c.set_output_unknown_rank(0, t);
    std::vector<Length> lens(static_cast<size_t>(r - *count), Length::unknown());
    return c.set_output(0, t, lens);
  }
  if (given) {
    for (int a : normalize_axes(c, *axes, r, "axes")) {
      const Length& l = in.axes[a].length;
      if (l.is_static() && l.value != 1)
        c.fail("cannot squeeze axis " + std::to_string(a) + " of length " +
               std::to_string(l.value));
      drop[a] = true;
    }
  } else {
    // Every length-1 dim; a dim whose length is not known now makes the rank unknown.
    for (int k = 0; k < r; ++k) {
      const Length& l = in.axes[k].length;
      if (!l.is_static()) return c.set_output_unknown_rank(0, t);
      drop[k] = l.value == 1;
    }
  }
  std::vector<Axis> keep;
  for (int k = 0; k < r; ++k)
    if (!drop[k]) keep.push_back(in.axes[k]);
  c.set_output(0, t, Axes(std::move(keep)));
  pass_elements(c);
}

void unsqueeze(RuleContext& c) {
  const Value& in = c.input(0);
  const DType t = in.dtype();
  bool given = false;
  std::optional<int64_t> count;
  const auto axes = axes_list(c, given, count);
  if (!given)
    c.fail(c.opset() < 13 ? "attribute 'axes' is required but missing"
                          : "input 1 (axes) is required but missing");
  if (!in.rank_known) return c.set_output_unknown_rank(0, t);
  if (!axes) {
    if (!count) return c.set_output_unknown_rank(0, t);
    std::vector<Length> lens(static_cast<size_t>(in.rank() + *count), Length::unknown());
    return c.set_output(0, t, lens);
  }
  const int r = in.rank() + static_cast<int>(axes->size());
  std::vector<bool> insert(static_cast<size_t>(r), false);
  for (int a : normalize_axes(c, *axes, r, "axes")) insert[a] = true;
  std::vector<Axis> out;
  size_t next = 0;
  for (int k = 0; k < r; ++k)
    out.push_back(insert[k] ? c.new_axis(Length::known(1)) : in.axes[next++]);
  c.set_output(0, t, Axes(std::move(out)));
  pass_elements(c);
}

// ---- Transpose -------------------------------------------------------------------------------

void transpose(RuleContext& c) {
  const Value& in = c.input(0);
  const DType t = in.dtype();
  const bool given = c.has_attr("perm");
  std::vector<int64_t> perm = c.attr_ints("perm", std::vector<int64_t>{});
  if (!in.rank_known) {
    if (!given) return c.set_output_unknown_rank(0, t);
    std::vector<Length> lens(perm.size(), Length::unknown());
    return c.set_output(0, t, lens);
  }
  const int r = in.rank();
  if (!given)
    for (int k = r - 1; k >= 0; --k) perm.push_back(k);
  if (static_cast<int>(perm.size()) != r)
    c.fail("perm " + list_string(perm) + " has " + std::to_string(perm.size()) +
           " entries for an input of rank " + std::to_string(r));
  std::vector<bool> seen(static_cast<size_t>(r), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= r || seen[p])
      c.fail("perm " + list_string(perm) + " is not a permutation of 0.." + std::to_string(r - 1));
    seen[p] = true;
  }
  c.set_output(0, t, permute_axes(in.axes, perm));
  if (r <= 1) return pass_elements(c);
  if (const TensorData* d = constant_input(c, 0))
    c.set_output_data(0, materialize(c, *d, permute(d->desc, perm)));
}

}  // namespace

std::span<const RuleEntry> shape_view_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "Identity", 1, identity_1},
      {"", "Identity", 14, identity_14},  // sequences
      {"", "Identity", 16, identity_14},  // optionals
      {"", "Reshape", 1, reshape_1},
      {"", "Reshape", 5, reshape_5},   // shape becomes an input
      {"", "Reshape", 14, reshape_5},  // allowzero
      {"", "Flatten", 1, flatten},
      {"", "Flatten", 11, flatten},  // negative axis (accepted before too)
      {"", "Squeeze", 1, squeeze},
      {"", "Squeeze", 11, squeeze},  // negative axes (accepted before too)
      {"", "Squeeze", 13, squeeze},  // axes becomes an input
      {"", "Unsqueeze", 1, unsqueeze},
      {"", "Unsqueeze", 11, unsqueeze},
      {"", "Unsqueeze", 13, unsqueeze},
      {"", "Transpose", 1, transpose},
  };
  return rules;
}

}  // namespace geon::importer
