// Import rules: normalizations and Dropout. Every one keeps its input's axes for Y; the
// statistics outputs (BatchNormalization's running mean and variance, LayerNormalization's
// Mean and InvStdDev) take X's channel axis or X's leading axes.
#include <set>
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/nn.h"

namespace geon::importer {
namespace {

// A bf16_since for op versions whose types never included bfloat16.
constexpr int kNever = 1 << 30;

std::string input_name(int i, const char* name) {
  return "input " + std::to_string(i) + " (" + name + ")";
}

// Fails unless input i is of the float types of this version.
void require_float_in(RuleContext& c, int i, const char* name, int bf16_since) {
  if (c.has_input(i)) require_nn_float(c, i, bf16_since, name);
}

// Input `i` (when present and ranked) is a vector of length `n` (the channel count).
void require_channels(RuleContext& c, int i, const char* name, const Length& n) {
  require_vector_of(c, i, name, n, "X's channel count");
}

// X's rank, failing below `min` (nullopt when unknown).
std::optional<int> ranked_x(RuleContext& c, int min, const char* shape) {
  const auto r = known_rank(c, 0);
  if (r && *r < min)
    c.fail("input 0 (X) has rank " + std::to_string(*r) + "; it must be " + shape + ", rank " +
           std::to_string(min) + " or more");
  return r;
}

// ---- BatchNormalization ----

// `version`: the since-version of the rule (1, 6, 7, 9, 14, 15).
void batch_norm(RuleContext& c, int version) {
  require_arity(c, 5, version >= 14 ? 3 : 5);
  const int bf16 = version >= 14 ? 14 : kNever;
  require_float_in(c, 0, "X", bf16);
  const DType t = c.input_dtype(0);
  const char* names[] = {"X", "scale", "B", "mean", "var"};
  for (int i = 1; i < 5; ++i) require_float_in(c, i, names[i], bf16);
  // Before 14 every input has X's type; 14 gives mean and var a type of their own (U), and 15
  // scale and B too (T1, with mean and var T2).
  const bool own_stats = version >= 14;
  const bool own_scale = version >= 15;
  if (!own_scale) require_same_dtype(c, 1, "scale", t, "X");
  require_same_dtype(c, 2, "B", own_scale ? c.input_dtype(1) : t, own_scale ? "scale" : "X");
  if (!own_stats) require_same_dtype(c, 3, "mean", t, "X");
  require_same_dtype(c, 4, "var", own_stats ? c.input_dtype(3) : t, own_stats ? "mean" : "X");
  bool spatial = true;
  if (version < 9) {
    const int64_t s = c.attr_int("spatial", 1);
    if (s != 0 && s != 1)
      c.fail("attribute 'spatial' is " + std::to_string(s) + "; it must be 0 or 1");
    spatial = s == 1;
  } else if (c.has_attr("spatial")) {
    c.fail("attribute 'spatial' was removed in BatchNormalization-9");
  }
  if (version >= 7 && c.has_attr("is_test"))
    c.fail("attribute 'is_test' was removed in BatchNormalization-7");
  bool training = false;
  if (version >= 14) {
    const int64_t tm = c.attr_int("training_mode", 0);
    if (tm != 0 && tm != 1)
      c.fail("attribute 'training_mode' is " + std::to_string(tm) + "; it must be 0 or 1");
    training = tm == 1;
    if (!training && (c.has_output(1) || c.has_output(2)))
      c.fail("outputs running_mean and running_var exist only with training_mode = 1");
  } else if (c.has_attr("training_mode")) {
    c.fail("attribute 'training_mode' came with BatchNormalization-14");
  }
  const auto rank = ranked_x(c, 2, "(N, C, D1, ...)");
  const Value& x = c.input(0);
  if (rank && spatial) {
    for (int i = 1; i < 5; ++i) require_channels(c, i, names[i], x.axes[1].length);
  } else if (rank) {
    // spatial = 0 (before 9): the statistics are per activation, of shape (C, D1, ...).
    for (int i = 1; i < 5; ++i) require_rank(c, i, names[i], *rank - 1);
  }
  same_as_input(c, 0, 0);
  // The statistics outputs: mean's type and (per channel) X's channel axis.
  const DType stat_t = c.input_dtype(3);
  const Value& mean = c.input(3);
  for (int o = 1; o < c.num_outputs(); ++o) {
    if (rank && spatial)
      c.set_output(o, stat_t, Axes({x.axes[1]}));
    else if (mean.rank_known)
      c.set_output(o, stat_t, mean.axes);
    else
      c.set_output_unknown_rank(o, stat_t);
  }
}

template <int V>
void batch_norm_rule(RuleContext& c) {
  batch_norm(c, V);
}

// ---- per-channel and per-group normalizations ----

void instance_norm(RuleContext& c) {
  require_arity(c, 3, 1);
  require_float_in(c, 0, "input", 22);
  const DType t = c.input_dtype(0);
  require_same_dtype(c, 1, "scale", t, "input");
  require_same_dtype(c, 2, "B", t, "input");
  if (ranked_x(c, 3, "(N, C, D1, ...)")) {
    require_channels(c, 1, "scale", c.input(0).axes[1].length);
    require_channels(c, 2, "B", c.input(0).axes[1].length);
  }
  same_as_input(c, 0, 0);
}

// GroupNormalization: scale and bias are (num_groups) at 18, (C) from 21.
void group_norm(RuleContext& c, bool per_channel) {
  require_arity(c, 3, 1);
  require_float_in(c, 0, "X", 18);
  const DType t = c.input_dtype(0);
  require_same_dtype(c, 1, "scale", t, "X");
  require_same_dtype(c, 2, "bias", t, "X");
  if (!c.has_attr("num_groups")) c.fail("attribute 'num_groups' is required but missing");
  const int64_t groups = c.attr_int("num_groups");
  if (groups < 1)
    c.fail("attribute 'num_groups' is " + std::to_string(groups) + "; it must be at least 1");
  if (per_channel) {
    const int64_t stash = c.attr_int("stash_type", 1);
    const auto st = dtype_from_onnx(static_cast<int32_t>(stash));
    if (!st || !is_float_type(*st))
      c.fail("attribute 'stash_type' is " + std::to_string(stash) + "; it must be a float type");
  } else if (c.has_attr("stash_type")) {
    c.fail("attribute 'stash_type' came with GroupNormalization-21");
  }
  if (ranked_x(c, 2, "(N, C, D1, ...)")) {
    const Length& ch = c.input(0).axes[1].length;
    if (ch.is_static() && ch.value % groups != 0)
      c.fail("X has " + std::to_string(ch.value) + " channels, which num_groups " +
             std::to_string(groups) + " does not divide");
    const Length n = per_channel ? ch : Length::known(groups);
    const char* what = per_channel ? "X's channel count" : "attribute 'num_groups'";
    require_vector_of(c, 1, "scale", n, what);
    require_vector_of(c, 2, "bias", n, what);
  }
  same_as_input(c, 0, 0);
}

void group_norm_18(RuleContext& c) { group_norm(c, false); }
void group_norm_21(RuleContext& c) { group_norm(c, true); }

// ---- normalizations over trailing axes ----

// Fails unless input i (scale or bias) broadcasts onto X's dims from `axis` on.
void require_trailing_broadcast(RuleContext& c, int i, const char* name, const Value& x, int axis) {
  if (!c.has_input(i) || !c.input(i).rank_known) return;
  const Value& s = c.input(i);
  if (s.rank() > x.rank() - axis)
    c.fail(input_name(i, name) + " has rank " + std::to_string(s.rank()) + " but only " +
           std::to_string(x.rank() - axis) + " dims of X are normalized (axis " +
           std::to_string(axis) + ")");
  for (int k = 0; k < s.rank(); ++k) {
    const Length& l = s.axes[s.rank() - 1 - k].length;
    const Length& xl = x.axes[x.rank() - 1 - k].length;
    if (l == Length::known(1)) continue;
    require_same_length(c, l, xl, input_name(i, name) + " dim " + std::to_string(s.rank() - 1 - k),
                        "X's dim " + std::to_string(x.rank() - 1 - k));
  }
}

DType read_stash_type(RuleContext& c) {
  const int64_t stash = c.attr_int("stash_type", 1);
  const auto st = dtype_from_onnx(static_cast<int32_t>(stash));
  if (!st || !is_float_type(*st))
    c.fail("attribute 'stash_type' is " + std::to_string(stash) + "; it must be a float type");
  return *st;
}

// LayerNormalization-17: Y like X; Mean and InvStdDev keep X's axes before `axis` and have
// length 1 from there, in the stash type.
void layer_norm(RuleContext& c) {
  require_arity(c, 3, 3);
  require_float_in(c, 0, "X", 17);
  const DType t = c.input_dtype(0);
  require_same_dtype(c, 1, "Scale", t, "X");
  if (c.has_input(2)) require_same_dtype(c, 2, "B", t, "X");
  const DType stash = read_stash_type(c);
  if (stash != DType::kFloat && stash != DType::kBFloat16)
    c.fail("attribute 'stash_type' must be float or bfloat16 for LayerNormalization");
  same_as_input(c, 0, 0);
  const Value& x = c.input(0);
  if (!x.rank_known) {
    c.set_output_unknown_rank(1, stash);
    c.set_output_unknown_rank(2, stash);
    return;
  }
  if (x.rank() < 1) c.fail("input 0 (X) is a scalar; it needs at least one dim to normalize");
  const int axis = c.normalize_axis(c.attr_int("axis", -1), x.rank());
  require_trailing_broadcast(c, 1, "Scale", x, axis);
  require_trailing_broadcast(c, 2, "B", x, axis);
  std::vector<Axis> stat;
  for (int i = 0; i < x.rank(); ++i)
    stat.push_back(i < axis || x.axes[i].length == Length::known(1)
                       ? x.axes[i]
                       : axis_like(c, x.axes[i], Length::known(1)));
  const Axes stat_axes(std::move(stat));
  c.set_output(1, stash, stat_axes);
  c.set_output(2, stash, stat_axes);
}

// RMSNormalization-23: Y has X's shape and the scale's type (V).
void rms_norm(RuleContext& c) {
  require_arity(c, 2, 1);
  require_float_in(c, 0, "X", 23);
  require_float_in(c, 1, "scale", 23);
  read_stash_type(c);
  const Value& x = c.input(0);
  const DType v = c.input_dtype(1);
  if (!x.rank_known) {
    c.set_output_unknown_rank(0, v);
    return;
  }
  if (x.rank() < 1) c.fail("input 0 (X) is a scalar; it needs at least one dim to normalize");
  const int axis = c.normalize_axis(c.attr_int("axis", -1), x.rank());
  require_trailing_broadcast(c, 1, "scale", x, axis);
  c.set_output(0, v, x.axes);
}

void lrn(RuleContext& c) {
  require_arity(c, 1, 1);
  require_float_in(c, 0, "X", 13);
  if (!c.has_attr("size")) c.fail("attribute 'size' is required but missing");
  const int64_t size = c.attr_int("size");
  if (size < 1) c.fail("attribute 'size' is " + std::to_string(size) + "; it must be >= 1");
  ranked_x(c, 3, "(N, C, D1, ...)");
  same_as_input(c, 0, 0);
}

void mean_variance_norm(RuleContext& c) {
  require_arity(c, 1, 1);
  require_float_in(c, 0, "X", 13);
  const std::vector<int64_t> axes = c.attr_ints("axes", std::vector<int64_t>{0, 2, 3});
  if (const auto r = known_rank(c, 0)) {
    std::set<int> seen;
    for (int64_t a : axes)
      if (!seen.insert(c.normalize_axis(a, *r, "attribute 'axes' entry")).second)
        c.fail("attribute 'axes' names axis " + std::to_string(a) + " twice");
  }
  same_as_input(c, 0, 0);
}

// ---- Dropout ----

bool is_float8(DType t) {
  return t == DType::kFloat8E4M3FN || t == DType::kFloat8E4M3FNUZ || t == DType::kFloat8E5M2 ||
         t == DType::kFloat8E5M2FNUZ;
}

// Dropout: output like data; mask of data's type before 10, bool from 10. From 12 the ratio
// and training_mode are optional scalar inputs instead of attributes.
void dropout(RuleContext& c, int version) {
  require_arity(c, 3, 2);  // fewer inputs before 12: checked below
  const int bf16 = version >= 13 ? 13 : kNever;
  const DType t = c.input_dtype(0);
  if (!(c.opset() >= 22 && is_float8(t))) require_nn_float(c, 0, bf16, "data");
  if (version < 12) {
    if (c.num_inputs() > 1) c.fail("Dropout before opset 12 has one input; ratio is an attribute");
    const float ratio = c.attr_float("ratio", 0.5f);
    if (!(ratio >= 0 && ratio < 1))
      c.fail("attribute 'ratio' is " + std::to_string(ratio) + "; it must be in [0, 1)");
    if (version >= 7 && c.has_attr("is_test"))
      c.fail("attribute 'is_test' was removed in Dropout-7");
  } else {
    for (const char* a : {"ratio", "is_test"})
      if (c.has_attr(a))
        c.fail("attribute '" + std::string(a) + "' is not part of Dropout-12 and later");
    const char* names[] = {"data", "ratio", "training_mode"};
    for (int i = 1; i < 3; ++i) {
      if (!c.has_input(i)) continue;
      const Value& v = c.input(i);
      if (i == 1 && !(is_float_type(v.dtype()) || (c.opset() >= 22 && is_float8(v.dtype()))))
        c.fail("input 1 (ratio) has dtype " + std::string(dtype_name(v.dtype())) +
               "; it must be a float type");
      if (i == 2 && v.dtype() != DType::kBool)
        c.fail("input 2 (training_mode) has dtype " + std::string(dtype_name(v.dtype())) +
               "; it must be bool");
      if (v.rank_known && v.rank() > 1)
        c.fail(input_name(i, names[i]) + " must be a scalar, it has rank " +
               std::to_string(v.rank()));
      if (v.data && v.data->elements() != 1)
        c.fail(input_name(i, names[i]) + " must hold one value, it has " +
               std::to_string(v.data->elements()));
    }
    if (const TensorData* r = c.constant(1); r && r->elements() == 1) {
      const double ratio = element_as_double(*r, 0);
      if (!(ratio >= 0 && ratio < 1))
        c.fail("input 1 (ratio) is " + std::to_string(ratio) + "; it must be in [0, 1)");
    }
  }
  same_as_input(c, 0, 0);
  if (c.has_output(1)) same_as_input(c, 0, 1, version >= 10 ? DType::kBool : t);
}

template <int V>
void dropout_rule(RuleContext& c) {
  dropout(c, V);
}

}  // namespace

std::span<const RuleEntry> nn_norm_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "BatchNormalization", 1, batch_norm_rule<1>},    // consumed_inputs, is_test, spatial
      {"", "BatchNormalization", 6, batch_norm_rule<6>},    // is_test, spatial
      {"", "BatchNormalization", 7, batch_norm_rule<7>},    // spatial
      {"", "BatchNormalization", 9, batch_norm_rule<9>},    // per channel only
      {"", "BatchNormalization", 14, batch_norm_rule<14>},  // training_mode, U for mean/var
      {"", "BatchNormalization", 15, batch_norm_rule<15>},  // scale/B type T1, mean/var T2
      {"", "InstanceNormalization", 1, instance_norm},
      {"", "LayerNormalization", 17, layer_norm},
      {"", "GroupNormalization", 18, group_norm_18},  // scale and bias per group
      {"", "GroupNormalization", 21, group_norm_21},  // scale and bias per channel
      {"", "RMSNormalization", 23, rms_norm},
      {"", "LRN", 1, lrn},
      {"", "MeanVarianceNormalization", 9, mean_variance_norm},
      {"", "Dropout", 1, dropout_rule<1>},    // is_test, ratio attribute
      {"", "Dropout", 7, dropout_rule<7>},    // no is_test
      {"", "Dropout", 10, dropout_rule<10>},  // mask is bool
      {"", "Dropout", 12, dropout_rule<12>},  // ratio, training_mode inputs
      {"", "Dropout", 13, dropout_rule<13>},  // bfloat16
  };
  return rules;
}

}  // namespace geon::importer
