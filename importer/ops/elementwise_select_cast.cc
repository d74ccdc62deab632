// Import rules: Where (three-way numpy broadcast), Clip (bounds as attributes before opset 11,
// optional scalar inputs from 11), Cast (`to` a dtype name before opset 6, a dtype number
// after; `saturate` from 19, `round_mode` from 24) and CastLike. Casts keep the input's very
// axes; constant inputs fold, and shape-like integer entries survive integer casts.
#include <cctype>
#include <cfloat>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/dtype/scalar.h"
#include "core/engine/engine.h"
#include "importer/ops/common.h"
#include "importer/ops/elementwise.h"
#include "importer/ops/shape_contents.h"

namespace geon::importer {
namespace {

// ---- Where ------------------------------------------------------------------------------------

void where(RuleContext& c) {
  require_input_count(c, 3, 3);
  const TypeSet values = kInts8 | kFloat3 | kStringSet | kBoolSet |
                         type_set({DType::kComplex64, DType::kComplex128}) |
                         (c.opset() >= 16 ? type_bit(DType::kBFloat16) : TypeSet{0});
  require_types(c, 0, kBoolSet, "condition");
  const DType t = common_dtype(c, {1, 2});
  require_types(c, 1, values, "X");
  broadcast_output(c, t);
  fold_expr(c, [](ExprBuilder& b, std::span<const ExprArg> a) {
    return b.apply("where", {a[0], a[1], a[2]});
  });
  // Shape-like entries: a known condition picks X's or Y's entries.
  if (!c.has_output(0) || c.output(0).data || !c.output(0).rank_known) return;
  for (int i : {0, 1, 2})
    if (!c.input(i).rank_known || c.input(i).rank() > 1) return;
  const auto cond = c.contents(0), x = c.contents(1), y = c.contents(2);
  if (!cond || !x || !y) return;
  size_t n = 1;
  for (const auto* e : {&*cond, &*x, &*y})
    if (e->size() != 1) {
      if (n != 1 && n != e->size()) return;
      n = e->size();
    }
  std::vector<Length> out;
  for (size_t k = 0; k < n; ++k) {
    const Length& pc = (*cond)[cond->size() == 1 ? 0 : k];
    const auto& pick = pc.is_static() && pc.value ? *x : *y;
    out.push_back(pc.is_static() ? pick[pick.size() == 1 ? 0 : k] : Length::unknown());
  }
  set_contents(c, 0, std::move(out));
}

// ---- Clip -------------------------------------------------------------------------------------

// min(max(x, lo), hi): when lo > hi every value becomes hi, as Clip-13 specifies.
ExprFn clip_expr(bool has_lo, bool has_hi) {
  return [has_lo, has_hi](ExprBuilder& b, std::span<const ExprArg> a) {
    ExprArg r = a[0];
    size_t next = 1;
    if (has_lo) r = b.apply("max", {r, a[next++]});
    if (has_hi) r = b.apply("min", {r, a[next++]});
    if (!has_lo && !has_hi) r = b.apply("identity", {r});
    return r;
  };
}

// Clip-1 and Clip-6: the bounds are float attributes (defaults: the float range).
void clip_attributes(RuleContext& c) {
  require_input_count(c, 1, 1);
  require_types(c, 0, kFloat3);
  const float lo = c.attr_float("min", -FLT_MAX);
  const float hi = c.attr_float("max", FLT_MAX);
  same_as_input(c);
  fold_expr(c, clip_expr(true, true), {lo, hi});
}

// Clip-11 on: optional scalar inputs min and max of the input's dtype.
void clip_inputs(RuleContext& c) {
  require_input_count(c, 1, 3);
  require_types(
      c, 0,
      types_at(std::vector<TypeStep>{{11, kFloat3}, {12, kFloat3 | kInts8}, {13, kFloat4 | kInts8}},
               c.opset()));
  const DType t = c.input_dtype(0);
  for (int i : {1, 2}) {
    if (!c.has_input(i)) continue;
    const Value& b = c.input(i);
    const char* name = i == 1 ? "min" : "max";
    if (b.dtype() != t && b.dtype() != DType::kUndefined && t != DType::kUndefined)
      c.fail("input " + std::to_string(i) + " (" + name + ") is " +
             std::string(dtype_name(b.dtype())) + " but input 0 is " + std::string(dtype_name(t)) +
             "; they must match");
    if (b.rank_known) {
      auto dims = static_lengths(b.axes);
      if (dims && element_count(*dims) != 1)
        c.fail("input " + std::to_string(i) + " (" + name + ") has shape " +
               to_string_with_lengths(b.axes) + "; it must be a scalar");
    }
  }
  same_as_input(c);
  fold_expr(c, clip_expr(c.has_input(1), c.has_input(2)));
}

// ---- Cast, CastLike ---------------------------------------------------------------------------

// Cast's dtype sets by version (the same for input and output), and CastLike's from 15.
TypeSet cast_types(int opset) {
  const TypeSet base = kFloat3 | kInts8 | kBoolSet;
  TypeSet s = base;
  if (opset >= 9) s |= kStringSet;
  if (opset >= 13) s |= type_bit(DType::kBFloat16);
  if (opset >= 19) s |= kFloat8;
  if (opset >= 21) s |= type_set({DType::kUInt4, DType::kInt4});
  if (opset >= 23) s |= type_bit(DType::kFloat4E2M1);
  if (opset >= 24) s |= type_bit(DType::kFloat8E8M0);
  if (opset >= 25) s |= type_set({DType::kUInt2, DType::kInt2});
  return s;
}

CastOptions cast_options(RuleContext& c) {
  CastOptions o;
  if (c.opset() >= 19) {
    const int64_t sat = c.attr_int("saturate", 1);
    if (sat != 0 && sat != 1)
      c.fail("attribute 'saturate' must be 0 or 1, got " + std::to_string(sat));
    o.saturate = sat != 0;
  }
  if (c.opset() >= 24) {
    const std::string mode = c.attr_string("round_mode", "up");
    if (mode == "up")
      o.e8m0_round = E8M0Round::kUp;
    else if (mode == "down")
      o.e8m0_round = E8M0Round::kDown;
    else if (mode == "nearest")
      o.e8m0_round = E8M0Round::kNearest;
    else
      c.fail("attribute 'round_mode' is '" + mode + "'; it must be 'up', 'down' or 'nearest'");
  }
  return o;
}

// Output 0 = input 0 cast to `to`, with input 0's axes; folds and carries entries.
void cast_to(RuleContext& c, DType to, const CastOptions& opt) {
  same_as_input(c, 0, 0, to);
  if (!c.has_output(0) || !c.options().fold_constants) return;
  const DType from = c.input_dtype(0);
  const TensorData* in = c.constant(0);
  if (in && from != DType::kString && to != DType::kString) {
    auto shape = static_lengths(c.output(0).axes);
    if (!shape || dtype_bytes_for(to, in->elements()) > c.options().max_folded_bytes) return;
    try {
      auto out = make_tensor_data(to, *shape);
      EngineOptions eo;
      eo.cast = opt;
      assign({out->desc, out->storage->data()}, {in->desc, in->bytes()}, eo);
      c.set_output_data(0, out);
    } catch (const Error&) {
      // not castable on the engine: computed at run time
    }
    return;
  }
  if (!in) cast_contents(c);  // shape-like entries survive integer casts
}

// Cast-1: `to` is a dtype name ("FLOAT", "INT64", ...).
void cast_named(RuleContext& c) {
  require_input_count(c, 1, 1);
  require_types(c, 0, cast_types(c.opset()));
  std::string name = c.attr_string("to");
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  auto to = dtype_from_name(name);
  if (!to || !(cast_types(c.opset()) & type_bit(*to)))
    c.fail("attribute 'to' is '" + c.attr_string("to") + "', not a dtype Cast accepts here");
  cast_to(c, *to, {});
}

void cast(RuleContext& c) {
  require_input_count(c, 1, 1);
  const TypeSet types = cast_types(c.opset());
  require_types(c, 0, types);
  const int64_t to_attr = c.attr_int("to");
  auto to = to_attr >= INT32_MIN && to_attr <= INT32_MAX
                ? dtype_from_onnx(static_cast<int32_t>(to_attr))
                : std::nullopt;
  if (!to) c.fail("attribute 'to' is " + std::to_string(to_attr) + ", not an ONNX dtype");
  if (!(types & type_bit(*to)))
    c.fail("attribute 'to' is " + std::string(dtype_name(*to)) +
           ", which Cast does not produce at this opset");
  cast_to(c, *to, cast_options(c));
}

void cast_like(RuleContext& c) {
  require_input_count(c, 2, 2);
  const TypeSet types = cast_types(c.opset());
  require_types(c, 0, types, "input");
  require_types(c, 1, types, "target_type");
  cast_to(c, c.input_dtype(1), cast_options(c));
}

}  // namespace

std::span<const RuleEntry> elementwise_select_cast_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "Where", 9, where},         {"", "Clip", 1, clip_attributes},
      {"", "Clip", 11, clip_inputs},                           // the bounds became optional inputs
      {"", "Cast", 1, cast_named},     {"", "Cast", 6, cast},  // `to` became a dtype number
      {"", "CastLike", 15, cast_like},
  };
  return rules;
}

}  // namespace geon::importer
