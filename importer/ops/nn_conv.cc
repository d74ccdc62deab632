// Import rules: convolutions. Conv and DeformConv slide a window (nn.cc's formulas);
// ConvTranspose inverts it (output_shape, output_padding, auto_pad); CausalConvWithState is a
// depthwise causal Conv with a carried state. The batch axis of the output is X's; output
// channels are a new axis; a spatial axis stays X's own where its length provably does.
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/nn.h"

namespace geon::importer {
namespace {

constexpr int64_t kMaxKernel = int64_t{1} << 31;

std::string join(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// X (N, C, D1, ...) with rank >= 3 and W of the same rank; returns X's rank, or nullopt when
// X's rank is unknown (the output is then of unknown rank too).
std::optional<int> conv_ranks(RuleContext& c, const std::string& op_shape) {
  const auto xr = known_rank(c, 0);
  const auto wr = known_rank(c, 1);
  if (xr && *xr < 3)
    c.fail("input 0 (X) has rank " + std::to_string(*xr) + "; it must be " + op_shape +
           ", rank 3 or more");
  if (xr && wr && *xr != *wr)
    c.fail("input 1 (W) has rank " + std::to_string(*wr) + " but X has rank " +
           std::to_string(*xr) + "; they must match");
  if (!xr && wr && *wr < 3)
    c.fail("input 1 (W) has rank " + std::to_string(*wr) + "; it must be rank 3 or more");
  return xr;
}

// The kernel sizes: the 'kernel_shape' attribute when given (it must agree with W), else W's
// spatial dims; -1 where neither tells.
std::vector<int64_t> conv_kernel(RuleContext& c, int spatial) {
  const Value& w = c.input(1);
  std::vector<int64_t> k(spatial, -1);
  if (w.rank_known)
    for (int i = 0; i < spatial; ++i) {
      const Length& l = w.axes[i + 2].length;
      if (!l.is_static()) continue;
      if (l.value < 1 || l.value > kMaxKernel)
        c.fail("input 1 (W) has kernel length " + std::to_string(l.value) + " in spatial dim " +
               std::to_string(i) + "; it must be in [1, 2^31]");
      k[i] = l.value;
    }
  if (!c.has_attr("kernel_shape")) return k;
  const std::vector<int64_t> attr = read_kernel_shape(c, spatial);
  for (int i = 0; i < spatial; ++i)
    if (k[i] >= 0 && k[i] != attr[i])
      c.fail("attribute 'kernel_shape' is " + join(attr) + " but W's spatial dims say " +
             std::to_string(k[i]) + " in spatial dim " + std::to_string(i));
  return attr;
}

int64_t read_group(RuleContext& c) {
  const int64_t g = c.attr_int("group", 1);
  if (g < 1 || g > kMaxKernel)
    c.fail("attribute 'group' is " + std::to_string(g) + "; it must be in [1, 2^31]");
  return g;
}

// Fails when a static length is provably not a multiple of `k`.
void require_multiple(RuleContext& c, const Length& n, int64_t k, const std::string& what,
                      const std::string& of) {
  if (n.is_static() && n.value % k != 0)
    c.fail(what + " is " + std::to_string(n.value) + ", which is not a multiple of " + of + " " +
           std::to_string(k));
}

// Conv's channel rule: X has W[1] * group channels, and group divides W[0].
void check_conv_channels(RuleContext& c, const Value& x, const Value& w, int64_t group) {
  if (!w.rank_known) return;
  require_multiple(c, w.axes[0].length, group, "W's output channel count (dim 0)",
                   "attribute 'group'");
  if (!x.rank_known) return;
  const Length want = scaled_length(c, w.axes[1].length, group);
  if (compare_lengths(x.axes[1].length, want) == LengthRelation::kDifferent)
    c.fail("input 0 (X) has " + to_string(x.axes[1].length) + " channels but W takes " +
           to_string(w.axes[1].length) + " per group x " + std::to_string(group) +
           " groups = " + to_string(want) + " (weight channels must match X's channels / group)");
}

// X of unknown rank: the output still has W's rank (when known) and the channel axis `m`.
void output_without_x_rank(RuleContext& c, DType t, const Axis& m) {
  const Value& w = c.input(1);
  if (!w.rank_known) {
    c.set_output_unknown_rank(0, t);
    return;
  }
  std::vector<Axis> out = {c.new_axis(Length::unknown()), m};
  for (int i = 2; i < w.rank(); ++i) out.push_back(c.new_axis(Length::unknown()));
  c.set_output(0, t, Axes(std::move(out)));
}

Axis channel_axis(RuleContext& c, const Value& w, int dim) {
  return c.new_axis(w.rank_known ? w.axes[dim].length : Length::unknown());
}

void conv_bias(RuleContext& c, int i, const Length& m) {
  require_vector_of(c, i, "B", m, "the number of output channels");
}

// What Conv and ConvTranspose read alike, in this order: inputs (X, W, B?) of one float
// type, X's rank and the 'group' attribute.
struct ConvInputs {
  DType t;
  std::optional<int> rank;
  int64_t group;
};

ConvInputs read_conv_inputs(RuleContext& c) {
  require_arity(c, 3, 1);
  require_nn_float(c, 0, 22, "X");
  const DType t = c.input_dtype(0);
  require_same_dtype(c, 1, "W", t, "X");
  if (c.has_input(2)) require_same_dtype(c, 2, "B", t, "X");
  const auto rank = conv_ranks(c, "(N, C, D1, ...)");
  return {t, rank, read_group(c)};
}

void conv(RuleContext& c) {
  const auto [t, rank, group] = read_conv_inputs(c);
  const Value& x = c.input(0);
  const Value& w = c.input(1);
  check_conv_channels(c, x, w, group);
  const Axis m = channel_axis(c, w, 0);
  conv_bias(c, 2, m.length);
  if (!rank) {
    output_without_x_rank(c, t, m);
    return;
  }
  const Window win = read_window(c, conv_kernel(c, *rank - 2), {});
  std::vector<Axis> out = {x.axes[0], m};
  for (const Axis& a : window_output_axes(c, win, x.axes)) out.push_back(a);
  c.set_output(0, t, distinct_axes(c, std::move(out)));
}

// ConvTranspose's output length along spatial dim i.
Axis transposed_axis(RuleContext& c, const Window& w, const std::vector<int64_t>& output_padding,
                     const std::vector<int64_t>& output_shape, int i, const Axis& in) {
  const int n = w.spatial();
  if (!output_shape.empty()) {
    if (output_shape[i] < 0)
      c.fail("attribute 'output_shape' has a negative length " + std::to_string(output_shape[i]));
    return axis_like(c, in, Length::known(output_shape[i]));
  }
  const int64_t s = w.strides[i];
  if (w.auto_pad == AutoPad::kSameUpper || w.auto_pad == AutoPad::kSameLower) {
    if (s == 1) return in;
    return axis_like(c, in, scaled_length(c, in.length, s));
  }
  if (w.kernel[i] < 0) return axis_like(c, in, Length::unknown());
  const int64_t eff = (w.kernel[i] - 1) * w.dilations[i] + 1;
  const int64_t grow = output_padding[i] + eff - w.pads[i] - w.pads[i + n];
  if (s == 1 && grow == 1) return in;
  if (!in.length.is_static()) return axis_like(c, in, Length::unknown());
  const auto base = checked_mul(s, in.length.value - 1);
  const auto len = base ? checked_add(*base, grow) : std::nullopt;
  if (!len) c.fail("the output length of spatial dim " + std::to_string(i) + " overflows");
  if (*len < 0)
    c.fail("the output length of spatial dim " + std::to_string(i) + " would be " +
           std::to_string(*len) + ": pads exceed the stretched input plus kernel");
  return axis_like(c, in, Length::known(*len));
}

void conv_transpose(RuleContext& c) {
  const auto [t, rank, group] = read_conv_inputs(c);
  const Value& x = c.input(0);
  const Value& w = c.input(1);
  // W is (C, M / group, k1, ...): X's channels are W's dim 0, the output has W[1] * group.
  if (x.rank_known) require_multiple(c, x.axes[1].length, group, "X's channel count", "group");
  if (x.rank_known && w.rank_known)
    require_same_length(c, w.axes[0].length, x.axes[1].length, "input 1 (W) dim 0",
                        "X's channel count");
  const Axis m =
      c.new_axis(w.rank_known ? scaled_length(c, w.axes[1].length, group) : Length::unknown());
  conv_bias(c, 2, m.length);
  if (!rank) {
    output_without_x_rank(c, t, m);
    return;
  }
  const int spatial = *rank - 2;
  const Window win = read_window(c, conv_kernel(c, spatial), {});
  std::vector<int64_t> output_padding =
      read_spatial_ints(c, "output_padding", spatial, 0, 0, kMaxKernel);
  for (int i = 0; i < spatial; ++i)
    if (output_padding[i] >= std::max(win.strides[i], win.dilations[i]))
      c.fail("attribute 'output_padding' is " + std::to_string(output_padding[i]) +
             " in spatial dim " + std::to_string(i) + "; it must be less than the stride (" +
             std::to_string(win.strides[i]) + ") or the dilation (" +
             std::to_string(win.dilations[i]) + ")");
  std::vector<int64_t> output_shape = c.attr_ints("output_shape", std::vector<int64_t>{});
  // Some exporters give the full shape (N, C, D1, ...); its spatial part is what counts.
  if (static_cast<int>(output_shape.size()) == *rank)
    output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  if (!output_shape.empty() && static_cast<int>(output_shape.size()) != spatial)
    c.fail("attribute 'output_shape' has " + std::to_string(output_shape.size()) +
           " values; it needs " + std::to_string(spatial) + " (one per spatial dim)");
  std::vector<Axis> out = {x.axes[0], m};
  for (int i = 0; i < spatial; ++i)
    out.push_back(transposed_axis(c, win, output_padding, output_shape, i, x.axes[i + 2]));
  c.set_output(0, t, distinct_axes(c, std::move(out)));
}

// An output spatial axis of DeformConv: the conv formula's, checked against (and where the
// formula cannot tell, taken from) the offset input's matching dim.
Axis deform_spatial(RuleContext& c, const Axis& computed, const Value& offset, int i) {
  if (!offset.rank_known) return computed;
  const Axis& o = offset.axes[i + 2];
  switch (compare_lengths(computed.length, o.length)) {
    case LengthRelation::kDifferent:
      c.fail("input 2 (offset) has " + to_string(o.length) + " in spatial dim " +
             std::to_string(i) + " but the output has " + to_string(computed.length));
    case LengthRelation::kEqual:
      return computed;
    case LengthRelation::kUndecided:
      break;
  }
  return computed.length.is_unknown() ? o : computed;
}

void deform_conv(RuleContext& c) {
  require_arity(c, 5, 1);
  require_nn_float(c, 0, 22, "X");
  const DType t = c.input_dtype(0);
  require_same_dtype(c, 1, "W", t, "X");
  require_same_dtype(c, 2, "offset", t, "X");
  if (c.has_input(3)) require_same_dtype(c, 3, "B", t, "X");
  if (c.has_input(4)) require_same_dtype(c, 4, "mask", t, "X");
  const auto rank = conv_ranks(c, "(N, C, D1, ...)");
  const int64_t group = read_group(c);
  const int64_t offset_group = c.attr_int("offset_group", 1);
  if (offset_group < 1)
    c.fail("attribute 'offset_group' is " + std::to_string(offset_group) +
           "; it must be at least 1");
  const Value& x = c.input(0);
  const Value& w = c.input(1);
  check_conv_channels(c, x, w, group);
  const Axis m = channel_axis(c, w, 0);
  conv_bias(c, 3, m.length);
  if (!rank) {
    output_without_x_rank(c, t, m);
    return;
  }
  const int spatial = *rank - 2;
  require_rank(c, 2, "offset", *rank);
  if (c.has_input(4)) require_rank(c, 4, "mask", *rank);
  const Window win = read_window(c, conv_kernel(c, spatial), {.auto_pad = false});
  // offset has offset_group * spatial * prod(kernel) channels, mask offset_group * prod(kernel).
  bool kernel_known = true;
  int64_t taps = offset_group;
  for (int64_t k : win.kernel) {
    if (k < 0) kernel_known = false;
    const auto p = kernel_known ? checked_mul(taps, k) : std::nullopt;
    if (kernel_known && !p) c.fail("the kernel has too many taps");
    if (p) taps = *p;
  }
  const Value& offset = c.input(2);
  if (kernel_known && offset.rank_known)
    require_same_length(c, offset.axes[1].length, scaled_length(c, Length::known(taps), spatial),
                        "input 2 (offset) dim 1", "offset_group x spatial dims x kernel taps");
  if (kernel_known && c.has_input(4) && c.input(4).rank_known)
    require_same_length(c, c.input(4).axes[1].length, Length::known(taps), "input 4 (mask) dim 1",
                        "offset_group x kernel taps");
  std::vector<Axis> out = {x.axes[0], m};
  for (int i = 0; i < spatial; ++i)
    out.push_back(deform_spatial(c, window_output_axis(c, win, i, x.axes[i + 2]), offset, i));
  c.set_output(0, t, distinct_axes(c, std::move(out)));
}

// CausalConvWithState-27: input (B, C, L), weight (C, 1, k), bias (C), past_state
// (B, C, k - 1); output like input, present_state (B, C, k - 1).
void causal_conv_with_state(RuleContext& c) {
  require_arity(c, 4, 2);
  require_nn_float(c, 0, 1, "input");
  const DType t = c.input_dtype(0);
  require_same_dtype(c, 1, "weight", t, "input");
  if (c.has_input(2)) require_same_dtype(c, 2, "bias", t, "input");
  if (c.has_input(3)) require_same_dtype(c, 3, "past_state", t, "input");
  const std::string act = c.attr_string("activation", "none");
  if (act != "none" && act != "silu" && act != "swish")
    c.fail("attribute 'activation' is '" + act + "'; it must be 'silu', 'swish' or 'none'");
  require_rank(c, 0, "input", 3);
  require_rank(c, 1, "weight", 3);
  if (c.has_input(3)) require_rank(c, 3, "past_state", 3);
  const Value& x = c.input(0);
  const Value& w = c.input(1);
  Length state_len = Length::unknown();
  if (w.rank_known) {
    require_same_length(c, w.axes[1].length, Length::known(1), "input 1 (weight) dim 1",
                        "1 (the op is depthwise)");
    if (x.rank_known)
      require_same_length(c, w.axes[0].length, x.axes[1].length, "input 1 (weight) dim 0",
                          "input's channel count");
    const Length& k = w.axes[2].length;
    if (k.is_static() && k.value < 1) c.fail("input 1 (weight) has kernel size 0");
    if (k.is_static()) state_len = Length::known(k.value - 1);
  }
  if (x.rank_known) require_vector_of(c, 2, "bias", x.axes[1].length, "the channel count");
  if (c.has_input(3) && c.input(3).rank_known && x.rank_known) {
    const Value& past = c.input(3);
    require_same_length(c, past.axes[0].length, x.axes[0].length, "input 3 (past_state) dim 0",
                        "input's batch size");
    require_same_length(c, past.axes[1].length, x.axes[1].length, "input 3 (past_state) dim 1",
                        "input's channel count");
    require_same_length(c, past.axes[2].length, state_len, "input 3 (past_state) dim 2",
                        "the kernel size - 1");
  }
  same_as_input(c, 0, 0);
  if (!x.rank_known) {
    c.set_output_unknown_rank(1, t);
    return;
  }
  const bool past_ranked = c.has_input(3) && c.input(3).rank_known;
  const Axis state =
      past_ranked && !state_len.is_static() ? c.input(3).axes[2] : c.new_axis(state_len);
  c.set_output(1, t, distinct_axes(c, {x.axes[0], x.axes[1], state}));
}

}  // namespace

std::span<const RuleEntry> nn_conv_rules() {
  static const std::vector<RuleEntry> rules = {
      // Conv-11 and -22 only widened the documented types (bfloat16 at 22, checked by opset).
      {"", "Conv", 1, conv},
      {"", "ConvTranspose", 1, conv_transpose},
      {"", "DeformConv", 19, deform_conv},
      {"", "CausalConvWithState", 27, causal_conv_with_state},
  };
  return rules;
}

}  // namespace geon::importer
