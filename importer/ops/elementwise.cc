// Import rules: elementwise math, activations, logic, comparisons and casts. The rules live in
// elementwise_unary.cc, elementwise_activation.cc, elementwise_binary.cc and
// elementwise_select_cast.cc; this file joins them and holds the helpers they share (per-opset
// dtype sets, expression folding, shape-like entries, legacy broadcasting).
#include "importer/ops/elementwise.h"

#include <memory>
#include <string>

#include "core/base/error.h"
#include "core/engine/engine.h"
#include "importer/ops/common.h"
#include "importer/ops/families.h"
#include "importer/ops/shape_contents.h"

namespace geon::importer {

TypeSet types_at(std::span<const TypeStep> steps, int opset) {
  if (steps.empty()) return 0;
  TypeSet s = steps.front().types;
  for (const TypeStep& st : steps)
    if (st.since <= opset) s = st.types;
  return s;
}

std::string type_set_names(TypeSet s) {
  std::string out;
  for (int k = 0; k < kDTypeCount; ++k) {
    if (!(s & (TypeSet{1} << k))) continue;
    if (!out.empty()) out += ", ";
    out += dtype_name(static_cast<DType>(k));
  }
  return out;
}

void require_types(RuleContext& c, int i, TypeSet allowed, std::string_view role) {
  const DType t = c.input_dtype(i);
  if (t == DType::kUndefined || (allowed & type_bit(t))) return;
  std::string what = "input " + std::to_string(i);
  if (!role.empty()) what += " (" + std::string(role) + ")";
  c.fail(what + " has dtype " + std::string(dtype_name(t)) +
         ", which this op does not accept at this opset (accepted: " + type_set_names(allowed) +
         ")");
}

void require_input_count(RuleContext& c, int lo, int hi) {
  const int n = c.num_inputs();
  if (n < lo || n > hi)
    c.fail("takes " +
           (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
           " inputs, got " + std::to_string(n));
  require_tensor_inputs(c);
}

void require_tensor_inputs(RuleContext& c) {
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (!c.has_input(i)) continue;
    const TypeKind k = c.input(i).type.kind;
    if (k != TypeKind::kTensor && k != TypeKind::kUnknown)
      c.fail("input " + std::to_string(i) + " is " + to_string(c.input(i).type) +
             "; this op takes tensors");
  }
}

// ---- entries ---------------------------------------------------------------------------------

void binary_entries(RuleContext& c, int in_a, int in_b, const EntryFn& combine) {
  if (!c.has_output(0) || c.output(0).data) return;
  const DType t = c.output(0).dtype();
  if (!is_integer(t) && t != DType::kBool) return;
  for (int i : {in_a, in_b})
    if (!c.has_input(i) || !c.input(i).rank_known || c.input(i).rank() > 1) return;
  const auto a = c.contents(in_a), b = c.contents(in_b);
  if (!a || !b) return;
  const size_t n = std::max(a->size(), b->size());
  if ((a->size() != n && a->size() != 1) || (b->size() != n && b->size() != 1)) return;
  std::vector<Length> out;
  for (size_t k = 0; k < n; ++k)
    out.push_back(combine((*a)[a->size() == 1 ? 0 : k], (*b)[b->size() == 1 ? 0 : k]));
  set_contents(c, 0, std::move(out));
}

// ---- folding ---------------------------------------------------------------------------------

void fold_expr(RuleContext& c, const ExprFn& build, std::vector<double> scalars) {
  if (!c.options().fold_constants || !c.has_output(0)) return;
  const Value& out_v = c.output(0);
  if (!out_v.rank_known || out_v.dtype() == DType::kString || is_complex(out_v.dtype())) return;
  auto out_shape = static_lengths(out_v.axes);
  if (!out_shape) return;
  const int64_t n = element_count(*out_shape);
  if (dtype_bytes_for(out_v.dtype(), n) > c.options().max_folded_bytes) return;

  std::vector<std::shared_ptr<const TensorData>> keep;
  std::vector<ConstOperand> ins;
  std::vector<DType> types;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (!c.has_input(i)) continue;
    std::shared_ptr<const TensorData> d = c.input(i).data;
    if (!d) {
      // A shape-like tensor whose entries are all numbers but whose data was not set.
      const Value& v = c.input(i);
      auto e = c.contents(i);
      auto shape = v.rank_known ? static_lengths(v.axes) : std::nullopt;
      if (!e || !shape || !all_static(*e)) return;
      std::vector<int64_t> values;
      for (const Length& l : *e) values.push_back(l.value);
      d = int_data(v.dtype(), *shape, values);
      if (!d) return;
    }
    if (d->desc.dtype == DType::kString || is_complex(d->desc.dtype)) return;
    keep.push_back(d);
    ins.emplace_back(d->desc, d->bytes());
    types.push_back(d->desc.dtype);
  }
  if (ins.empty()) return;
  try {
    const DType st = compute_dtype(types[0]);
    for (double s : scalars) {
      ins.push_back(ConstOperand::scalar(s, st));
      types.push_back(st);
    }
    ExprBuilder b(types);
    std::vector<ExprArg> args;
    for (size_t i = 0; i < ins.size(); ++i) args.push_back(b.input(static_cast<int>(i)));
    build(b, args);
    auto out = make_tensor_data(out_v.dtype(), *out_shape);
    evaluate(b.build(), {out->desc, out->storage->data()}, ins);
    c.set_output_data(0, out);
  } catch (const Error&) {
    // not foldable on the engine (an op missing for this dtype...): computed at run time
  }
}

// ---- broadcasting ------------------------------------------------------------------------------

void legacy_broadcast_output(RuleContext& c, DType dtype) {
  const Value& a = c.input(0);
  const Value& b = c.input(1);
  const bool bcast = c.attr_int("broadcast", 0) != 0;
  const bool has_axis = c.has_attr("axis");
  const int64_t axis_attr = c.attr_int("axis", 0);
  if (!bcast && has_axis) c.fail("attribute 'axis' is only meaningful with broadcast=1");
  if (!a.rank_known) {
    c.set_output_unknown_rank(0, dtype);
    return;
  }
  if (!b.rank_known) {
    c.set_output(0, dtype, a.axes);
    return;
  }
  const int ra = a.rank(), rb = b.rank();
  int start = 0;
  if (!bcast) {
    if (ra != rb)
      c.fail("input 1 has rank " + std::to_string(rb) + " but input 0 has rank " +
             std::to_string(ra) + "; without broadcast=1 their shapes must be equal");
  } else {
    if (rb > ra)
      c.fail("input 1 has rank " + std::to_string(rb) + ", more than input 0's rank " +
             std::to_string(ra) + "; broadcast=1 broadcasts input 1 onto input 0");
    if (has_axis) {
      if (axis_attr < -ra || axis_attr >= std::max(ra, 1))
        c.fail("attribute 'axis' " + std::to_string(axis_attr) + " is out of range for rank " +
               std::to_string(ra));
      start = static_cast<int>(axis_attr < 0 ? axis_attr + ra : axis_attr);
      if (start + rb > ra)
        c.fail("input 1 has rank " + std::to_string(rb) + ", which does not fit into input 0's " +
               std::to_string(ra) + " dims from axis " + std::to_string(start));
    } else {
      start = ra - rb;
    }
  }
  for (int k = 0; k < rb; ++k) {
    const Length& lb = b.axes[k].length;
    const Length& la = a.axes[start + k].length;
    if (lb.is_static() && lb.value == 1 && bcast) continue;
    if (compare_lengths(la, lb) == LengthRelation::kDifferent)
      c.fail("input 1's dim " + std::to_string(k) + " has length " + to_string(lb) +
             " but input 0's dim " + std::to_string(start + k) + " has length " + to_string(la));
  }
  c.set_output(0, dtype, a.axes);
}

// ---- the family ------------------------------------------------------------------------------

std::span<const RuleEntry> elementwise_rules() {
  static const std::vector<RuleEntry> rules = [] {
    std::vector<RuleEntry> all;
    for (auto part : {elementwise_unary_rules(), elementwise_activation_rules(),
                      elementwise_binary_rules(), elementwise_select_cast_rules()})
      all.insert(all.end(), part.begin(), part.end());
    return all;
  }();
  return rules;
}

}  // namespace geon::importer
