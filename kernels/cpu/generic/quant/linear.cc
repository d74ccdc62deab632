// QuantizeLinear and DequantizeLinear, every opset. The scale and zero point apply per tensor
// (one element), per axis (1-D along `axis`) or per block (x's shape with `axis` cut into blocks
// of `block_size`); each element of x finds its parameter by index arithmetic, so nothing is
// expanded. Values travel as doubles: every quantized and float type converts into double
// exactly, and the roundings the spec's arithmetic makes (the division in the scale's type or
// `precision`, the product in the output's type) are applied explicitly, once each.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "core/base/error.h"
#include "core/desc/desc.h"
#include "core/desc/views.h"
#include "core/engine/engine.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/quant/ops.h"

namespace geon::cpu {
namespace {

std::string dims_text(const Dims& d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + ")";
}

bool is_float8(DType t) {
  return t == DType::kFloat8E4M3FN || t == DType::kFloat8E4M3FNUZ || t == DType::kFloat8E5M2 ||
         t == DType::kFloat8E5M2FNUZ;
}

// The dtypes a quantized tensor may have (QuantizeLinear's output, DequantizeLinear's input).
bool is_quantized(DType t) {
  switch (t) {
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kUInt16:
    case DType::kInt16:
    case DType::kUInt4:
    case DType::kInt4:
    case DType::kUInt2:
    case DType::kInt2:
    case DType::kFloat4E2M1:
      return true;
    default:
      return is_float8(t);
  }
}

bool is_real(DType t) { return is_numeric(t) && !is_complex(t) && t != DType::kBool; }

// Where element i of x (dense row-major) finds its scale and zero point.
struct ParamMap {
  enum class Mode { kTensor, kAxis, kBlocked } mode = Mode::kTensor;
  int64_t inner = 1, len = 1, block = 1, plen = 1;
  int64_t operator()(int64_t i) const {
    switch (mode) {
      case Mode::kTensor:
        return 0;
      case Mode::kAxis:
        return (i / inner) % len;
      default: {
        const int64_t in = i % inner, a = (i / inner) % len, outer = i / (inner * len);
        return (outer * plen + a / block) * inner + in;
      }
    }
  }
};

// Checks the shapes of x, the scale and the zero point (null when omitted) against the
// granularity and gives the parameter map; `sname` and `zname` name inputs 1 and 2 in errors.
ParamMap param_map(const Dims& x, const Dims& scale, const Dims* zp, int64_t axis_attr,
                   int64_t block, const std::string& sname, const std::string& zname) {
  const int64_t sc = element_count(scale);
  if (zp && *zp != scale && !(sc == 1 && element_count(*zp) == 1))
    fail(ErrorCode::kInvalidArgument, "input 2 (" + zname + ") has shape " + dims_text(*zp) +
                                          " but input 1 (" + sname + ") has " + dims_text(scale) +
                                          "; they must be equal");
  ParamMap m;
  if (sc == 1) return m;  // per tensor, whatever the rank of the one element
  const std::string sdesc = "input 1 (" + sname + ") has shape " + dims_text(scale);
  require(!x.empty(), [&] { return sdesc + " but input 0 is a scalar; a scalar takes one scale"; });
  const int axis = normalize_axis(axis_attr, static_cast<int>(x.size()));
  for (size_t d = axis + 1; d < x.size(); ++d) m.inner *= x[d];
  m.len = x[axis];
  if (block <= 0) {
    require(scale.size() == 1 && scale[0] == x[axis], [&] {
      return sdesc + " but input 0 has shape " + dims_text(x) + "; per-axis parameters are 1-D " +
             "of input 0's length along axis " + std::to_string(axis) +
             (block < 0 ? "" : " (or set block_size for blocked quantization)");
    });
    m.mode = ParamMap::Mode::kAxis;
    return m;
  }
  bool ok = scale.size() == x.size();
  for (size_t d = 0; ok && d < x.size(); ++d)
    ok = static_cast<int>(d) == axis ? scale[d] == x[d] / block + (x[d] % block != 0)
                                     : scale[d] == x[d];
  require(ok, [&] {
    return sdesc + " but input 0 has shape " + dims_text(x) + "; with block_size " +
           std::to_string(block) + " along axis " + std::to_string(axis) +
           " it must be input 0's shape with that axis divided into blocks";
  });
  m.mode = ParamMap::Mode::kBlocked;
  m.block = block;
  m.plen = scale[axis];
  return m;
}

struct LinearAttrs {
  int64_t axis = 1, block = 0;
  bool saturate = true;
  DType precision = DType::kUndefined;
};

LinearAttrs read_attrs(const Node& n) {
  LinearAttrs a;
  if (n.opset >= 13) a.axis = attr_int(n, "axis", 1);
  if (n.opset >= 21) a.block = attr_int(n, "block_size", 0);
  if (n.opset >= 19) a.saturate = attr_int(n, "saturate", 1) != 0;
  const int64_t p = attr_int(n, "precision", 0);
  if (p > 0 && p < kDTypeCount)  // an invalid value is refused by attrs_reason
    a.precision = dtype_from_onnx(static_cast<int32_t>(p)).value_or(DType::kUndefined);
  return a;
}

Reason attrs_reason(const Node& n) {
  if (n.opset >= 21 && attr_int(n, "block_size", 0) < 0)
    return n.op + ": attribute 'block_size' must not be negative";
  const int64_t p = attr_int(n, "precision", 0);
  if (p != 0) {
    const auto t =
        p > 0 && p < kDTypeCount ? dtype_from_onnx(static_cast<int32_t>(p)) : std::nullopt;
    if (!t || !is_floating(*t) || dtype_bits(*t) < 16)
      return n.op + ": attribute 'precision' is " + std::to_string(p) +
             ", not a float type of 16 bits or more";
  }
  return std::nullopt;
}

// The type the division x / y_scale is rounded to: `precision` when given, else the scale's
// type (the spec, opset 23 on; before it x and the scale share their type, or x is int32 and the
// scale float). A scale of int32 or float8e8m0 is no arithmetic type: its division is in float.
DType division_type(const LinearAttrs& a, DType scale) {
  if (a.precision != DType::kUndefined) return a.precision;
  const bool arithmetic = scale == DType::kFloat || scale == DType::kFloat16 ||
                          scale == DType::kBFloat16 || scale == DType::kDouble;
  return arithmetic ? scale : DType::kFloat;
}

// Runs body(begin, end) over [0, count) on the thread pool.
template <class Fn>
void elements(int64_t count, Fn&& body) {
  parallel_rows(count, 8, [&](int64_t lo, int64_t hi) { body(lo, hi); });
}

// The fast paths: per-tensor float <-> 8-bit over two views of one layout with no gaps (any
// order of dims, so channels-last values too), one flat loop the compiler vectorises. The
// arithmetic is the spec's in float, which the double path above reproduces: x / scale rounded
// to float, rounded half to even, plus the zero point, saturated (NaN to the low end); and
// (x - zero point) · scale rounded to float.

// Whether two views of one shape lay their elements out alike with no gaps: a flat loop from
// each one's lowest element visits the same logical elements in the same order.
bool flat_alike(const TensorDesc& a, const TensorDesc& b) {
  if (a.shape != b.shape) return false;
  for (int d = 0; d < a.rank(); ++d)
    if (a.shape[d] > 1 && a.strides[d] != b.strides[d]) return false;
  const ElementSpan s = element_span(a);
  return s.last - s.first + 1 == element_count(a);
}

// One chunk of each, plain loops over restrict pointers that the compiler vectorises.
template <typename Q>
void quantize_chunk(const float* __restrict x, Q* __restrict y, int64_t n, float scale,
                    float zero) {
  constexpr float lo = std::numeric_limits<Q>::min(), hi = std::numeric_limits<Q>::max();
  for (int64_t i = 0; i < n; ++i) {
    float q = std::nearbyint(x[i] / scale) + zero;
    q = lo < q ? q : lo;  // NaN goes to lo
    q = q < hi ? q : hi;
    y[i] = static_cast<Q>(static_cast<int32_t>(q));
  }
}
template <typename Q>
void dequantize_chunk(const Q* __restrict x, float* __restrict y, int64_t n, float scale,
                      int32_t zero) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - zero) * scale;
}

template <typename Q>
void quantize_flat(const float* x, Q* y, int64_t count, float scale, float zero) {
  elements(count, [=](int64_t begin, int64_t end) {
    quantize_chunk(x + begin, y + begin, end - begin, scale, zero);
  });
}

template <typename Q>
void dequantize_flat(const Q* x, float* y, int64_t count, float scale, int32_t zero) {
  elements(count, [=](int64_t begin, int64_t end) {
    dequantize_chunk(x + begin, y + begin, end - begin, scale, zero);
  });
}

// Per-tensor float scale (and a zero point of one element, or none) with 8-bit data.
bool per_tensor_8bit(const TensorRef& s, const TensorRef* z, DType q) {
  return (q == DType::kUInt8 || q == DType::kInt8) && s.desc.dtype == DType::kFloat &&
         element_count(s.desc) == 1 && (!z || element_count(z->desc) == 1);
}

float first_float(const TensorRef& t) {
  return *(static_cast<const float*>(t.data) + t.desc.offset);
}
int32_t first_8bit(const TensorRef* t) {
  if (!t) return 0;
  const void* p = static_cast<const std::byte*>(t->data) + t->desc.offset;
  return t->desc.dtype == DType::kUInt8 ? *static_cast<const uint8_t*>(p)
                                        : *static_cast<const int8_t*>(p);
}

bool quantize_fast(KernelContext& ctx, const LinearAttrs& a) {
  const TensorRef& x = ctx.input(0);
  const TensorRef& s = ctx.input(1);
  const TensorRef* z = ctx.num_inputs() > 2 && ctx.input(2).present() ? &ctx.input(2) : nullptr;
  const TensorRef& out = ctx.output(0, x.desc.shape);
  const DType t = out.desc.dtype;
  if (x.desc.dtype != DType::kFloat || !per_tensor_8bit(s, z, t) || (z && z->desc.dtype != t) ||
      (a.precision != DType::kUndefined && a.precision != DType::kFloat) ||
      !flat_alike(x.desc, out.desc))
    return false;
  const int64_t count = element_count(x.desc);
  if (count == 0) return true;
  const float* xp = static_cast<const float*>(x.data) + element_span(x.desc).first;
  const float scale = first_float(s), zero = static_cast<float>(first_8bit(z));
  const int64_t at = element_span(out.desc).first;
  if (t == DType::kUInt8)
    quantize_flat(xp, static_cast<uint8_t*>(out.data) + at, count, scale, zero);
  else
    quantize_flat(xp, static_cast<int8_t*>(out.data) + at, count, scale, zero);
  return true;
}

bool dequantize_fast(KernelContext& ctx) {
  const TensorRef& x = ctx.input(0);
  const TensorRef& s = ctx.input(1);
  const TensorRef* z = ctx.num_inputs() > 2 && ctx.input(2).present() ? &ctx.input(2) : nullptr;
  if (!per_tensor_8bit(s, z, x.desc.dtype) || (z && z->desc.dtype != x.desc.dtype)) return false;
  const TensorRef& out = ctx.output(0, x.desc.shape);
  if (out.desc.dtype != DType::kFloat) return false;
  const int64_t count = element_count(x.desc);
  if (count == 0) return true;
  const float scale = first_float(s);
  const int32_t zero = first_8bit(z);
  if (!flat_alike(x.desc, out.desc)) {
    // Other layouts (channels-last X into a dense Y: an int8 CNN's last features before a
    // float pooling) in two flat-speed passes, the engine's strided conversion to float (exact
    // for 8-bit values) and then (y - zero point) * scale in place, the same float arithmetic
    // as the flat loop; 3-4x the element-by-element path's speed.
    if (!is_contiguous(out.desc)) return false;
    assign(Operand{out.desc, out.data}, ConstOperand(x.desc, x.data));
    float* y = static_cast<float*>(out.data) + out.desc.offset;
    const float zf = static_cast<float>(zero);
    elements(count, [=](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) y[i] = (y[i] - zf) * scale;
    });
    return true;
  }
  const int64_t from = element_span(x.desc).first;
  float* yp = static_cast<float*>(out.data) + element_span(out.desc).first;
  if (x.desc.dtype == DType::kUInt8)
    dequantize_flat(static_cast<const uint8_t*>(x.data) + from, yp, count, scale, zero);
  else
    dequantize_flat(static_cast<const int8_t*>(x.data) + from, yp, count, scale, zero);
  return true;
}

void quantize(KernelContext& ctx, const LinearAttrs& a) {
  if (quantize_fast(ctx, a)) return;
  const TensorRef& x = ctx.input(0);
  const TensorRef& s = ctx.input(1);
  const bool has_zp = ctx.num_inputs() > 2 && ctx.input(2).present();
  const TensorRef* z = has_zp ? &ctx.input(2) : nullptr;
  const ParamMap map = param_map(x.desc.shape, s.desc.shape, z ? &z->desc.shape : nullptr, a.axis,
                                 a.block, "y_scale", "y_zero_point");
  const TensorRef& out = ctx.output(0, x.desc.shape);
  const DType t = out.desc.dtype;
  require(is_quantized(t), [&] {
    return "output dtype " + std::string(dtype_name(t)) + " is not a quantized type";
  });
  require(!z || z->desc.dtype == t, [&] {
    return "input 2 (y_zero_point) is " + std::string(dtype_name(z ? z->desc.dtype : t)) +
           " but the output is " + std::string(dtype_name(t));
  });
  const int64_t count = element_count(x.desc);
  if (count == 0) return;
  const std::vector<double> xv = dense_double(x), sv = dense_double(s);
  const std::vector<double> zv = z ? dense_double(*z) : std::vector<double>(sv.size(), 0.0);
  const DType div = division_type(a, s.desc.dtype);
  std::vector<double> y(static_cast<size_t>(count));
  const bool integer = is_integer(t), fp8 = is_float8(t);
  const IntRange r = integer ? int_range(t) : IntRange{0, 0};
  elements(count, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t p = map(i);
      double q = round_to(div, round_to(div, xv[i]) / round_to(div, sv[p]));
      if (integer) {
        q = saturate_round(std::nearbyint(q) + zv[p], r);
      } else if (!fp8) {
        q = round_to(div, q + zv[p]);  // float4e2m1: onnx adds the (zero) zero point
      }  // float8: the spec's zero point is zero and onnx does not add it
      y[i] = q;
    }
  });
  EngineOptions opt;
  opt.cast.saturate = a.saturate;
  assign(dst_of(out), ConstOperand(row_major(DType::kDouble, x.desc.shape), y.data()), opt);
}

void dequantize(KernelContext& ctx, const LinearAttrs& a) {
  if (dequantize_fast(ctx)) return;
  const TensorRef& x = ctx.input(0);
  const TensorRef& s = ctx.input(1);
  const bool has_zp = ctx.num_inputs() > 2 && ctx.input(2).present();
  const TensorRef* z = has_zp ? &ctx.input(2) : nullptr;
  require(is_quantized(x.desc.dtype) || x.desc.dtype == DType::kInt32, [&] {
    return "input 0 (x) is " + std::string(dtype_name(x.desc.dtype)) + ", not a quantized type";
  });
  require(!z || z->desc.dtype == x.desc.dtype, [&] {
    return "input 2 (x_zero_point) is " + std::string(dtype_name(z ? z->desc.dtype : DType{})) +
           " but input 0 (x) is " + std::string(dtype_name(x.desc.dtype));
  });
  const ParamMap map = param_map(x.desc.shape, s.desc.shape, z ? &z->desc.shape : nullptr, a.axis,
                                 a.block, "x_scale", "x_zero_point");
  const TensorRef& out = ctx.output(0, x.desc.shape);
  const int64_t count = element_count(x.desc);
  if (count == 0) return;
  std::vector<double> xv = dense_double(x);
  const std::vector<double> sv = dense_double(s);
  const std::vector<double> zv = z ? dense_double(*z) : std::vector<double>(sv.size(), 0.0);
  // x - zero point is exact in double; the product is rounded once, to the output's type, which
  // the spec makes the precision of the multiplication.
  const DType ct = out.desc.dtype;
  elements(count, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t p = map(i);
      xv[i] = round_to(ct, (xv[i] - zv[p]) * sv[p]);
    }
  });
  assign(dst_of(out), ConstOperand(row_major(DType::kDouble, x.desc.shape), xv.data()));
}

Reason io_reason(const Graph& g, const Node& n, bool quantizing) {
  if (auto r = attrs_reason(n)) return r;
  const DType x = input_dtype(g, n, 0), s = input_dtype(g, n, 1), y = output_dtype(g, n, 0);
  if (!is_real(x)) return n.op + ": input 0 (x) of " + std::string(dtype_name(x)) + " is refused";
  if (!is_real(s) || is_integer(s) != (s == DType::kInt32))
    return n.op + ": input 1 (scale) of " + std::string(dtype_name(s)) + " is refused";
  const DType q = quantizing ? y : x;
  if (!is_quantized(q) && !(!quantizing && q == DType::kInt32))
    return n.op + ": " + std::string(dtype_name(q)) + " is not a quantized type";
  if (!quantizing && (!is_floating(y) || dtype_bits(y) < 16))
    return n.op + ": output of " + std::string(dtype_name(y)) + " is refused";
  return std::nullopt;
}

}  // namespace

Reason supports_quantize_linear(const Graph& g, const Node& n) { return io_reason(g, n, true); }

std::unique_ptr<Kernel> create_quantize_linear(const Graph&, const Node& n) {
  const LinearAttrs a = read_attrs(n);
  return make_node_kernel(n, [a](KernelContext& ctx) { quantize(ctx, a); });
}

Reason supports_dequantize_linear(const Graph& g, const Node& n) { return io_reason(g, n, false); }

std::unique_ptr<Kernel> create_dequantize_linear(const Graph&, const Node& n) {
  const LinearAttrs a = read_attrs(n);
  return make_node_kernel(n, [a](KernelContext& ctx) { dequantize(ctx, a); });
}

}  // namespace geon::cpu
