// Import rules: reductions (Reduce*, ArgMax, ArgMin). A reduction keeps the input's other axes
// object for object (seed 004: it names the axes it keeps); with keepdims a reduced dim becomes
// a new length-1 axis of its class. The axes list is an attribute until ReduceSum-13 and the
// other Reduce ops' 18, an input from then on, with noop_with_empty_axes. Constant inputs fold
// through the engine's reductions. CumSum, TopK and the Softmax family are in reduction_scan.cc.
#include <algorithm>
#include <vector>

#include "core/base/error.h"
#include "core/engine/engine.h"
#include "importer/ops/common.h"
#include "importer/ops/families.h"
#include "importer/ops/reduction.h"
#include "importer/ops/shape_fold.h"

namespace geon::importer {
namespace {

void require_reduce_dtype(RuleContext& c, int i, bool bool_ok, bool int8_ok) {
  const DType t = c.input_dtype(i);
  bool ok = t == DType::kFloat || t == DType::kDouble || t == DType::kFloat16 ||
            t == DType::kInt32 || t == DType::kInt64 || t == DType::kUInt32 ||
            t == DType::kUInt64 || (t == DType::kBFloat16 && c.opset() >= 13) ||
            (bool_ok && t == DType::kBool) ||
            (int8_ok && (t == DType::kInt8 || t == DType::kUInt8));
  if (!ok)
    c.fail("input " + std::to_string(i) + " has dtype " + std::string(dtype_name(t)) + ", which " +
           std::string(c.node().op) + "-" + std::to_string(c.opset()) + " does not accept");
}

Axes reduced_output_axes(RuleContext& c, const Axes& in, const std::vector<bool>& reduced,
                         bool keepdims) {
  std::vector<Axis> out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!reduced[d])
      out.push_back(in[d]);
    else if (keepdims)
      out.push_back(make_axis_like(c.graph().factory(), in[d], Length::known(1)));
  }
  return Axes(std::move(out));
}

enum class Kind { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

// Which axes are reduced: all of them, a known list, or not known at import (a computed axes
// input).
struct AxesChoice {
  bool known = true;
  std::vector<int64_t> list;  // empty: every axis (or none, with noop_with_empty_axes)
};

AxesChoice axes_from_attribute(RuleContext& c) { return {true, c.attr_ints("axes", {{}})}; }

AxesChoice axes_from_input(RuleContext& c) {
  if (!c.has_input(1)) return {};
  const Value& a = c.input(1);
  require_dtype(c, 1, {DType::kInt64});
  if (a.rank_known)
    c.require(a.rank() == 1, "input 1 (axes) must be 1-D, got " + to_string_with_lengths(a.axes));
  if (auto v = c.int_contents(1)) return {true, *v};
  if (a.rank_known && a.rank() == 1 && a.axes[0].length == Length::known(0)) return {};  // empty
  return {false, {}};
}

// The input's axes made to reduce with: each normalized, none twice.
std::vector<bool> reduced_mask(RuleContext& c, const std::vector<int64_t>& axes, int rank) {
  std::vector<bool> mask(rank, axes.empty());
  for (int64_t a : axes) {
    c.require(rank > 0 || a == 0 || a == -1,
              "axes holds " + std::to_string(a) + ", but input 0 is a scalar");
    if (rank == 0) continue;
    const int d = c.normalize_axis(a, rank, "axes entry");
    c.require(!mask[d], "axes names dim " + std::to_string(d) + " twice");
    mask[d] = true;
  }
  return mask;
}

void fold_reduce(RuleContext& c, Kind k, const std::vector<bool>& mask) {
  Reduce r = Reduce::kNone;
  switch (k) {
    case Kind::kSum:
      r = Reduce::kSum;
      break;
    case Kind::kMean:
      r = Reduce::kMean;
      break;
    case Kind::kMax:
      r = Reduce::kMax;
      break;
    case Kind::kMin:
      r = Reduce::kMin;
      break;
    case Kind::kProd:
      r = Reduce::kProd;
      break;
    default:
      return;  // composite reductions run at run time
  }
  const TensorData* in = constant_input(c, 0);
  if (!in || !c.has_output(0) || in->elements() == 0 || in->desc.dtype == DType::kString ||
      is_packed(in->desc.dtype) || (r == Reduce::kMean && !is_floating(in->desc.dtype)))
    return;
  auto out_shape = static_lengths(c.output(0).axes);
  Dims keep = in->desc.shape;
  for (size_t d = 0; d < keep.size(); ++d)
    if (mask[d]) keep[d] = 1;
  if (!out_shape || !fits_folding(c, in->desc.dtype, keep)) return;
  auto out = make_tensor_data(in->desc.dtype, keep);
  try {
    reduce(r, {out->desc, out->storage->data()}, {in->desc, in->bytes()});
  } catch (const Error&) {
    return;  // not on the engine for this dtype: computed at run time
  }
  out->desc = row_major(in->desc.dtype, *out_shape);  // same bytes, without the kept 1s
  c.set_output_data(0, out);
}

void reduce_rule(RuleContext& c, Kind k, const AxesChoice& axes, bool noop_on_empty) {
  const bool minmax = k == Kind::kMax || k == Kind::kMin;
  require_reduce_dtype(c, 0, minmax && c.opset() >= 20, minmax && c.opset() >= 12);
  const int64_t keepdims = c.attr_int("keepdims", 1);
  c.require(keepdims == 0 || keepdims == 1,
            "attribute 'keepdims' is " + std::to_string(keepdims) + ", must be 0 or 1");
  const Value& x = c.input(0);
  const DType t = x.dtype();
  if (axes.known && axes.list.empty() && noop_on_empty) {
    same_as_input(c);  // reduces nothing: the very same axes
    if (constant_input(c, 0)) c.set_output_data(0, c.input(0).data);
    return;
  }
  if (!x.rank_known) {
    c.set_output_unknown_rank(0, t);
    return;
  }
  const int r = x.rank();
  if (!axes.known) {
    // Which dims go is decided at run time: with keepdims the rank stays, each dim either
    // kept or 1; without, the rank is known when the axes input's length is.
    if (keepdims) {
      std::vector<Length> lens;
      for (const Axis& a : x.axes)  // a dim of length 1 stays 1 whether reduced or not
        lens.push_back(a.length == Length::known(1) ? a.length : Length::unknown());
      c.set_output(0, t, lens);
      return;
    }
    const Value& a = c.input(1);
    if (a.rank_known && a.rank() == 1 && a.axes[0].length.is_static() &&
        a.axes[0].length.value <= r && !noop_on_empty && a.axes[0].length.value > 0) {
      std::vector<Length> lens(r - a.axes[0].length.value, Length::unknown());
      c.set_output(0, t, lens);
      return;
    }
    c.set_output_unknown_rank(0, t);
    return;
  }
  const std::vector<bool> mask = reduced_mask(c, axes.list, r);
  c.set_output(0, t, reduced_output_axes(c, x.axes, mask, keepdims != 0));
  fold_reduce(c, k, mask);
}

// Opsets with the axes attribute, and those with the axes input (+ noop_with_empty_axes).
template <Kind K>
void reduce_attr(RuleContext& c) {
  reduce_rule(c, K, axes_from_attribute(c), false);
}

template <Kind K>
void reduce_input(RuleContext& c) {
  c.require(!c.has_attr("axes"), "attribute 'axes' is an input (1) from opset " +
                                     std::to_string(K == Kind::kSum ? 13 : 18));
  const int64_t noop = c.attr_int("noop_with_empty_axes", 0);
  c.require(noop == 0 || noop == 1,
            "attribute 'noop_with_empty_axes' is " + std::to_string(noop) + ", must be 0 or 1");
  reduce_rule(c, K, axes_from_input(c), noop != 0);
}

// ---- ArgMax / ArgMin --------------------------------------------------------------------------

void arg_reduce(RuleContext& c) {
  const DType t = c.input_dtype(0);
  const bool ok = t == DType::kFloat || t == DType::kDouble || t == DType::kFloat16 ||
                  (t == DType::kBFloat16 && c.opset() >= 13) || (is_integer(t) && !is_packed(t));
  if (!ok)
    c.fail("input 0 has dtype " + std::string(dtype_name(t)) + ", which " +
           std::string(c.node().op) + "-" + std::to_string(c.opset()) + " does not accept");
  const int64_t keepdims = c.attr_int("keepdims", 1);
  c.require(keepdims == 0 || keepdims == 1,
            "attribute 'keepdims' is " + std::to_string(keepdims) + ", must be 0 or 1");
  if (c.opset() < 12) {
    c.require(!c.has_attr("select_last_index"),
              "attribute 'select_last_index' needs opset 12 or later");
  } else {
    const int64_t last = c.attr_int("select_last_index", 0);
    c.require(last == 0 || last == 1,
              "attribute 'select_last_index' is " + std::to_string(last) + ", must be 0 or 1");
  }
  const Value& x = c.input(0);
  if (!x.rank_known) {
    c.set_output_unknown_rank(0, DType::kInt64);
    return;
  }
  c.require(x.rank() >= 1, "input 0 must have rank >= 1, got a scalar");
  const int64_t a = c.attr_int("axis", 0);
  if (c.opset() < 11)
    c.require(a >= 0,
              "attribute 'axis' " + std::to_string(a) + " is negative, which needs opset 11");
  const int axis = c.normalize_axis(a, x.rank(), "attribute 'axis'");
  std::vector<bool> mask(x.rank(), false);
  mask[axis] = true;
  c.set_output(0, DType::kInt64, reduced_output_axes(c, x.axes, mask, keepdims != 0));
}

}  // namespace

std::span<const RuleEntry> reduction_rules() {
  static const std::vector<RuleEntry> rules = [] {
    std::vector<RuleEntry> r = {
        {"", "ReduceSum", 1, reduce_attr<Kind::kSum>},
        {"", "ReduceSum", 13, reduce_input<Kind::kSum>},
        {"", "ReduceMean", 1, reduce_attr<Kind::kMean>},
        {"", "ReduceMean", 18, reduce_input<Kind::kMean>},
        {"", "ReduceMax", 1, reduce_attr<Kind::kMax>},
        {"", "ReduceMax", 18, reduce_input<Kind::kMax>},
        {"", "ReduceMin", 1, reduce_attr<Kind::kMin>},
        {"", "ReduceMin", 18, reduce_input<Kind::kMin>},
        {"", "ReduceProd", 1, reduce_attr<Kind::kProd>},
        {"", "ReduceProd", 18, reduce_input<Kind::kProd>},
        {"", "ReduceL1", 1, reduce_attr<Kind::kL1>},
        {"", "ReduceL1", 18, reduce_input<Kind::kL1>},
        {"", "ReduceL2", 1, reduce_attr<Kind::kL2>},
        {"", "ReduceL2", 18, reduce_input<Kind::kL2>},
        {"", "ReduceLogSum", 1, reduce_attr<Kind::kLogSum>},
        {"", "ReduceLogSum", 18, reduce_input<Kind::kLogSum>},
        {"", "ReduceLogSumExp", 1, reduce_attr<Kind::kLogSumExp>},
        {"", "ReduceLogSumExp", 18, reduce_input<Kind::kLogSumExp>},
        {"", "ReduceSumSquare", 1, reduce_attr<Kind::kSumSquare>},
        {"", "ReduceSumSquare", 18, reduce_input<Kind::kSumSquare>},
        {"", "ArgMax", 1, arg_reduce},
        {"", "ArgMax", 11, arg_reduce},  // negative axis
        {"", "ArgMax", 12, arg_reduce},  // select_last_index
        {"", "ArgMin", 1, arg_reduce},
        {"", "ArgMin", 11, arg_reduce},
        {"", "ArgMin", 12, arg_reduce},
    };
    for (const RuleEntry& e : scan_rules()) r.push_back(e);
    return r;
  }();
  return rules;
}

}  // namespace geon::importer
