// Conv and ConvTranspose geometry by the ONNX spec's formulas, and the FusedConv activation.
// ConvTranspose's pads are returned in oneDNN's deconvolution terms: the end pad absorbs
// output_padding and output_shape, so dst = (in - 1) * stride + eff_kernel - begin - end.
#include "kernels/cpu/conv_params.h"

#include <algorithm>
#include <limits>

#include "core/base/error.h"

namespace geon::cpu {
namespace {

constexpr int64_t kMaxWindow = int64_t{1} << 31;

// Floor division for a positive divisor (the spec's total_padding / 2 on negative totals must
// round down: the test data's output_shape cases put the missing row at the end).
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

std::string list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

Reason check_range(const std::vector<int64_t>& v, const char* name, int64_t lo) {
  for (int64_t x : v)
    if (x < lo || x > kMaxWindow)
      return std::string("attribute '") + name + "' is " + list(v) + "; each value must be in [" +
             std::to_string(lo) + ", 2^31]";
  return std::nullopt;
}

// v, or `fill` repeated n times when v is empty; throws when v has another length.
Dims per_dim(const std::vector<int64_t>& v, size_t n, int64_t fill, const char* name,
             const std::string& op) {
  if (v.empty()) return Dims(n, fill);
  require(v.size() == n, [&] {
    return op + ": attribute '" + name + "' has " + std::to_string(v.size()) + " values for " +
           std::to_string(n) + " spatial dims";
  });
  return Dims(v.begin(), v.end());
}

}  // namespace

Dims channels_last_strides(const Dims& shape) {
  const int r = static_cast<int>(shape.size());
  Dims st(r);
  int64_t acc = 1;
  st[1] = acc;
  acc *= std::max<int64_t>(shape[1], 1);
  for (int i = r - 1; i >= 2; --i) {
    st[i] = acc;
    acc *= std::max<int64_t>(shape[i], 1);
  }
  st[0] = acc;
  return st;
}

TensorDesc channels_last(DType t, const Dims& shape) {
  TensorDesc d;
  d.dtype = t;
  d.shape = shape;
  d.strides = channels_last_strides(shape);
  return d;
}

bool is_channels_last(const TensorDesc& d) {
  const Dims st = channels_last_strides(d.shape);
  for (int i = 0; i < d.rank(); ++i)
    if (d.shape[i] > 1 && d.strides[i] != st[i]) return false;
  return true;
}

bool shares_memory(const void* a, const TensorDesc& da, const void* b, const TensorDesc& db) {
  const ByteSpan sa = byte_span(da), sb = byte_span(db);
  if (sa.begin >= sa.end || sb.begin >= sb.end) return false;
  const auto* pa = static_cast<const std::byte*>(a);
  const auto* pb = static_cast<const std::byte*>(b);
  return pa + sa.begin < pb + sb.end && pb + sb.begin < pa + sa.end;
}

WindowRows window_rows(int64_t extent, int64_t stride, int64_t pad_begin, int64_t in, int64_t first,
                       int64_t last) {
  // Output rows [first, last) read rows [lo, hi) of the padded input.
  const int64_t lo = first * stride - pad_begin, hi = (last - 1) * stride - pad_begin + extent;
  const int64_t in_lo = std::max<int64_t>(lo, 0), in_hi = std::min(hi, in);
  return {in_lo, in_hi - in_lo, in_lo - lo, hi - in_hi};
}

ConvBlock conv_block(const ConvGeometry& geo, const Dims& x, bool by_image, int64_t first,
                     int64_t last) {
  ConvBlock b;
  b.geo = geo;
  b.dim = by_image ? 0 : 2;
  b.y_first = first;
  b.y_count = last - first;
  b.geo.dst_shape[b.dim] = b.y_count;
  if (by_image) {
    b.x_first = first;
    b.x_count = last - first;
    return b;
  }
  const WindowRows r = window_rows((geo.kernel[0] - 1) * geo.dilations[0] + 1, geo.strides[0],
                                   geo.pad_begin[0], x[2], first, last);
  b.geo.pad_begin[0] = r.pad_begin;
  b.geo.pad_end[0] = r.pad_end;
  b.x_first = r.x_first;
  b.x_count = r.x_count;
  return b;
}

Reason read_conv_attrs(const Node& n, bool transpose, ConvAttrs* out) {
  ConvAttrs a;
  a.transpose = transpose;
  const std::string pad = attr_string(n, "auto_pad", "NOTSET");
  if (pad == "NOTSET") {
    a.auto_pad = ConvAutoPad::kNotSet;
  } else if (pad == "SAME_UPPER") {
    a.auto_pad = ConvAutoPad::kSameUpper;
  } else if (pad == "SAME_LOWER") {
    a.auto_pad = ConvAutoPad::kSameLower;
  } else if (pad == "VALID") {
    a.auto_pad = ConvAutoPad::kValid;
  } else {
    return "attribute 'auto_pad' is '" + pad +
           "'; it must be NOTSET, SAME_UPPER, SAME_LOWER or VALID";
  }
  a.group = attr_int(n, "group", 1);
  if (a.group < 1 || a.group > kMaxWindow)
    return "attribute 'group' is " + std::to_string(a.group) + "; it must be in [1, 2^31]";
  a.kernel_shape = attr_ints(n, "kernel_shape").value_or(std::vector<int64_t>{});
  a.strides = attr_ints(n, "strides").value_or(std::vector<int64_t>{});
  a.dilations = attr_ints(n, "dilations").value_or(std::vector<int64_t>{});
  a.pads = attr_ints(n, "pads").value_or(std::vector<int64_t>{});
  if (Reason r = check_range(a.kernel_shape, "kernel_shape", 1)) return r;
  if (Reason r = check_range(a.strides, "strides", 1)) return r;
  if (Reason r = check_range(a.dilations, "dilations", 1)) return r;
  if (Reason r = check_range(a.pads, "pads", 0)) return r;
  if (a.pads.size() % 2) return "attribute 'pads' has an odd count " + list(a.pads);
  if (transpose) {
    a.output_padding = attr_ints(n, "output_padding").value_or(std::vector<int64_t>{});
    a.output_shape = attr_ints(n, "output_shape").value_or(std::vector<int64_t>{});
    if (Reason r = check_range(a.output_padding, "output_padding", 0)) return r;
    if (Reason r = check_range(a.output_shape, "output_shape", 0)) return r;
  }
  *out = std::move(a);
  return std::nullopt;
}

ConvGeometry conv_geometry(const ConvAttrs& a, const Dims& x, const Dims& w,
                           const std::string& op) {
  require(x.size() >= 3 && x.size() <= 5 && w.size() == x.size(), [&] {
    return op + ": X " + list(x) + " and W " + list(w) +
           " must both be (N, C, D1...) of rank 3 to 5 (1-D to 3-D)";
  });
  const size_t n = x.size() - 2;
  const int64_t g = a.group;
  ConvGeometry geo;
  geo.strides = per_dim(a.strides, n, 1, "strides", op);
  geo.dilations = per_dim(a.dilations, n, 1, "dilations", op);
  geo.kernel = Dims(w.begin() + 2, w.end());
  if (!a.kernel_shape.empty())
    require(Dims(a.kernel_shape.begin(), a.kernel_shape.end()) == geo.kernel, [&] {
      return op + ": attribute 'kernel_shape' " + list(a.kernel_shape) + " differs from W " +
             list(w);
    });
  const Dims pads = per_dim(a.pads, 2 * n, 0, "pads", op);
  int64_t m;  // output channels
  if (a.transpose) {
    require(x[1] == w[0] && x[1] % g == 0, [&] {
      return op + ": X has " + std::to_string(x[1]) + " channels; W " + list(w) +
             " needs W[0] channels, a multiple of group " + std::to_string(g);
    });
    m = w[1] * g;
  } else {
    require(x[1] == w[1] * g && w[0] % g == 0, [&] {
      return op + ": X has " + std::to_string(x[1]) + " channels; W " + list(w) + " with group " +
             std::to_string(g) + " needs W[1] * group, and W[0] a multiple of group";
    });
    m = w[0];
  }
  geo.dst_shape = {x[0], m};
  geo.pad_begin.resize(n);
  geo.pad_end.resize(n);
  const bool same = a.auto_pad == ConvAutoPad::kSameUpper || a.auto_pad == ConvAutoPad::kSameLower;
  const Dims out_pad = per_dim(a.output_padding, n, 0, "output_padding", op);
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = x[i + 2], s = geo.strides[i];
    const int64_t eff = (geo.kernel[i] - 1) * geo.dilations[i] + 1;
    int64_t begin = a.auto_pad == ConvAutoPad::kNotSet ? pads[i] : 0;
    int64_t end = a.auto_pad == ConvAutoPad::kNotSet ? pads[i + n] : 0;
    int64_t out;
    if (!a.transpose) {
      if (same) {
        out = (in + s - 1) / s;
        const int64_t total = std::max<int64_t>(0, (out - 1) * s + eff - in);
        begin = a.auto_pad == ConvAutoPad::kSameUpper ? total / 2 : total - total / 2;
        end = total - begin;
      } else {
        require(in + begin + end >= eff, [&] {
          return op + ": spatial dim " + std::to_string(i) + " of length " + std::to_string(in) +
                 " with pads is shorter than the dilated kernel " + std::to_string(eff);
        });
        out = (in + begin + end - eff) / s + 1;
      }
    } else {
      const int64_t full = s * (in - 1) + out_pad[i] + eff;  // before any padding
      if (!a.output_shape.empty() || same) {
        if (!a.output_shape.empty()) {
          // Some exporters give the whole shape (N, C, D1...): its spatial part counts.
          const size_t skip = a.output_shape.size() == n + 2 ? 2 : 0;
          require(a.output_shape.size() == n + skip, [&] {
            return op + ": attribute 'output_shape' " + list(a.output_shape) +
                   " has no value per spatial dim";
          });
          out = a.output_shape[i + skip];
        } else {
          out = in * s;
        }
        const int64_t total = full - out;
        if (a.auto_pad == ConvAutoPad::kSameUpper) {
          begin = floor_div(total, 2);
          end = total - begin;
        } else {
          end = floor_div(total, 2);
          begin = total - end;
        }
      } else {
        out = full - begin - end;
        require(out >= 0, [&] {
          return op + ": pads exceed the output of spatial dim " + std::to_string(i);
        });
      }
      // oneDNN's deconvolution has no output_padding: it is a smaller end pad.
      end = s * (in - 1) + eff - begin - out;
    }
    geo.pad_begin[i] = begin;
    geo.pad_end[i] = end;
    geo.dst_shape.push_back(out);
  }
  return geo;
}

Reason read_activation(const Node& n, Activation* out) {
  const std::string name = attr_string(n, "activation", "");
  const Attribute* alpha = n.attr("activation_alpha");
  const Attribute* beta = n.attr("activation_beta");
  Activation act;
  float da = 0, db = 0;  // the ONNX op's defaults
  constexpr float kInf = std::numeric_limits<float>::infinity();
  if (name.empty()) {
    act.kind = ActivationKind::kNone;
  } else if (name == "Relu") {
    act.kind = ActivationKind::kRelu;
  } else if (name == "LeakyRelu") {
    act.kind = ActivationKind::kLeakyRelu;
    da = 0.01f;
  } else if (name == "Clip") {
    act.kind = ActivationKind::kClip;
    da = -kInf;
    db = kInf;
  } else if (name == "Sigmoid") {
    act.kind = ActivationKind::kSigmoid;
  } else if (name == "Tanh") {
    act.kind = ActivationKind::kTanh;
  } else if (name == "HardSigmoid") {
    act.kind = ActivationKind::kHardSigmoid;
    da = 0.2f;
    db = 0.5f;
  } else if (name == "HardSwish") {
    act.kind = ActivationKind::kHardSwish;
  } else if (name == "Elu") {
    act.kind = ActivationKind::kElu;
    da = 1.0f;
  } else if (name == "Gelu") {
    act.kind = ActivationKind::kGelu;
  } else {
    return "activation '" + name +
           "' is not one of Relu, LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid, HardSwish, Elu, "
           "Gelu";
  }
  act.alpha = alpha ? alpha->f : da;
  act.beta = beta ? beta->f : db;
  *out = act;
  return std::nullopt;
}

}  // namespace geon::cpu
