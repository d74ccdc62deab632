// Import rules: signal processing. Window functions (length from the size input's contents,
// folded when the size is a constant), DFT (opset 17: `axis` attribute, default 1; opset 20: an
// optional input, default -2), STFT and MelWeightMatrix.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "core/dtype/scalar.h"
#include "importer/ops/common.h"
#include "importer/ops/misc.h"
#include "importer/ops/subgraph.h"

namespace geon::importer {
namespace {

// ---- windows ----

enum class Window { kHann, kHamming, kBlackman };

double window_value(Window w, int64_t n, double period) {
  const double x = 2 * std::numbers::pi * static_cast<double>(n) / period;
  switch (w) {
    case Window::kHann:
      return 0.5 - 0.5 * std::cos(x);
    case Window::kHamming: {
      constexpr double alpha = 25.0 / 46.0;
      return alpha - (1 - alpha) * std::cos(x);
    }
    case Window::kBlackman:
      return 0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2 * x);
  }
  return 0;
}

void window(RuleContext& c, Window w) {
  if (c.num_inputs() != 1) c.fail("takes one input (size), got " + std::to_string(c.num_inputs()));
  const DType t = dtype_attr(c, "output_datatype").value_or(DType::kFloat);
  require_dtype_in(c, t, window_output_types(), "attribute 'output_datatype'");
  const bool periodic = flag_attr(c, "periodic", 1) != 0;
  const auto size = scalar_int_input(c, 0, "size");
  Length len = Length::unknown();
  if (size) {
    if (*size < 0) c.fail("input 0 (size) is " + std::to_string(*size) + ", a negative length");
    len = Length::known(*size);
  } else if (auto entries = c.contents(0);
             entries && entries->size() == 1 && (*entries)[0].is_symbol()) {
    len = (*entries)[0];
  }
  c.set_output(0, t, std::vector<Length>{len});
  if (!size || *size < 2 || !fits_folding(c, t, *size)) return;
  auto out = make_tensor_data(t, {*size});
  const double period = static_cast<double>(periodic ? *size : *size - 1);
  for (int64_t n = 0; n < *size; ++n) {
    Scalar s;
    s.kind = Scalar::Kind::kFloat;
    s.re = window_value(w, n, period);
    store_scalar(t, out->storage->data(), n, s);
  }
  c.set_output_data(0, out);
}

void hann(RuleContext& c) { window(c, Window::kHann); }
void hamming(RuleContext& c) { window(c, Window::kHamming); }
void blackman(RuleContext& c) { window(c, Window::kBlackman); }

// ---- DFT ----

// The input is [batch, signal dims..., 1 (real) or 2 (complex)]; the transform runs along
// `axis` (nullopt: an input not known at import), over dft_length points when given.
void dft(RuleContext& c, std::optional<int64_t> axis, bool axis_known) {
  const Value& x = c.input(0);
  if (x.type.kind != TypeKind::kTensor && x.type.kind != TypeKind::kUnknown)
    c.fail("input 0 must be a tensor, got " + to_string(x.type));
  require_dtype_in(c, x.dtype(), float_types(true), "input 0");
  const bool inverse = flag_attr(c, "inverse", 0) != 0;
  const bool onesided = flag_attr(c, "onesided", 0) != 0;
  std::optional<int64_t> n_given;
  if (c.has_input(1)) {
    n_given = scalar_int_input(c, 1, "dft_length");
    if (n_given && *n_given < 1)
      c.fail("input 1 (dft_length) is " + std::to_string(*n_given) + " but must be positive");
  }
  if (!x.rank_known) {
    c.set_output_unknown_rank(0, x.dtype());
    return;
  }
  const int r = x.rank();
  if (r < 2)
    c.fail("input 0 must have a signal dim and a last dim of 1 or 2, got shape " +
           to_string_with_lengths(x.axes));
  const Length& last = x.axes[r - 1].length;
  if (last.is_static() && last.value != 1 && last.value != 2)
    c.fail("input 0's last dim is " + std::to_string(last.value) +
           "; it must be 1 (real) or 2 (complex)");
  const bool irfft = inverse && onesided;
  std::vector<Axis> out;
  if (axis_known) {
    if (*axis < -r || *axis > r - 2 || *axis == -1)
      c.fail("axis " + std::to_string(*axis) + " is out of range for rank " + std::to_string(r) +
             " (the last dim holds the real and imaginary parts)");
    const int a = static_cast<int>(*axis < 0 ? *axis + r : *axis);
    const Length& in_len = x.axes[a].length;
    Length n = Length::unknown();
    if (n_given) {
      n = Length::known(*n_given);
    } else if (!irfft) {
      n = in_len;
    } else if (in_len.is_static() && in_len.value >= 1 && in_len.value <= INT64_MAX / 2) {
      n = Length::known(2 * (in_len.value - 1));
    }
    Length len = n;
    if (!inverse && onesided)
      len = n.is_static() ? Length::known(n.value / 2 + 1) : Length::unknown();
    for (int d = 0; d < r - 1; ++d)
      out.push_back(d == a ? make_axis_like(c.graph().factory(), x.axes[d], len) : x.axes[d]);
  } else {
    // Any signal dim may be the one transformed: lengths stay only when no dim can change.
    const bool same_lengths = !n_given && !onesided;
    for (int d = 0; d < r - 1; ++d)
      out.push_back(make_axis_like(c.graph().factory(), x.axes[d],
                                   same_lengths ? x.axes[d].length : Length::unknown()));
  }
  out.push_back(c.new_axis(Length::known(irfft ? 1 : 2)));
  c.set_output(0, x.dtype(), Axes(std::move(out)));
}

void dft_17(RuleContext& c) {
  if (c.num_inputs() < 1 || c.num_inputs() > 2)
    c.fail("takes input and an optional dft_length, got " + std::to_string(c.num_inputs()) +
           " inputs");
  dft(c, c.attr_int("axis", 1), true);
}

void dft_20(RuleContext& c) {
  if (c.num_inputs() < 1 || c.num_inputs() > 3)
    c.fail("takes input, dft_length and axis (both optional), got " +
           std::to_string(c.num_inputs()) + " inputs");
  if (c.has_attr("axis")) c.fail("attribute 'axis' is an input (input 2) from opset 20");
  if (!c.has_input(2)) {
    dft(c, -2, true);
    return;
  }
  if (c.input_dtype(2) != DType::kInt64 && c.input_dtype(2) != DType::kUndefined)
    c.fail("input 2 (axis) must be int64, got " + std::string(dtype_name(c.input_dtype(2))));
  const auto axis = scalar_int_input(c, 2, "axis");
  dft(c, axis, axis.has_value());
}

// ---- STFT ----

void stft(RuleContext& c) {
  if (c.num_inputs() < 2 || c.num_inputs() > 4)
    c.fail("takes signal, frame_step, window and frame_length (the last two optional), got " +
           std::to_string(c.num_inputs()) + " inputs");
  require_rank(c, 0, 3, "signal, [batch, length, 1 or 2]");
  const Value& x = c.input(0);
  require_dtype_in(c, x.dtype(), float_types(true), "input 0 (signal)");
  const bool onesided = flag_attr(c, "onesided", 1) != 0;
  const auto step = scalar_int_input(c, 1, "frame_step");
  if (step && *step < 1)
    c.fail("input 1 (frame_step) is " + std::to_string(*step) + " but must be positive");
  Length frame = Length::unknown();
  if (c.has_input(2)) {
    require_rank(c, 2, 1, "window");
    const Value& w = c.input(2);
    if (w.dtype() != x.dtype() && w.dtype() != DType::kUndefined && x.dtype() != DType::kUndefined)
      c.fail("input 2 (window) is " + std::string(dtype_name(w.dtype())) + " but the signal is " +
             std::string(dtype_name(x.dtype())));
    if (w.rank_known) frame = w.axes[0].length;
  }
  if (c.has_input(3)) {
    if (auto fl = scalar_int_input(c, 3, "frame_length")) {
      if (*fl < 1)
        c.fail("input 3 (frame_length) is " + std::to_string(*fl) + " but must be positive");
      if (frame.is_static() && frame.value != *fl)
        c.fail("input 3 (frame_length) is " + std::to_string(*fl) + " but the window has " +
               std::to_string(frame.value) + " entries");
      frame = Length::known(*fl);
    }
  }
  if (!x.rank_known) {
    c.set_output(
        0, x.dtype(),
        std::vector<Length>{Length::unknown(), Length::unknown(),
                            frame.is_static() && onesided ? Length::known(frame.value / 2 + 1)
                                                          : (onesided ? Length::unknown() : frame),
                            Length::known(2)});
    return;
  }
  const Length& last = x.axes[2].length;
  if (last.is_static() && last.value != 1 && last.value != 2)
    c.fail("input 0's last dim is " + std::to_string(last.value) +
           "; it must be 1 (real) or 2 (complex)");
  const Length& len = x.axes[1].length;
  Length frames = Length::unknown();
  if (len.is_static() && frame.is_static() && step) {
    if (len.value < frame.value)
      c.fail("the signal has " + std::to_string(len.value) + " samples, fewer than one frame of " +
             std::to_string(frame.value));
    frames = Length::known(1 + (len.value - frame.value) / *step);
  }
  Length bins = frame;
  if (onesided) bins = frame.is_static() ? Length::known(frame.value / 2 + 1) : Length::unknown();
  c.set_output(0, x.dtype(),
               Axes{x.axes[0], c.new_axis(frames), c.new_axis(bins), c.new_axis(Length::known(2))});
}

// ---- MelWeightMatrix ----

void mel_weight_matrix(RuleContext& c) {
  if (c.num_inputs() != 5)
    c.fail(
        "takes num_mel_bins, dft_length, sample_rate, lower_edge_hertz and upper_edge_hertz, "
        "got " +
        std::to_string(c.num_inputs()) + " inputs");
  const auto bins = scalar_int_input(c, 0, "num_mel_bins");
  const auto n = scalar_int_input(c, 1, "dft_length");
  scalar_int_input(c, 2, "sample_rate");
  if (c.input_dtype(0) != c.input_dtype(1) || c.input_dtype(0) != c.input_dtype(2))
    c.fail("inputs 0, 1 and 2 must share one integer dtype");
  for (int i : {3, 4}) {
    require_dtype_in(c, c.input_dtype(i), float_types(true), "input " + std::to_string(i));
    if (c.input(i).rank_known)
      if (auto s = static_lengths(c.input(i).axes); s && element_count(*s) != 1)
        c.fail("input " + std::to_string(i) + " must hold one element");
  }
  if (bins && *bins < 1)
    c.fail("input 0 (num_mel_bins) must be positive, got " + std::to_string(*bins));
  if (n && *n < 1) c.fail("input 1 (dft_length) must be positive, got " + std::to_string(*n));
  const DType t = dtype_attr(c, "output_datatype").value_or(DType::kFloat);
  require_dtype_in(c, t, window_output_types(), "attribute 'output_datatype'");
  c.set_output(0, t,
               std::vector<Length>{n ? Length::known(*n / 2 + 1) : Length::unknown(),
                                   bins ? Length::known(*bins) : Length::unknown()});
}

}  // namespace

std::vector<RuleEntry> misc_signal_rules() {
  return {
      {"", "HannWindow", 17, hann},
      {"", "HammingWindow", 17, hamming},
      {"", "BlackmanWindow", 17, blackman},
      {"", "DFT", 17, dft_17},
      {"", "DFT", 20, dft_20},
      {"", "STFT", 17, stft},
      {"", "MelWeightMatrix", 17, mel_weight_matrix},
  };
}

}  // namespace geon::importer
