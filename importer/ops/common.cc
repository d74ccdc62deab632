// Shared rule helpers.
#include "importer/ops/common.h"

#include <cstdint>
#include <vector>

#include "core/base/error.h"
#include "core/engine/engine.h"

namespace geon::importer {

void same_as_input(RuleContext& c, int in, int out, DType dtype) {
  const Value& v = c.input(in);
  const DType t = dtype == DType::kUndefined ? v.dtype() : dtype;
  if (!v.rank_known) {
    c.set_output_unknown_rank(out, t);
    return;
  }
  c.set_output(out, t, v.axes);
}

void broadcast_output(RuleContext& c, DType dtype) {
  for (int i = 0; i < c.num_inputs(); ++i)
    if (c.has_input(i) && !c.input(i).rank_known) {
      c.set_output_unknown_rank(0, dtype);
      return;
    }
  c.set_output(0, dtype, c.broadcast_inputs());
}

DType common_dtype(RuleContext& c, std::initializer_list<int> which) {
  std::vector<int> ids(which);
  if (ids.empty())
    for (int i = 0; i < c.num_inputs(); ++i)
      if (c.has_input(i)) ids.push_back(i);
  if (ids.empty()) c.fail("no inputs");
  const DType t = c.input_dtype(ids[0]);
  for (int i : ids)
    if (c.input_dtype(i) != t)
      c.fail("input " + std::to_string(i) + " is " + std::string(dtype_name(c.input_dtype(i))) +
             " but input " + std::to_string(ids[0]) + " is " + std::string(dtype_name(t)) +
             "; they must match");
  return t;
}

void require_dtype(RuleContext& c, int i, std::initializer_list<DType> allowed) {
  const DType t = c.input_dtype(i);
  for (DType a : allowed)
    if (a == t) return;
  c.fail("input " + std::to_string(i) + " has dtype " + std::string(dtype_name(t)) +
         ", which this op does not accept");
}

bool is_float_type(DType t) {
  return t == DType::kFloat || t == DType::kDouble || t == DType::kFloat16 || t == DType::kBFloat16;
}

namespace {
std::shared_ptr<TensorData> output_buffer(RuleContext& c) {
  if (!c.has_output(0)) return nullptr;
  const Value& out = c.output(0);
  if (!out.rank_known) return nullptr;
  auto shape = static_lengths(out.axes);
  if (!shape) return nullptr;
  const int64_t n = element_count(*shape);
  if (dtype_bytes_for(out.dtype(), n) > c.options().max_folded_bytes) return nullptr;
  return make_tensor_data(out.dtype(), *shape);
}
}  // namespace

void fold_elementwise(RuleContext& c, std::string_view engine_op, double scale_a, double scale_b) {
  if (!c.options().fold_constants || !c.all_inputs_constant()) return;
  auto out = output_buffer(c);
  if (!out) return;
  std::vector<ConstOperand> ins;
  std::vector<DType> types;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (!c.has_input(i)) continue;
    const TensorData* d = c.constant(i);
    if (d->desc.dtype == DType::kString || is_complex(d->desc.dtype)) return;
    ins.emplace_back(d->desc, d->bytes());
    types.push_back(d->desc.dtype);
  }
  try {
    if (ins.size() > 3) return;
    const Expr e = ins.size() == 1   ? single_op_expr(engine_op, types, {scale_a})
                   : ins.size() == 2 ? single_op_expr(engine_op, types, {scale_a, scale_b})
                                     : single_op_expr(engine_op, types);
    evaluate(e, {out->desc, out->storage->data()}, ins);
  } catch (const Error&) {
    return;  // not foldable on the engine (e.g. the op is missing for this dtype): run later
  }
  c.set_output_data(0, out);
}

void fold_cast(RuleContext& c) {
  if (!c.options().fold_constants || !c.all_inputs_constant()) return;
  const TensorData* in = c.constant(0);
  if (!in || in->desc.dtype == DType::kString) return;
  auto out = output_buffer(c);
  if (!out || out->desc.dtype == DType::kString) return;
  assign({out->desc, out->storage->data()}, {in->desc, in->bytes()});
  c.set_output_data(0, out);
}

Axes distinct_axes(RuleContext& c, std::vector<Axis> axes) {
  for (size_t i = 1; i < axes.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (same_axis(axes[i], axes[j])) {
        axes[i] = make_axis_like(c.graph().factory(), axes[i], axes[i].length);
        break;
      }
  return Axes(std::move(axes));
}

void require_same_length(RuleContext& c, const Length& a, const Length& b, const std::string& what,
                         const std::string& other) {
  if (compare_lengths(a, b) == LengthRelation::kDifferent)
    c.fail(what + " has length " + to_string(a) + " but " + other + " has length " + to_string(b) +
           "; they must match");
}

bool fits_folding(RuleContext& c, DType t, int64_t n) {
  const int64_t limit = c.options().max_folded_bytes;
  if (!c.options().fold_constants || n < 0 || n / 8 > limit) return false;
  if (t == DType::kString) return n <= limit / 16;
  return dtype_bytes_for(t, n) <= limit;
}

bool fits_folding(RuleContext& c, DType t, const Dims& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return false;
    if (d == 0) return fits_folding(c, t, 0);
  }
  for (int64_t d : shape) {
    if (n > INT64_MAX / d) return false;
    n *= d;
  }
  return fits_folding(c, t, n);
}

}  // namespace geon::importer
