// DFT (17, 20) and STFT (17) in double on fft.h's plans. The input, [..., 1 (real) or 2
// (complex)], is staged once as a dense double array; every line along the transformed axis is
// copied into a complex buffer (truncated or zero-padded to dft_length), transformed, and
// written into a dense double output that one assign converts into the output's dtype. Lines
// run in parallel, each thread with its own buffers. inverse scales by 1/n; inverse with
// onesided is the real inverse of a one-sided spectrum (numpy's irfft).
#include <string>
#include <vector>

#include "core/base/error.h"
#include "kernels/cpu/generic/signal/fft.h"
#include "kernels/cpu/generic/signal/ops.h"

namespace geon::cpu {
namespace {

using signal::Complex;
using signal::FftPlan;

std::vector<double> staged(const TensorRef& t) {
  std::vector<double> v(static_cast<size_t>(element_count(t.desc)));
  if (!v.empty()) assign(Operand{row_major(DType::kDouble, t.desc.shape), v.data()}, src_of(t));
  return v;
}

void check_length(int64_t n, const std::string& what) {
  require(n >= 1, [&] { return what + " is " + std::to_string(n) + " but must be positive"; });
  if (n > kMaxDftLength)
    fail(ErrorCode::kResourceExhausted, what + " is " + std::to_string(n) +
                                            ", above the limit of " +
                                            std::to_string(kMaxDftLength));
}

// The one value of an optional scalar integer input, or `dflt` when it is omitted.
int64_t scalar_or(const KernelContext& ctx, int i, int64_t dflt, const std::string& what) {
  if (i >= ctx.num_inputs() || !ctx.input(i).present() || ctx.input(i).data == nullptr) return dflt;
  const std::vector<int64_t> v = read_ints(ctx.input(i), what);
  require(v.size() == 1,
          [&] { return what + " must hold one value, got " + std::to_string(v.size()); });
  return v[0];
}

struct DftAttrs {
  bool inverse = false, onesided = false, axis_input = false;
  int64_t axis = 1;
};

void dft(KernelContext& ctx, const DftAttrs& at) {
  const TensorRef& x = ctx.input(0);
  const int r = x.desc.rank();
  require(r >= 2, [&] {
    return "input 0 must have a signal dim and a last dim of 1 or 2, got rank " + std::to_string(r);
  });
  const int64_t ch = x.desc.shape[r - 1];
  require(ch == 1 || ch == 2, [&] {
    return "input 0's last dim is " + std::to_string(ch) + "; it must be 1 (real) or 2 (complex)";
  });
  int64_t axis = at.axis_input ? scalar_or(ctx, 2, -2, "axis (input 2)") : at.axis;
  require(axis >= -r && axis < r, [&] {
    return "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r);
  });
  if (axis < 0) axis += r;
  require(axis != r - 1, [&] {
    return "axis " + std::to_string(axis) +
           " is the last dim, which holds the real and imaginary parts";
  });
  const int a = static_cast<int>(axis);
  const int64_t len = x.desc.shape[a];
  const bool irfft = at.inverse && at.onesided;
  const int64_t dflt = irfft ? 2 * (len - 1) : len;
  const int64_t n = scalar_or(ctx, 1, dflt, "dft_length (input 1)");
  check_length(n, "the transform length (dft_length, or the input's length along the axis)");
  const int64_t out_len = !at.inverse && at.onesided ? n / 2 + 1 : n;
  Dims shape = x.desc.shape;
  shape[a] = out_len;
  shape[r - 1] = irfft ? 1 : 2;
  check_output_size(DType::kDouble, shape, "the output");
  const TensorRef& out = ctx.output(0, shape);
  const int64_t outer = element_count(Dims(shape.begin(), shape.begin() + a));
  const int64_t inner = element_count(Dims(shape.begin() + a + 1, shape.end() - 1));
  const int64_t lines = outer * inner;
  if (element_count(shape) == 0) return;
  const std::vector<double> src = staged(x);
  std::vector<double> dst(static_cast<size_t>(element_count(shape)));
  const FftPlan plan(n, at.inverse);
  const int64_t oc = shape[r - 1];
  // irfft reads bins 0..n/2 and mirrors them; the others read min(len, n) points.
  const int64_t used = std::min(len, irfft ? n / 2 + 1 : n);
  parallel_rows(lines, n * 8, [&](int64_t lo, int64_t hi) {
    std::vector<Complex> buf(static_cast<size_t>(n)), work;
    for (int64_t line = lo; line < hi; ++line) {
      const int64_t o = line / inner, i = line % inner;
      std::fill(buf.begin(), buf.end(), Complex(0, 0));
      for (int64_t j = 0; j < used; ++j) {
        const double* p = src.data() + ((o * len + j) * inner + i) * ch;
        buf[j] = Complex(p[0], ch == 2 ? p[1] : 0.0);
      }
      if (irfft)
        for (int64_t k = n / 2 + 1; k < n; ++k) buf[k] = std::conj(buf[n - k]);
      plan.run(buf.data(), work);
      const double scale = at.inverse ? 1.0 / static_cast<double>(n) : 1.0;
      for (int64_t j = 0; j < out_len; ++j) {
        double* q = dst.data() + ((o * out_len + j) * inner + i) * oc;
        q[0] = buf[j].real() * scale;
        if (oc == 2) q[1] = buf[j].imag() * scale;
      }
    }
  });
  assign(dst_of(out), ConstOperand(row_major(DType::kDouble, shape), dst.data()));
}

void stft(KernelContext& ctx, bool onesided) {
  const TensorRef& x = ctx.input(0);
  require(x.desc.rank() == 3, [&] {
    return "signal (input 0) must be [batch, length, 1 or 2], got rank " +
           std::to_string(x.desc.rank());
  });
  const int64_t batch = x.desc.shape[0], len = x.desc.shape[1], ch = x.desc.shape[2];
  require(ch == 1 || ch == 2, [&] {
    return "signal (input 0)'s last dim is " + std::to_string(ch) +
           "; it must be 1 (real) or 2 (complex)";
  });
  const int64_t step = scalar_or(ctx, 1, 0, "frame_step (input 1)");
  require(step >= 1, [&] {
    return "frame_step (input 1) is " + std::to_string(step) + " but must be positive";
  });
  const bool has_window = ctx.num_inputs() > 2 && ctx.input(2).present();
  if (has_window)
    require(ctx.input(2).desc.rank() == 1, [&] {
      return "window (input 2) must be 1-D, got rank " + std::to_string(ctx.input(2).desc.rank());
    });
  const int64_t wlen = has_window ? ctx.input(2).desc.shape[0] : len;
  const int64_t fl = scalar_or(ctx, 3, wlen, "frame_length (input 3)");
  check_length(fl, "the frame length");
  require(!has_window || fl == wlen, [&] {
    return "frame_length (input 3) is " + std::to_string(fl) + " but the window has " +
           std::to_string(wlen) + " entries";
  });
  require(len >= fl, [&] {
    return "the signal has " + std::to_string(len) + " samples, fewer than one frame of " +
           std::to_string(fl);
  });
  const int64_t frames = 1 + (len - fl) / step, bins = onesided ? fl / 2 + 1 : fl;
  const Dims shape{batch, frames, bins, 2};
  check_output_size(DType::kDouble, shape, "the output");
  const TensorRef& out = ctx.output(0, shape);
  if (element_count(shape) == 0) return;
  const std::vector<double> src = staged(x);
  const std::vector<double> window = has_window ? staged(ctx.input(2)) : std::vector<double>();
  std::vector<double> dst(static_cast<size_t>(element_count(shape)));
  const FftPlan plan(fl, false);
  parallel_rows(batch * frames, fl * 8, [&](int64_t lo, int64_t hi) {
    std::vector<Complex> buf(static_cast<size_t>(fl)), work;
    for (int64_t row = lo; row < hi; ++row) {
      const int64_t b = row / frames, f = row % frames;
      for (int64_t j = 0; j < fl; ++j) {
        const double* p = src.data() + (b * len + f * step + j) * ch;
        const double w = has_window ? window[j] : 1.0;
        buf[j] = Complex(p[0] * w, ch == 2 ? p[1] * w : 0.0);
      }
      plan.run(buf.data(), work);
      double* q = dst.data() + row * bins * 2;
      for (int64_t k = 0; k < bins; ++k) {
        q[2 * k] = buf[k].real();
        q[2 * k + 1] = buf[k].imag();
      }
    }
  });
  assign(dst_of(out), ConstOperand(row_major(DType::kDouble, shape), dst.data()));
}

Reason float_reason(const Graph& g, const Node& n, int i, const char* what) {
  if (!has_input(n, i)) return std::nullopt;
  return norm_dtype_reason(input_dtype(g, n, i), what);
}

}  // namespace

Reason supports_dft(const Graph& g, const Node& n) {
  if (Reason r = float_reason(g, n, 0, "input 0")) return r;
  if (Reason r = check_ints_input(g, n, 1, "dft_length (input 1)")) return r;
  if (n.opset >= 20) return check_ints_input(g, n, 2, "axis (input 2)");
  return std::nullopt;
}

std::unique_ptr<Kernel> create_dft(const Graph&, const Node& n) {
  DftAttrs at;
  at.inverse = attr_int(n, "inverse", 0) != 0;
  at.onesided = attr_int(n, "onesided", 0) != 0;
  at.axis_input = n.opset >= 20;
  at.axis = n.opset >= 20 ? -2 : attr_int(n, "axis", 1);
  return make_node_kernel(n, [at](KernelContext& ctx) { dft(ctx, at); });
}

Reason supports_stft(const Graph& g, const Node& n) {
  if (Reason r = float_reason(g, n, 0, "signal (input 0)")) return r;
  if (Reason r = float_reason(g, n, 2, "window (input 2)")) return r;
  if (Reason r = check_ints_input(g, n, 1, "frame_step (input 1)")) return r;
  return check_ints_input(g, n, 3, "frame_length (input 3)");
}

std::unique_ptr<Kernel> create_stft(const Graph&, const Node& n) {
  const bool onesided = attr_int(n, "onesided", 1) != 0;
  return make_node_kernel(n, [onesided](KernelContext& ctx) { stft(ctx, onesided); });
}

}  // namespace geon::cpu
