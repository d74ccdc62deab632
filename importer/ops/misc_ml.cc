// Import rules of the other domains: ai.onnx.ml (ArrayFeatureExtractor, Binarizer,
// LabelEncoder, TreeEnsemble), ai.onnx.preview.training (Adagrad, Adam, Momentum: variadic
// inputs and outputs in groups, one per optimized tensor; Gradient) and ai.onnx.preview
// (FlexAttention, with its optional score_mod / prob_mod graphs).
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/misc.h"
#include "importer/ops/subgraph.h"

namespace geon::importer {
namespace {

constexpr std::string_view kMl = "ai.onnx.ml";
constexpr std::string_view kTraining = "ai.onnx.preview.training";
constexpr std::string_view kPreview = "ai.onnx.preview";

// ---- ai.onnx.ml ----

void array_feature_extractor(RuleContext& c) {
  if (c.num_inputs() != 2)
    c.fail("takes X and Y, got " + std::to_string(c.num_inputs()) + " inputs");
  const Value& x = c.input(0);
  require_dtype_in(c, x.dtype(),
                   {DType::kFloat, DType::kDouble, DType::kInt64, DType::kInt32, DType::kString},
                   "input 0");
  const Value& y = c.input(1);
  require_dtype_in(c, y.dtype(), {DType::kInt64}, "input 1 (indices)");
  // The indices pick along the last dim; there are as many picks as indices.
  Length picks = Length::unknown();
  if (y.rank_known)
    if (auto s = static_lengths(y.axes)) picks = Length::known(element_count(*s));
  if (!x.rank_known) {
    c.set_output_unknown_rank(0, x.dtype());
    return;
  }
  if (x.rank() == 0) c.fail("input 0 must have at least one dim");
  std::vector<Axis> axes;
  if (x.rank() == 1) {
    axes.push_back(c.new_axis(Length::known(1)));  // a vector gives one row
  } else {
    axes.assign(x.axes.begin(), x.axes.end() - 1);
  }
  axes.push_back(make_axis_like(c.graph().factory(), x.axes[x.rank() - 1], picks));
  c.set_output(0, x.dtype(), Axes(std::move(axes)));
}

void binarizer(RuleContext& c) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  require_dtype_in(c, c.input_dtype(0),
                   {DType::kFloat, DType::kDouble, DType::kInt64, DType::kInt32}, "input 0");
  c.attr_float("threshold", 0.0f);
  same_as_input(c);
}

// One family of LabelEncoder attributes (keys_* or values_*): the dtype it gives and its
// length; nullopt when none is set. `tensors` allows the *_tensor form (opset 4).
struct Mapping {
  DType dtype;
  int64_t size;
};
std::optional<Mapping> mapping(const RuleContext& c, const std::string& prefix, bool tensors) {
  std::optional<Mapping> found;
  auto take = [&](const std::string& name, Mapping m) {
    if (found)
      c.fail("only one of the attributes '" + prefix + "*' may be set ('" + name + "' too)");
    found = m;
  };
  if (c.has_attr(prefix + "floats"))
    take(prefix + "floats",
         {DType::kFloat, static_cast<int64_t>(c.attr_floats(prefix + "floats").size())});
  if (c.has_attr(prefix + "int64s"))
    take(prefix + "int64s",
         {DType::kInt64, static_cast<int64_t>(c.attr_ints(prefix + "int64s").size())});
  if (c.has_attr(prefix + "strings"))
    take(prefix + "strings",
         {DType::kString, static_cast<int64_t>(c.attr_strings(prefix + "strings").size())});
  if (c.has_attr(prefix + "tensor")) {
    if (!tensors) c.fail("attribute '" + prefix + "tensor' needs ai.onnx.ml opset 4");
    const TensorData* t = c.attr_tensor(prefix + "tensor");
    take(prefix + "tensor", {t->desc.dtype, t->elements()});
  }
  return found;
}

void label_encoder_1(RuleContext& c) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  const DType in = c.input_dtype(0);
  require_dtype_in(c, in, {DType::kString, DType::kInt64}, "input 0");
  c.attr_strings("classes_strings", std::vector<std::string>{});
  // Strings map to int64 and int64 to strings (undefined stays undefined).
  same_as_input(c, 0, 0,
                in == DType::kString  ? DType::kInt64
                : in == DType::kInt64 ? DType::kString
                                      : DType::kUndefined);
}

void label_encoder(RuleContext& c, bool tensors) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  const auto keys = mapping(c, "keys_", tensors);
  const auto values = mapping(c, "values_", tensors);
  if (!keys || !values) c.fail("needs one 'keys_*' and one 'values_*' attribute");
  if (keys->size != values->size)
    c.fail("the keys have " + std::to_string(keys->size) + " entries but the values have " +
           std::to_string(values->size));
  for (const auto& [t, what] :
       {std::pair{keys->dtype, "the keys' dtype"}, std::pair{values->dtype, "the values' dtype"}}) {
    if (tensors) {
      require_dtype_in(c, t,
                       {DType::kString, DType::kInt64, DType::kFloat, DType::kInt32, DType::kInt16,
                        DType::kDouble},
                       what);
    } else {
      require_dtype_in(c, t, {DType::kString, DType::kInt64, DType::kFloat}, what);
    }
  }
  const DType in = c.input_dtype(0);
  if (in != DType::kUndefined && in != keys->dtype)
    c.fail("input 0 is " + std::string(dtype_name(in)) + " but the keys are " +
           std::string(dtype_name(keys->dtype)));
  if (const TensorData* d = tensors ? c.attr_tensor("default_tensor") : nullptr;
      d && d->desc.dtype != values->dtype)
    c.fail("attribute 'default_tensor' is " + std::string(dtype_name(d->desc.dtype)) +
           " but the values are " + std::string(dtype_name(values->dtype)));
  same_as_input(c, 0, 0, values->dtype);
}

void label_encoder_2(RuleContext& c) { label_encoder(c, false); }
void label_encoder_4(RuleContext& c) { label_encoder(c, true); }

void tree_ensemble(RuleContext& c) {
  if (c.num_inputs() != 1) c.fail("takes one input, got " + std::to_string(c.num_inputs()));
  require_rank(c, 0, 2, "X, [N, F]");
  const Value& x = c.input(0);
  require_dtype_in(c, x.dtype(), {DType::kFloat, DType::kDouble, DType::kFloat16}, "input 0");
  const int64_t agg = c.attr_int("aggregate_function", 1);
  if (agg < 0 || agg > 3)
    c.fail("attribute 'aggregate_function' must be 0 to 3, got " + std::to_string(agg));
  const int64_t post = c.attr_int("post_transform", 0);
  if (post < 0 || post > 4)
    c.fail("attribute 'post_transform' must be 0 to 4, got " + std::to_string(post));
  const size_t nodes = c.attr_ints("nodes_featureids").size();
  for (const char* name :
       {"nodes_truenodeids", "nodes_trueleafs", "nodes_falsenodeids", "nodes_falseleafs"})
    if (c.attr_ints(name).size() != nodes)
      c.fail("attribute '" + std::string(name) + "' has " +
             std::to_string(c.attr_ints(name).size()) + " entries but 'nodes_featureids' has " +
             std::to_string(nodes));
  for (const char* name : {"nodes_modes", "nodes_splits"})
    if (const TensorData* t = c.attr_tensor(name);
        !t || t->elements() != static_cast<int64_t>(nodes))
      c.fail("attribute '" + std::string(name) + "' must be a tensor of " + std::to_string(nodes) +
             " entries");
  const size_t leaves = c.attr_ints("leaf_targetids").size();
  const TensorData* w = c.attr_tensor("leaf_weights");
  if (!w || w->elements() != static_cast<int64_t>(leaves))
    c.fail("attribute 'leaf_weights' must be a tensor of " + std::to_string(leaves) +
           " entries, one per 'leaf_targetids' entry");
  c.attr_ints("tree_roots");
  const int64_t targets = c.attr_int("n_targets", -1);
  if (c.has_attr("n_targets") && targets < 1)
    c.fail("attribute 'n_targets' must be positive, got " + std::to_string(targets));
  const Length t = targets > 0 ? Length::known(targets) : Length::unknown();
  if (!x.rank_known) {
    c.set_output(0, x.dtype(), std::vector<Length>{Length::unknown(), t});
    return;
  }
  c.set_output(0, x.dtype(), Axes{x.axes[0], c.new_axis(t)});
}

// ---- ai.onnx.preview.training ----

// Inputs R, T, then `groups` blocks of n tensors each (X..., G..., ...); the outputs are the
// blocks listed in `out_blocks` (e.g. X_new... from X..., H_new... from H...), each output with
// the axes of its input.
void optimizer(RuleContext& c, int groups, std::initializer_list<int> out_blocks,
               const char* layout) {
  const int rest = c.num_inputs() - 2;
  if (rest < groups || rest % groups != 0)
    c.fail(std::string("takes R, T and then ") + layout + " for each optimized tensor; got " +
           std::to_string(c.num_inputs()) + " inputs");
  const int n = rest / groups;
  const int outs = n * static_cast<int>(out_blocks.size());
  if (c.num_outputs() != outs)
    c.fail("has " + std::to_string(c.num_outputs()) + " outputs but optimizes " +
           std::to_string(n) + " tensors, which gives " + std::to_string(outs));
  require_dtype_in(c, c.input_dtype(0), {DType::kFloat, DType::kDouble}, "input 0 (R)");
  require_dtype_in(c, c.input_dtype(1), {DType::kInt64}, "input 1 (T)");
  for (int i : {0, 1})
    if (c.input(i).rank_known)
      if (auto s = static_lengths(c.input(i).axes); s && element_count(*s) != 1)
        c.fail("input " + std::to_string(i) + " must be a scalar");
  for (int k = 0; k < n; ++k) {
    const DType t = c.input_dtype(2 + k);
    require_dtype_in(c, t, {DType::kFloat, DType::kDouble}, "input " + std::to_string(2 + k));
    for (int b = 1; b < groups; ++b) {
      const int i = 2 + b * n + k;
      if (c.input_dtype(i) != t && c.input_dtype(i) != DType::kUndefined && t != DType::kUndefined)
        c.fail("input " + std::to_string(i) + " is " + std::string(dtype_name(c.input_dtype(i))) +
               " but the tensor it belongs to (input " + std::to_string(2 + k) + ") is " +
               std::string(dtype_name(t)));
    }
  }
  int o = 0;
  for (int b : out_blocks)
    for (int k = 0; k < n; ++k) same_as_input(c, 2 + b * n + k, o++);
}

void adagrad(RuleContext& c) { optimizer(c, 3, {0, 2}, "X, G and H"); }
void adam(RuleContext& c) { optimizer(c, 4, {0, 2, 3}, "X, G, V and H"); }
void momentum(RuleContext& c) {
  const std::string mode = c.attr_string("mode");
  if (mode != "standard" && mode != "nesterov")
    c.fail("attribute 'mode' must be 'standard' or 'nesterov', got '" + mode + "'");
  for (const char* a : {"alpha", "beta", "norm_coefficient"}) c.attr_float(a);
  optimizer(c, 3, {0, 2}, "X, G and V");
}

// Gradient: one output per name in `xs`, each the gradient of `y` with respect to it, so with
// the shape of the value fed for it (inputs are the values of xs, then of zs).
void gradient(RuleContext& c) {
  const auto xs = c.attr_strings("xs");
  const auto zs = c.attr_strings("zs", std::vector<std::string>{});
  if (c.attr_string("y").empty()) c.fail("attribute 'y' must name a value");
  if (c.num_inputs() != static_cast<int>(xs.size() + zs.size()))
    c.fail("takes one input per name in 'xs' and 'zs' (" + std::to_string(xs.size() + zs.size()) +
           "), got " + std::to_string(c.num_inputs()));
  if (c.num_outputs() != static_cast<int>(xs.size()))
    c.fail("has " + std::to_string(c.num_outputs()) + " outputs but 'xs' names " +
           std::to_string(xs.size()));
  for (int k = 0; k < c.num_outputs(); ++k) {
    require_dtype_in(c, c.input_dtype(k), float_types(false),
                     "input " + std::to_string(k) + " ('" + xs[k] + "', differentiated)");
    same_as_input(c, k, k);
  }
}

// ---- ai.onnx.preview ----

void flex_attention(RuleContext& c) {
  if (c.num_inputs() != 3)
    c.fail("takes Q, K and V, got " + std::to_string(c.num_inputs()) + " inputs");
  const char* names[] = {"Q", "K", "V"};
  for (int i = 0; i < 3; ++i) require_rank(c, i, 4, names[i]);
  const DType t = common_dtype(c, {0, 1, 2});
  require_dtype_in(c, t, float_types(true), "input 0 (Q)");
  DType precision = t == DType::kDouble ? DType::kDouble : DType::kFloat;
  if (c.has_attr("softmax_precision")) {
    precision = *dtype_attr(c, "softmax_precision");
    require_dtype_in(c, precision, float_types(true), "attribute 'softmax_precision'");
  }
  for (const char* mod : {"score_mod", "prob_mod"}) {
    const Graph* g = c.attr_graph(mod);
    if (!g) continue;
    require_graph_arity(c, *g, mod, 1, "the scores or probabilities", 1,
                        "the modified scores or probabilities");
    const DType out = graph_output(*g, 0).dtype();
    if (out != DType::kUndefined && out != precision)
      c.fail("graph '" + std::string(mod) + "' gives " + std::string(dtype_name(out)) +
             " but must keep the softmax precision, " + std::string(dtype_name(precision)));
  }
  const Value& q = c.input(0);
  const Value& k = c.input(1);
  const Value& v = c.input(2);
  if (!q.rank_known || !v.rank_known) {
    c.set_output_unknown_rank(0, t);
    return;
  }
  if (k.rank_known) {
    require_same_length(c, q.axes[0].length, k.axes[0].length, "Q's batch", "K's");
    require_same_length(c, q.axes[3].length, k.axes[3].length, "Q's head size", "K's");
    require_same_length(c, k.axes[1].length, v.axes[1].length, "K's heads", "V's");
    require_same_length(c, k.axes[2].length, v.axes[2].length, "K's sequence length", "V's");
    const Length& hq = q.axes[1].length;
    const Length& hkv = k.axes[1].length;
    if (hq.is_static() && hkv.is_static() && (hkv.value == 0 || hq.value % hkv.value != 0))
      c.fail("Q has " + std::to_string(hq.value) + " heads, not a multiple of K's " +
             std::to_string(hkv.value));
  }
  require_same_length(c, q.axes[0].length, v.axes[0].length, "Q's batch", "V's");
  c.set_output(0, t, distinct_axes(c, {q.axes[0], q.axes[1], q.axes[2], v.axes[3]}));
}

}  // namespace

std::vector<RuleEntry> misc_ml_rules() {
  return {
      {kMl, "ArrayFeatureExtractor", 1, array_feature_extractor},
      {kMl, "Binarizer", 1, binarizer},
      {kMl, "LabelEncoder", 1, label_encoder_1},
      {kMl, "LabelEncoder", 2, label_encoder_2},
      {kMl, "LabelEncoder", 4, label_encoder_4},
      {kMl, "TreeEnsemble", 5, tree_ensemble},
      {kTraining, "Adagrad", 1, adagrad},
      {kTraining, "Adam", 1, adam},
      {kTraining, "Momentum", 1, momentum},
      {kTraining, "Gradient", 1, gradient},
      {kPreview, "FlexAttention", 1, flex_attention},
  };
}

}  // namespace geon::importer
