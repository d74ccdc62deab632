// Conv in the dtypes cpu.dnnl does not take (float16, bfloat16 and double): a direct loop over
// (batch, output channel) rows, computing in float (double for double), with groups, strides,
// dilations and pads (auto_pad included) by the ONNX formulas of kernels/cpu/conv_params.h, which
// holds no oneDNN code. 1-D to 3-D, as cpu.dnnl; float stays with cpu.dnnl.
#include "kernels/cpu/conv_params.h"
#include "kernels/cpu/generic/attention/dense.h"
#include "kernels/cpu/generic/attention/ops.h"

namespace geon::cpu {
namespace {

bool direct_dtype(DType t) {
  return t == DType::kDouble || t == DType::kFloat16 || t == DType::kBFloat16;
}

// One run's geometry padded to three spatial dims (leading dims of length 1).
struct Geo3 {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, dil[3] = {1, 1, 1}, pad[3] = {0, 0, 0};
};

template <class T>
void run(KernelContext& ctx, const ConvAttrs& attrs) {
  const TensorRef& xr = ctx.input(0);
  const TensorRef& wr = ctx.input(1);
  const ConvGeometry geo = conv_geometry(attrs, xr.desc.shape, wr.desc.shape, "Conv");
  const Dims& xs = xr.desc.shape;
  const Dims& ws = wr.desc.shape;
  const int64_t N = xs[0], Cin = xs[1], M = ws[0], G = attrs.group;
  const int64_t Cg = Cin / G, Mg = M / G;  // input / output channels per group
  const bool has_bias = given(ctx, 2);
  if (has_bias)
    require(ctx.input(2).desc.shape == Dims{M}, [&] {
      return "Conv bias " + dims_text(ctx.input(2).desc.shape) +
             " must have one value per output channel (" + std::to_string(M) + ")";
    });
  check_output_size(xr.desc.dtype, geo.dst_shape, "Conv output");
  Geo3 s;
  const int sp = geo.spatial(), lead = 3 - sp;
  for (int i = 0; i < sp; ++i) {
    s.in[lead + i] = xs[2 + i];
    s.out[lead + i] = geo.dst_shape[2 + i];
    s.k[lead + i] = geo.kernel[i];
    s.stride[lead + i] = geo.strides[i];
    s.dil[lead + i] = geo.dilations[i];
    s.pad[lead + i] = geo.pad_begin[i];
  }
  const int64_t in_size = s.in[0] * s.in[1] * s.in[2];
  const int64_t out_size = s.out[0] * s.out[1] * s.out[2];
  const int64_t k_size = s.k[0] * s.k[1] * s.k[2];
  const std::vector<T> x = dense_as<T>(xr);
  const std::vector<T> w = dense_as<T>(wr);
  const std::vector<T> bias = has_bias ? dense_as<T>(ctx.input(2)) : std::vector<T>{};
  std::vector<T> y(static_cast<size_t>(std::max<int64_t>(N * M * out_size, 1)));
  if (out_size > 0)
    parallel_rows(N * M, cost_of({out_size, Cg, k_size}), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const int64_t n = r / M, m = r % M, g = m / Mg;
        const T* wm = w.data() + m * Cg * k_size;
        const T* xg = x.data() + (n * Cin + g * Cg) * in_size;
        T* yr = y.data() + r * out_size;
        for (int64_t o0 = 0; o0 < s.out[0]; ++o0)
          for (int64_t o1 = 0; o1 < s.out[1]; ++o1)
            for (int64_t o2 = 0; o2 < s.out[2]; ++o2) {
              T acc = has_bias ? bias[m] : T(0);
              for (int64_t c = 0; c < Cg; ++c) {
                const T* xc = xg + c * in_size;
                const T* wc = wm + c * k_size;
                for (int64_t k0 = 0; k0 < s.k[0]; ++k0) {
                  const int64_t i0 = o0 * s.stride[0] - s.pad[0] + k0 * s.dil[0];
                  if (i0 < 0 || i0 >= s.in[0]) continue;
                  for (int64_t k1 = 0; k1 < s.k[1]; ++k1) {
                    const int64_t i1 = o1 * s.stride[1] - s.pad[1] + k1 * s.dil[1];
                    if (i1 < 0 || i1 >= s.in[1]) continue;
                    const T* xrow = xc + (i0 * s.in[1] + i1) * s.in[2];
                    const T* wrow = wc + (k0 * s.k[1] + k1) * s.k[2];
                    for (int64_t k2 = 0; k2 < s.k[2]; ++k2) {
                      const int64_t i2 = o2 * s.stride[2] - s.pad[2] + k2 * s.dil[2];
                      if (i2 >= 0 && i2 < s.in[2]) acc += xrow[i2] * wrow[k2];
                    }
                  }
                }
              }
              yr[(o0 * s.out[1] + o1) * s.out[2] + o2] = acc;
            }
      }
    });
  store_dense(ctx.output(0, geo.dst_shape), y);
}

}  // namespace

Reason supports_direct_conv(const Graph& g, const Node& n) {
  for (int i = 0; i < 3; ++i) {
    if (!has_input(n, i)) continue;
    const DType t = input_dtype(g, n, i);
    if (!direct_dtype(t))
      return "Conv of " + std::string(dtype_name(t)) +
             " runs on cpu.dnnl (cpu.generic takes float16, bfloat16, double)";
  }
  if (!has_input(n, 0) || !has_input(n, 1)) return "Conv needs X and W";
  ConvAttrs attrs;
  return read_conv_attrs(n, false, &attrs);
}

std::unique_ptr<Kernel> create_direct_conv(const Graph& g, const Node& n) {
  ConvAttrs attrs;
  if (Reason r = read_conv_attrs(n, false, &attrs)) fail(ErrorCode::kInvalidArgument, *r);
  const bool dbl = input_dtype(g, n, 0) == DType::kDouble;
  return make_node_kernel(n, [attrs, dbl](KernelContext& ctx) {
    if (dbl)
      run<double>(ctx, attrs);
    else
      run<float>(ctx, attrs);
  });
}

}  // namespace geon::cpu
