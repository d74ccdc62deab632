// ReverseSequence (10) and CenterCropPad (18): copies of the input through views. Reversal is a
// negative stride along the time axis of each batch entry's first sequence_lens[b] steps;
// crop-or-pad narrows the input where the output is shorter (a crop alone is a view kernel:
// no copy) and the output where it is longer (zeroed first), so one assign moves the centred
// window. Every dtype the engine moves; strings pad with "".
#include <algorithm>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/layout/ops.h"

namespace geon::cpu {
namespace {

// The first `len` elements along `axis`, in reverse order.
TensorDesc reversed_prefix(const TensorDesc& d, int axis, int64_t len) {
  TensorDesc v = narrow(d, axis, 0, len);
  v.offset += (len - 1) * v.strides[axis];
  v.strides[axis] = -v.strides[axis];
  return v;
}

void reverse_sequence(KernelContext& ctx, int batch_axis, int time_axis) {
  const TensorRef& x = ctx.input(0);
  const int r = x.desc.rank();
  require(r >= 2, [&] { return "input 0 must have rank >= 2, got " + std::to_string(r); });
  const std::vector<int64_t> lens = read_ints(ctx.input(1), "sequence_lens (input 1)");
  const int64_t batch = x.desc.shape[batch_axis], steps = x.desc.shape[time_axis];
  require(static_cast<int64_t>(lens.size()) == batch, [&] {
    return "sequence_lens (input 1) has " + std::to_string(lens.size()) +
           " entries but the batch dim (axis " + std::to_string(batch_axis) + ") has length " +
           std::to_string(batch);
  });
  for (size_t b = 0; b < lens.size(); ++b)
    require(lens[b] >= 0 && lens[b] <= steps, [&] {
      return "sequence_lens[" + std::to_string(b) + "] is " + std::to_string(lens[b]) +
             ", outside [0, " + std::to_string(steps) + "] (the time dim's length)";
    });
  const TensorRef& out = ctx.output(0, x.desc.shape);
  if (element_count(x.desc) == 0) return;
  assign(dst_of(out), src_of(x));
  const int t = time_axis - (batch_axis < time_axis ? 1 : 0);  // after the batch dim is selected
  for (int64_t b = 0; b < batch; ++b) {
    if (lens[b] < 2) continue;
    const TensorDesc o = narrow(select(out.desc, batch_axis, b), t, 0, lens[b]);
    const TensorDesc s = reversed_prefix(select(x.desc, batch_axis, b), t, lens[b]);
    assign(Operand{o, out.data}, ConstOperand(s, x.data));
  }
}

// CenterCropPad's output shape for input shape `in`: the shape input's entries on `axes`.
Dims crop_pad_shape(const Dims& in, const std::vector<int64_t>& want,
                    const std::optional<std::vector<int64_t>>& axes_attr) {
  const int r = static_cast<int>(in.size());
  std::vector<int> axes;
  if (axes_attr) {
    std::vector<bool> seen(r, false);
    for (int64_t a : *axes_attr) {
      require(a >= -r && a < r, [&] {
        return "attribute 'axes' entry " + std::to_string(a) + " is out of range for rank " +
               std::to_string(r);
      });
      const int k = static_cast<int>(a < 0 ? a + r : a);
      require(!seen[k],
              [&] { return "attribute 'axes' names axis " + std::to_string(k) + " twice"; });
      seen[k] = true;
      axes.push_back(k);
    }
  } else {
    for (int k = 0; k < r; ++k) axes.push_back(k);
  }
  require(want.size() == axes.size(), [&] {
    return "shape (input 1) has " + std::to_string(want.size()) + " entries for " +
           std::to_string(axes.size()) + " axes";
  });
  Dims out = in;
  for (size_t i = 0; i < axes.size(); ++i) {
    require(want[i] >= 0, [&] {
      return "shape (input 1) entry " + std::to_string(i) + " is negative (" +
             std::to_string(want[i]) + ")";
    });
    out[axes[i]] = want[i];
  }
  return out;
}

// The centred window of `src` that a crop to `shape` keeps, in the dims where shape is not
// longer; with `dst`, the window of the output that a pad fills, in the others.
bool centre(TensorDesc& src, TensorDesc& dst, const Dims& in, const Dims& shape) {
  bool padded = false;
  for (int k = 0; k < static_cast<int>(in.size()); ++k) {
    if (shape[k] <= in[k]) {
      src = narrow(src, k, (in[k] - shape[k]) / 2, shape[k]);
    } else {
      dst = narrow(dst, k, (shape[k] - in[k]) / 2, in[k]);
      padded = true;
    }
  }
  return padded;
}

// A crop alone is a view of the input; a pad zeroes the output and copies the window in.
std::unique_ptr<Kernel> center_crop_pad_kernel(const Node& n, const IntsInput& shape_input,
                                               const std::optional<std::vector<int64_t>>& axes) {
  auto shape = [shape_input, axes](const TensorDesc& d, const KernelContext& ctx) {
    return crop_pad_shape(d.shape, shape_input.read(ctx, "shape (input 1)"), axes);
  };
  auto view = [shape](const TensorDesc& d, const KernelContext& ctx) -> std::optional<TensorDesc> {
    const Dims out = shape(d, ctx);
    for (int k = 0; k < d.rank(); ++k)
      if (out[k] > d.shape[k]) return std::nullopt;  // a pad: not a view
    TensorDesc src = d, unused = d;
    centre(src, unused, d.shape, out);
    return src;
  };
  auto copy = [shape](KernelContext& ctx) {
    const TensorRef& x = ctx.input(0);
    const Dims out_shape = shape(x.desc, ctx);
    check_output_size(x.desc.dtype, out_shape, "the output");
    const TensorRef& out = ctx.output(0, out_shape);
    if (element_count(out_shape) == 0) return;
    TensorDesc src = x.desc, dst = out.desc;
    if (centre(src, dst, x.desc.shape, out_shape)) assign(dst_of(out), layout_zero(out.desc.dtype));
    if (element_count(src) > 0) assign(Operand{dst, out.data}, ConstOperand(src, x.data));
  };
  return make_view_kernel(n, view, copy);
}

}  // namespace

Reason supports_reverse_sequence(const Graph& g, const Node& n) {
  if (Reason r = layout_movable_reason(input_dtype(g, n, 0), "input 0")) return r;
  if (Reason r = check_ints_input(g, n, 1, "sequence_lens (input 1)")) return r;
  const int64_t b = attr_int(n, "batch_axis", 1), t = attr_int(n, "time_axis", 0);
  if ((b != 0 && b != 1) || (t != 0 && t != 1) || b == t)
    return "attributes batch_axis " + std::to_string(b) + " and time_axis " + std::to_string(t) +
           " must be 0 and 1 in some order";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_reverse_sequence(const Graph&, const Node& n) {
  const int b = static_cast<int>(attr_int(n, "batch_axis", 1));
  const int t = static_cast<int>(attr_int(n, "time_axis", 0));
  return make_node_kernel(n, [b, t](KernelContext& ctx) { reverse_sequence(ctx, b, t); });
}

Reason supports_center_crop_pad(const Graph& g, const Node& n) {
  if (Reason r = layout_movable_reason(input_dtype(g, n, 0), "input 0")) return r;
  if (!has_input(n, 1)) return "CenterCropPad needs a shape input";
  return check_ints_input(g, n, 1, "shape (input 1)");
}

std::unique_ptr<Kernel> create_center_crop_pad(const Graph& g, const Node& n) {
  const IntsInput shape = ints_input(g, n, 1);
  const std::optional<std::vector<int64_t>> axes = attr_ints(n, "axes");
  return center_crop_pad_kernel(n, shape, axes);
}

}  // namespace geon::cpu
