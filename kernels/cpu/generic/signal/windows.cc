// HannWindow, HammingWindow, BlackmanWindow and MelWeightMatrix (17): tensors made from a few
// scalar inputs. Values are computed in double as ONNX's reference does and converted once
// into output_datatype by an assign (integer outputs truncate, as numpy's astype does). Sizes
// come from run-time scalars, so each output is checked against the size limit first.
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "kernels/cpu/generic/signal/ops.h"

namespace geon::cpu {
namespace {

// w[k] = a0 - a1 cos(2 pi k / N) + a2 cos(4 pi k / N), N = size (periodic) or size - 1.
struct Cosines {
  double a0, a1, a2;
};

Cosines cosines_of(const std::string& op) {
  if (op == "HannWindow") return {0.5, 0.5, 0};
  if (op == "HammingWindow") return {25.0 / 46.0, 21.0 / 46.0, 0};
  return {0.42, 0.5, 0.08};  // BlackmanWindow
}

int64_t scalar_int(const KernelContext& ctx, int i, const std::string& what) {
  require(i < ctx.num_inputs() && ctx.input(i).present(), [&] { return what + " is missing"; });
  const std::vector<int64_t> v = read_ints(ctx.input(i), what);
  require(v.size() == 1,
          [&] { return what + " must hold one value, got " + std::to_string(v.size()); });
  return v[0];
}

double scalar_float(const KernelContext& ctx, int i, const std::string& what) {
  const TensorRef& t = ctx.input(i);
  require(element_count(t.desc) == 1, [&] {
    return what + " must hold one value, got " + std::to_string(element_count(t.desc));
  });
  double v = 0;
  assign(Operand{row_major(DType::kDouble, Dims(t.desc.rank(), 1)), &v}, src_of(t));
  return v;
}

void window(KernelContext& ctx, Cosines c, bool periodic, DType dtype) {
  const int64_t size = scalar_int(ctx, 0, "size (input 0)");
  require(size >= 0,
          [&] { return "size (input 0) is " + std::to_string(size) + ", a negative length"; });
  check_output_size(dtype, {size}, "the window");
  const TensorRef& out = ctx.output(0, {size});
  if (size == 0) return;
  // A symmetric window of one point divides 0 by 0, as the reference does (NaN).
  const double period = static_cast<double>(periodic ? size : size - 1);
  std::vector<double> w(static_cast<size_t>(size));
  for (int64_t k = 0; k < size; ++k) {
    const double x = 2 * std::numbers::pi * static_cast<double>(k) / period;
    w[k] = c.a0 - c.a1 * std::cos(x) + c.a2 * std::cos(2 * x);
  }
  assign(dst_of(out), ConstOperand(row_major(DType::kDouble, Dims{size}), w.data()));
}

// ONNX's reference MelWeightMatrix: num_mel_bins + 2 points evenly spaced on the mel scale
// between the edges, mapped to DFT bins floor((dft_length + 1) * hz / sample_rate), and a
// triangle per mel bin rising from its left point to its centre and falling to its right.
void mel_weight_matrix(KernelContext& ctx) {
  const int64_t bins = scalar_int(ctx, 0, "num_mel_bins (input 0)");
  const int64_t n = scalar_int(ctx, 1, "dft_length (input 1)");
  const int64_t rate = scalar_int(ctx, 2, "sample_rate (input 2)");
  const double lo = scalar_float(ctx, 3, "lower_edge_hertz (input 3)");
  const double hi = scalar_float(ctx, 4, "upper_edge_hertz (input 4)");
  require(bins >= 1,
          [&] { return "num_mel_bins (input 0) must be positive, got " + std::to_string(bins); });
  require(n >= 1,
          [&] { return "dft_length (input 1) must be positive, got " + std::to_string(n); });
  require(rate >= 1,
          [&] { return "sample_rate (input 2) must be positive, got " + std::to_string(rate); });
  require(std::isfinite(lo) && std::isfinite(hi), [&] {
    return "the edges must be finite, got " + std::to_string(lo) + " and " + std::to_string(hi);
  });
  const int64_t spec = n / 2 + 1;
  const Dims shape{spec, bins};
  check_output_size(DType::kDouble, shape, "the output");
  require(bins < kMaxDftLength, [&] {
    return "num_mel_bins (input 0) is above the limit of " + std::to_string(kMaxDftLength);
  });
  const TensorRef& out = ctx.output(0, shape);
  const double lo_mel = 2595 * std::log10(1 + lo / 700), hi_mel = 2595 * std::log10(1 + hi / 700);
  const double step = (hi_mel - lo_mel) / static_cast<double>(bins + 2);
  std::vector<int64_t> point(static_cast<size_t>(bins + 2));
  for (int64_t i = 0; i < bins + 2; ++i) {
    const double hz = 700 * (std::pow(10.0, (static_cast<double>(i) * step + lo_mel) / 2595) - 1);
    const double bin = std::floor(static_cast<double>(n + 1) * hz / static_cast<double>(rate));
    require(bin >= 0 && bin < static_cast<double>(spec), [&] {
      return "mel point " + std::to_string(i) + " (" + std::to_string(hz) +
             " Hz) falls outside the " + std::to_string(spec) +
             " DFT bins; upper_edge_hertz must be at most sample_rate / 2";
    });
    point[i] = static_cast<int64_t>(bin);
  }
  std::vector<double> w(static_cast<size_t>(spec * bins), 0.0);
  for (int64_t i = 0; i < bins; ++i) {
    const int64_t left = point[i], centre = point[i + 1], right = point[i + 2];
    if (centre == left) {
      w[centre * bins + i] = 1;
    } else {
      for (int64_t j = left; j <= centre; ++j)
        w[j * bins + i] = static_cast<double>(j - left) / static_cast<double>(centre - left);
    }
    for (int64_t j = centre; j < right; ++j)
      w[j * bins + i] = static_cast<double>(right - j) / static_cast<double>(right - centre);
  }
  assign(dst_of(out), ConstOperand(row_major(DType::kDouble, shape), w.data()));
}

Reason output_reason(const Graph& g, const Node& n) {
  const DType t = output_dtype(g, n, 0);
  if (Reason r = engine_dtype_reason(t, "the output")) return r;
  if (is_packed(t) || t == DType::kBool) return "the output is " + std::string(dtype_name(t));
  return std::nullopt;
}

}  // namespace

Reason supports_window(const Graph& g, const Node& n) {
  if (Reason r = output_reason(g, n)) return r;
  return check_ints_input(g, n, 0, "size (input 0)");
}

std::unique_ptr<Kernel> create_window(const Graph& g, const Node& n) {
  const Cosines c = cosines_of(n.op);
  const bool periodic = attr_int(n, "periodic", 1) != 0;
  const DType t = output_dtype(g, n, 0);
  return make_node_kernel(n, [c, periodic, t](KernelContext& ctx) { window(ctx, c, periodic, t); });
}

Reason supports_mel_weight_matrix(const Graph& g, const Node& n) {
  if (Reason r = output_reason(g, n)) return r;
  for (int i : {0, 1, 2})
    if (Reason r = check_ints_input(g, n, i, "input " + std::to_string(i))) return r;
  for (int i : {3, 4})
    if (Reason r = norm_dtype_reason(input_dtype(g, n, i), "input " + std::to_string(i))) return r;
  return std::nullopt;
}

std::unique_ptr<Kernel> create_mel_weight_matrix(const Graph&, const Node& n) {
  return make_node_kernel(n, mel_weight_matrix);
}

}  // namespace geon::cpu
