// Pooling window geometry: attributes with ONNX defaults, and per input shape the output
// lengths and pads, by the same formulas as the importer's window_output_axis (so the shapes a
// kernel computes agree with the planned ones).
#include "kernels/cpu/generic/pool/window.h"

#include "core/base/error.h"

namespace geon::cpu {
namespace {

std::vector<int64_t> ints_or(const Node& n, std::string_view name, size_t count, int64_t dflt) {
  auto v = attr_ints(n, name);
  if (!v || v->empty()) return std::vector<int64_t>(count, dflt);
  return *v;
}

int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

}  // namespace

PoolAttrs read_pool_attrs(const Node& n) {
  PoolAttrs a;
  a.kernel = attr_ints(n, "kernel_shape").value_or(std::vector<int64_t>{});
  const size_t s = a.kernel.size();
  a.strides = ints_or(n, "strides", s, 1);
  a.dilations = ints_or(n, "dilations", s, 1);
  a.pads = ints_or(n, "pads", 2 * s, 0);
  const std::string pad = attr_string(n, "auto_pad", "NOTSET");
  a.auto_pad = pad == "SAME_UPPER"   ? PoolPad::kSameUpper
               : pad == "SAME_LOWER" ? PoolPad::kSameLower
               : pad == "VALID"      ? PoolPad::kValid
                                     : PoolPad::kNotSet;
  if (a.auto_pad != PoolPad::kNotSet) a.pads.assign(2 * s, 0);
  a.ceil_mode = attr_int(n, "ceil_mode", 0) != 0;
  return a;
}

Reason pool_attrs_reason(const Node& n) {
  const PoolAttrs a = read_pool_attrs(n);
  const size_t s = a.kernel.size();
  if (s == 0) return n.op + ": attribute 'kernel_shape' is missing";
  if (a.strides.size() != s || a.dilations.size() != s || a.pads.size() != 2 * s)
    return n.op + ": strides, dilations or pads do not match kernel_shape's length";
  for (size_t i = 0; i < s; ++i)
    if (a.kernel[i] < 1 || a.strides[i] < 1 || a.dilations[i] < 1)
      return n.op + ": kernel_shape, strides and dilations must be at least 1";
  for (int64_t p : a.pads)
    if (p < 0) return n.op + ": negative pads";
  const std::string pad = attr_string(n, "auto_pad", "NOTSET");
  if (pad != "NOTSET" && pad != "SAME_UPPER" && pad != "SAME_LOWER" && pad != "VALID")
    return n.op + ": auto_pad '" + pad + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID";
  return std::nullopt;
}

PoolGeometry pool_geometry(const std::string& op, const PoolAttrs& a, const Dims& x) {
  const int s = a.spatial();
  require(static_cast<int>(x.size()) == s + 2, [&] {
    return op + ": X has rank " + std::to_string(x.size()) + " but kernel_shape has " +
           std::to_string(s) + " values";
  });
  PoolGeometry g;
  g.in.assign(x.begin() + 2, x.end());
  g.kernel = a.kernel;
  g.strides = a.strides;
  g.dilations = a.dilations;
  g.out.resize(s);
  g.pad_begin.resize(s);
  g.pad_end.resize(s);
  for (int i = 0; i < s; ++i) {
    const int64_t in = g.in[i], st = a.strides[i];
    const int64_t eff = (a.kernel[i] - 1) * a.dilations[i] + 1;
    if (a.auto_pad == PoolPad::kSameUpper || a.auto_pad == PoolPad::kSameLower) {
      g.out[i] = ceil_div(in, st);
      const int64_t total = std::max<int64_t>(0, (g.out[i] - 1) * st + eff - in);
      g.pad_begin[i] = a.auto_pad == PoolPad::kSameUpper ? total / 2 : total - total / 2;
      g.pad_end[i] = total - g.pad_begin[i];
      continue;
    }
    g.pad_begin[i] = a.pads[i];
    g.pad_end[i] = a.pads[i + s];
    const int64_t span = in + g.pad_begin[i] + g.pad_end[i] - eff;
    require(span >= 0, [&] {
      return op + ": the window of spatial dim " + std::to_string(i) + " (extent " +
             std::to_string(eff) + ") is larger than the padded input length " +
             std::to_string(in + g.pad_begin[i] + g.pad_end[i]);
    });
    if (a.ceil_mode && a.auto_pad == PoolPad::kNotSet) {
      g.out[i] = ceil_div(span, st) + 1;
      // A last window that would start in the end padding is dropped.
      if ((g.out[i] - 1) * st >= in + g.pad_begin[i]) --g.out[i];
    } else {
      g.out[i] = span / st + 1;
    }
  }
  return g;
}

PoolGeometry global_geometry(const std::string& op, const Dims& x) {
  require(x.size() >= 2, [&] {
    return op + ": X has rank " + std::to_string(x.size()) + "; it must be (N, C, D1, ...)";
  });
  PoolGeometry g;
  g.in.assign(x.begin() + 2, x.end());
  g.kernel = g.in;
  const size_t s = g.in.size();
  g.out.assign(s, 1);
  g.strides.assign(s, 1);
  g.dilations.assign(s, 1);
  g.pad_begin.assign(s, 0);
  g.pad_end.assign(s, 0);
  return g;
}

Dims pool_output_shape(const Dims& x, const PoolGeometry& g) {
  Dims y = {x[0], x[1]};
  y.insert(y.end(), g.out.begin(), g.out.end());
  return y;
}

}  // namespace geon::cpu
