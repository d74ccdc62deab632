// Import rules: the nn family (see families.h for the ops it covers). The rules live in one
// file per concept (nn_conv.cc, nn_pool.cc, nn_norm.cc, nn_rnn.cc, nn_attention.cc,
// nn_misc.cc); this file joins their spans and holds the helpers they share: dtype and rank
// checks and the window arithmetic of convolution and pooling.
#include "importer/ops/nn.h"

#include <limits>
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/families.h"

namespace geon::importer {

std::span<const RuleEntry> nn_rules() {
  static const std::vector<RuleEntry> rules = [] {
    std::vector<RuleEntry> all;
    for (auto part : {nn_conv_rules(), nn_pool_rules(), nn_norm_rules(), nn_rnn_rules(),
                      nn_attention_rules(), nn_misc_rules()})
      all.insert(all.end(), part.begin(), part.end());
    return all;
  }();
  return rules;
}

// ---- dtypes and ranks ----

void require_nn_float(RuleContext& c, int i, int bf16_since, const std::string& what) {
  const DType t = c.input_dtype(i);
  if (t == DType::kFloat || t == DType::kDouble || t == DType::kFloat16) return;
  if (t == DType::kBFloat16 && c.opset() >= bf16_since) return;
  c.fail("input " + std::to_string(i) + " (" + what + ") has dtype " + std::string(dtype_name(t)) +
         "; this op takes float, double or float16" +
         (c.opset() >= bf16_since ? " or bfloat16" : ""));
}

void require_same_dtype(RuleContext& c, int i, const std::string& what, DType t,
                        const std::string& other) {
  const DType u = c.input_dtype(i);
  if (u != t)
    c.fail("input " + std::to_string(i) + " (" + what + ") is " + std::string(dtype_name(u)) +
           " but " + other + " is " + std::string(dtype_name(t)) + "; they must match");
}

void require_arity(RuleContext& c, int max_inputs, int max_outputs) {
  const auto plural = [](int n, const char* what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
  };
  if (c.num_inputs() > max_inputs)
    c.fail(c.node().op + " takes at most " + plural(max_inputs, "input") + ", the node has " +
           std::to_string(c.num_inputs()));
  if (c.num_outputs() > max_outputs)
    c.fail(c.node().op + " has at most " + plural(max_outputs, "output") + ", the node has " +
           std::to_string(c.num_outputs()));
}

std::optional<int> known_rank(RuleContext& c, int i) {
  const Value& v = c.input(i);
  if (!v.rank_known) return std::nullopt;
  return v.rank();
}

void require_rank(RuleContext& c, int i, const std::string& what, int rank) {
  const auto r = known_rank(c, i);
  if (r && *r != rank)
    c.fail("input " + std::to_string(i) + " (" + what + ") has rank " + std::to_string(*r) +
           "; it must have rank " + std::to_string(rank));
}

void require_vector_of(RuleContext& c, int i, const std::string& what, const Length& n,
                       const std::string& n_what) {
  if (!c.has_input(i)) return;
  require_rank(c, i, what, 1);
  const Value& v = c.input(i);
  if (!v.rank_known) return;
  if (compare_lengths(v.axes[0].length, n) == LengthRelation::kDifferent)
    c.fail("input " + std::to_string(i) + " (" + what + ") has " + to_string(v.axes[0].length) +
           " entries but " + n_what + " is " + to_string(n));
}

// ---- arithmetic ----

std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

Axis axis_like(RuleContext& c, const Axis& source, const Length& len) {
  return make_axis_like(c.graph().factory(), source, len);
}

Length scaled_length(RuleContext& c, const Length& n, int64_t k) {
  if (!n.is_static()) return k == 1 ? n : Length::unknown();
  const auto r = checked_mul(n.value, k);
  if (!r) c.fail("length " + std::to_string(n.value) + " x " + std::to_string(k) + " overflows");
  return Length::known(*r);
}

// ---- windows ----

namespace {
// Attribute values of windows are bounded so that the formulas below cannot overflow.
constexpr int64_t kMaxWindowValue = int64_t{1} << 31;

AutoPad read_auto_pad(RuleContext& c) {
  const std::string s = c.attr_string("auto_pad", "NOTSET");
  if (s == "NOTSET" || s.empty()) return AutoPad::kNotSet;
  if (s == "SAME_UPPER") return AutoPad::kSameUpper;
  if (s == "SAME_LOWER") return AutoPad::kSameLower;
  if (s == "VALID") return AutoPad::kValid;
  c.fail("attribute 'auto_pad' is '" + s + "'; it must be NOTSET, SAME_UPPER, SAME_LOWER or VALID");
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }
}  // namespace

std::vector<int64_t> read_spatial_ints(RuleContext& c, const std::string& name, int count,
                                       int64_t fallback, int64_t lo, int64_t hi) {
  std::vector<int64_t> v = c.attr_ints(name, std::vector<int64_t>(count, fallback));
  if (static_cast<int>(v.size()) != count)
    c.fail("attribute '" + name + "' has " + std::to_string(v.size()) + " values; it needs " +
           std::to_string(count) + " (the input has " +
           std::to_string(name == "pads" ? count / 2 : count) + " spatial dims)");
  for (int64_t x : v)
    if (x < lo || x > hi)
      c.fail("attribute '" + name + "' has value " + std::to_string(x) + "; each must be in [" +
             std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

std::vector<int64_t> read_kernel_shape(RuleContext& c, int spatial) {
  if (!c.has_attr("kernel_shape")) c.fail("attribute 'kernel_shape' is required but missing");
  return read_spatial_ints(c, "kernel_shape", spatial, 1, 1, kMaxWindowValue);
}

Window read_window(RuleContext& c, std::vector<int64_t> kernel, const WindowAttrs& which) {
  const int n = static_cast<int>(kernel.size());
  for (const char* name : {"auto_pad", "dilations", "ceil_mode"}) {
    const bool allowed = std::string(name) == "auto_pad"    ? which.auto_pad
                         : std::string(name) == "dilations" ? which.dilations
                                                            : which.ceil_mode;
    if (!allowed && c.has_attr(name))
      c.fail("attribute '" + std::string(name) + "' is not part of this op version");
  }
  Window w;
  w.kernel = std::move(kernel);
  w.strides = read_spatial_ints(c, "strides", n, 1, 1, kMaxWindowValue);
  w.dilations = read_spatial_ints(c, "dilations", n, 1, 1, kMaxWindowValue);
  w.auto_pad = which.auto_pad ? read_auto_pad(c) : AutoPad::kNotSet;
  const int64_t ceil = which.ceil_mode ? c.attr_int("ceil_mode", 0) : 0;
  if (ceil != 0 && ceil != 1)
    c.fail("attribute 'ceil_mode' is " + std::to_string(ceil) + "; it must be 0 or 1");
  w.ceil_mode = ceil == 1;
  if (w.auto_pad == AutoPad::kNotSet) {
    w.pads = read_spatial_ints(c, "pads", 2 * n, 0, 0, kMaxWindowValue);
  } else {
    // pads and auto_pad must not be combined; all-zero pads say nothing and are accepted.
    const std::vector<int64_t> given = c.attr_ints("pads", std::vector<int64_t>{});
    for (int64_t p : given)
      if (p != 0) c.fail("attribute 'pads' cannot be used together with auto_pad");
    w.pads.assign(2 * n, 0);
  }
  return w;
}

Axis window_output_axis(RuleContext& c, const Window& w, int i, const Axis& in) {
  const int n = w.spatial();
  const int64_t s = w.strides[i];
  const int64_t k = w.kernel[i];
  const bool same = w.auto_pad == AutoPad::kSameUpper || w.auto_pad == AutoPad::kSameLower;
  if (same) {
    if (s == 1) return in;
    if (!in.length.is_static()) return axis_like(c, in, Length::unknown());
    return axis_like(c, in, Length::known(ceil_div(in.length.value, s)));
  }
  if (k < 0) return axis_like(c, in, Length::unknown());
  const int64_t eff = (k - 1) * w.dilations[i] + 1;  // both < 2^31: no overflow
  const int64_t pb = w.pads[i], pe = w.pads[i + n];
  if (s == 1 && pb + pe == eff - 1) return in;
  if (!in.length.is_static()) return axis_like(c, in, Length::unknown());
  const int64_t len = in.length.value;
  const auto padded = checked_add(len, pb + pe);
  if (!padded) c.fail("spatial dim " + std::to_string(i) + " overflows with its pads");
  const int64_t span = *padded - eff;
  if (span < 0)
    c.fail("the window of spatial dim " + std::to_string(i) + " (kernel " + std::to_string(k) +
           ", dilation " + std::to_string(w.dilations[i]) + ", extent " + std::to_string(eff) +
           ") is larger than the padded input length " + std::to_string(*padded));
  int64_t out = 0;
  if (w.ceil_mode && w.auto_pad == AutoPad::kNotSet) {  // VALID: floor and ceil agree
    out = ceil_div(span, s) + 1;
    // A last window that would start in the end padding is dropped.
    const auto start = checked_mul(out - 1, s);
    if (!start || *start >= len + pb) --out;
  } else {
    out = span / s + 1;
  }
  return axis_like(c, in, Length::known(out));
}

std::vector<Axis> window_output_axes(RuleContext& c, const Window& w, const Axes& x) {
  std::vector<Axis> out;
  for (int i = 0; i < w.spatial(); ++i) out.push_back(window_output_axis(c, w, i, x[i + 2]));
  return out;
}

}  // namespace geon::importer
