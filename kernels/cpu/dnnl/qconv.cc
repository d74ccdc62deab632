// geon.QConv and geon.QGemm (core/passes/fuse_qdq.h defines them) on oneDNN's int8
// convolution, QGemm as a 1x1 convolution of one-pixel images: u8 X read channels-last with
// X_zero_point as oneDNN's source zero point (padding reads the zero point, as
// DequantizeLinear's zero), int8 W reordered once per layout into the primitive's blocked form,
// an int32 accumulator, and the rest in f32 as oneDNN's attributes:
//   output scales   X_scale·W_scale[m] / Q_scale (Q: C with a residual, else Y), bias added
//                   before them in accumulator units (B / (X_scale·W_scale[m]))
//   post-ops        [relu] round                                      (no residual)
//                   [relu] round clip(C range - C_zp) linear(C_scale / Y_scale)
//                   sum(Z_scale / Y_scale, Z_zp) [relu] round          (residual)
//   dst zero point  Y_zp, then saturation to Y's type by the store.
// `round` is half to even, as QuantizeLinear rounds; the clip is C's saturation (C - C_zp
// stays in the range C's type holds), so the result is the unfused graph's except for the
// rounding of float arithmetic. oneDNN 2.6 mixes up two eltwise post-ops of one kind with
// different parameters, so each kind appears once or with equal parameters (the two relus and
// rounds), and Y_zp is the destination zero point rather than a second linear.
//
// On CPUs without VNNI (AVX2, AVX-512 before Cascade Lake) oneDNN's u8·s8 kernels add pairs of
// products in 16 bits with saturation (oneDNN's "Nuances of int8 computations"): a pair of
// large activations against a pair of large same-signed weights (|w1| + |w2| > 128 with X at
// 255) saturates. ONNX Runtime and OpenVINO document the same limit for their int8 kernels on
// such CPUs (hence quantize_static's reduce_range, 7-bit weights, which cannot saturate).

#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/conv_params.h"
#include "kernels/cpu/dnnl/layout.h"
#include "kernels/cpu/dnnl/ops.h"
#include "kernels/cpu/dnnl/primitive_cache.h"
#include "kernels/cpu/dnnl/runtime.h"

namespace geon::cpu {
namespace {

using dims_t = dnnl::memory::dims;
constexpr size_t kMaxCachedPrimitives = 64;
// Convolutions below this many multiply-adds a part are not worth another thread.
constexpr double kMinMacsPerPart = 1 << 17;
// One image whose weights are at least this many times its X and Y in bytes splits by output
// channels, in blocks of kChannelBlock (a multiple of oneDNN's AVX2 and AVX-512 blocks), the last
// part taking the channels past the last whole block. QGemm's one row too: ResNet-50's
// classifier (2 MB of weights, one row) took 123-137 us on one thread.
// Split by rows, every part reads all of W: ResNet-50's last stage at two threads ran 1.5x
// faster than on one where the first stages ran 1.9x.
constexpr double kWeightsOverData = 2;
constexpr int64_t kChannelBlock = 16;
// Inputs (fuse_qdq.h).
enum : int {
  kX,
  kXScale,
  kXZero,
  kW,
  kWScale,
  kWZero,
  kB,
  kBScale,
  kBZero,
  kYScale,
  kYZero,
  kZ,
  kZScale,
  kZZero,
  kCScale,
  kCZero,
  kInputs
};

std::atomic<int64_t> g_reference_primitives{0};
std::atomic<int64_t> g_layout_copies{0};
std::atomic<int64_t> g_channel_splits{0};

bool eight_bit(DType t) { return t == DType::kUInt8 || t == DType::kInt8; }

// A constant whose data no feed can replace.
const TensorData* constant(const Graph& g, const Node& n, int i) {
  if (!has_input(n, i)) return nullptr;
  const Value& v = g.value(n.inputs[i]);
  return v.kind == ValueKind::kConstant && !v.overridable && v.data && v.data->storage
             ? v.data.get()
             : nullptr;
}

double at(const TensorData& t, int64_t i) { return element_as_double(t, i); }
// Element i, or element 0 of a one-element tensor (per tensor or per channel).
double per(const TensorData& t, int64_t i) { return at(t, t.elements() == 1 ? 0 : i); }

// Why the parameters of input i (a scale with `count` or one elements) are refused, if they are.
Reason scale_reason(const Graph& g, const Node& n, int i, int64_t count, const char* name) {
  const TensorData* s = constant(g, n, i);
  if (!s || s->desc.dtype != DType::kFloat)
    return std::string(name) + " must be a constant float tensor";
  if (s->elements() != 1 && s->elements() != count)
    return std::string(name) + " must have one element or one per output channel";
  for (int64_t k = 0; k < s->elements(); ++k)
    if (!std::isfinite(at(*s, k)) || at(*s, k) <= 0)
      return std::string(name) + " must be finite and positive";
  return std::nullopt;
}
Reason zero_reason(const Graph& g, const Node& n, int i, const char* name) {
  const TensorData* z = constant(g, n, i);
  if (!z || !eight_bit(z->desc.dtype) || z->elements() != 1)
    return std::string(name) + " must be a constant 8-bit scalar";
  return std::nullopt;
}

// What the constant inputs say, read once.
struct QConvParams {
  std::string op;  // for messages
  ConvAttrs attrs;
  bool relu = false, sum_relu = false, residual = false;
  int32_t x_zero = 0, y_zero = 0, z_zero = 0;
  DType y_type = DType::kUInt8, z_type = DType::kUInt8;
  float c_scale = 1, y_scale = 1, z_scale = 1;
  int32_t c_lo = 0, c_hi = 255;   // C's range, less C_zp
  std::vector<float> out_scales;  // X_scale·W_scale[m] / (C or Y)_scale
  std::vector<float> bias;        // in accumulator units; empty when there is none
  std::shared_ptr<const TensorData> weights;
  // geon.QGemm: X (N, K) and Y (N, M) run as (N, K, 1) and (N, M, 1), W as (M, K, 1).
  bool gemm = false;
  Dims w_shape;  // W as a convolution's weights
  TensorDesc
      w_plain;  // W's data seen as oneDNN's plain weights (G, M/G, C/G, k...) or (M, C, k...)
};

int32_t zero_of(const Graph& g, const Node& n, int i) {
  const TensorData* z = constant(g, n, i);
  return z ? static_cast<int32_t>(at(*z, 0)) : 0;
}

// W's dims as oneDNN's weights: (G, M/G, C/G, k...) with groups, else (M, C/G, k...).
dims_t weights_dims(const Dims& w, int64_t group) {
  dims_t d;
  if (group > 1) {
    d.push_back(group);
    d.push_back(w[0] / group);
  } else {
    d.push_back(w[0]);
  }
  d.insert(d.end(), w.begin() + 1, w.end());
  return d;
}

// W's output channel count: dim 0, or dim 1 of a QGemm's (K, M).
int64_t output_channels(const Node& n, const TensorData& w) {
  return n.op == "QGemm" && attr_int(n, "trans_b", 0) == 0 ? w.desc.shape[1] : w.desc.shape[0];
}

QConvParams read_params(const Graph& g, const Node& n) {
  QConvParams p;
  p.op = n.op + (n.name.empty() ? std::string() : " '" + n.name + "'");
  p.gemm = n.op == "QGemm";
  if (!p.gemm) read_conv_attrs(n, false, &p.attrs);
  p.relu = attr_string(n, "activation", "") == "Relu";
  p.sum_relu = attr_string(n, "sum_activation", "") == "Relu";
  p.residual = has_input(n, kZ);
  p.weights = g.value(n.inputs[kW]).data;
  const int64_t M = output_channels(n, *p.weights);
  const TensorDesc& wd = p.weights->desc;
  if (p.gemm) {  // (M, K) or (K, M), then a length-1 kernel dim
    p.w_shape = {M, wd.shape[0] + wd.shape[1] - M, 1};
    p.w_plain = attr_int(n, "trans_b", 0) ? wd : transpose(wd);
    const std::vector<int64_t> last{2};
    p.w_plain = unsqueeze(p.w_plain, last);
  } else {
    p.w_shape = wd.shape;
    const dims_t dims = weights_dims(wd.shape, p.attrs.group);
    p.w_plain = row_major(DType::kInt8, Dims(dims.begin(), dims.end()));
  }
  const double x_scale = at(*constant(g, n, kXScale), 0);
  const TensorData& w_scale = *constant(g, n, kWScale);
  p.x_zero = zero_of(g, n, kXZero);
  p.y_zero = zero_of(g, n, kYZero);
  p.y_type = constant(g, n, kYZero)->desc.dtype;
  p.y_scale = static_cast<float>(at(*constant(g, n, kYScale), 0));
  double q_scale = p.y_scale;
  if (p.residual) {
    p.z_zero = zero_of(g, n, kZZero);
    p.z_type = g.value(n.inputs[kZ]).dtype();
    p.z_scale = static_cast<float>(at(*constant(g, n, kZScale), 0));
    p.c_scale = static_cast<float>(at(*constant(g, n, kCScale), 0));
    const TensorData& cz = *constant(g, n, kCZero);
    const int32_t c_zero = static_cast<int32_t>(at(cz, 0));
    p.c_lo = (cz.desc.dtype == DType::kInt8 ? -128 : 0) - c_zero;
    p.c_hi = (cz.desc.dtype == DType::kInt8 ? 127 : 255) - c_zero;
    q_scale = p.c_scale;
  }
  for (int64_t m = 0; m < M; ++m) {
    const double acc_scale = x_scale * per(w_scale, m);
    p.out_scales.push_back(static_cast<float>(acc_scale / q_scale));
  }
  if (has_input(n, kB)) {
    const TensorData& b = *constant(g, n, kB);
    for (int64_t m = 0; m < M; ++m) {
      // The float bias as DequantizeLinear computes it: (B - B_zp) in float, times B_scale.
      float bf = static_cast<float>(at(b, m));
      if (b.desc.dtype == DType::kInt32) {
        const TensorData* bz = constant(g, n, kBZero);
        const double diff = at(b, m) - (bz ? per(*bz, m) : 0.0);
        bf = static_cast<float>(diff) * static_cast<float>(per(*constant(g, n, kBScale), m));
      }
      p.bias.push_back(static_cast<float>(bf / (x_scale * per(w_scale, m))));
    }
  }
  return p;
}

// Some output position's window holds padding only (pads wider than the kernel, or dilation
// stepping over a short input).
bool output_reads_only_padding(const ConvGeometry& geo, const Dims& x) {
  for (int i = 0; i < geo.spatial(); ++i) {
    const int64_t in = x[2 + i];
    for (int64_t o = 0; o < geo.dst_shape[2 + i]; ++o) {
      bool reads = false;
      for (int64_t j = 0; j < geo.kernel[i] && !reads; ++j) {
        const int64_t at = o * geo.strides[i] - geo.pad_begin[i] + j * geo.dilations[i];
        reads = at >= 0 && at < in;
      }
      if (!reads) return true;
    }
  }
  return false;
}

// The attributes of output channels [m_first, m_first + m_count).
dnnl::primitive_attr make_attr(const QConvParams& p, int64_t m_first, int64_t m_count) {
  using alg = dnnl::algorithm;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (p.out_scales.size() > 1)
    attr.set_output_scales(1 << 1, std::vector<float>(p.out_scales.begin() + m_first,
                                                      p.out_scales.begin() + m_first + m_count));
  else
    attr.set_output_scales(0, p.out_scales);
  if (p.x_zero != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {p.x_zero});
  if (p.y_zero != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {p.y_zero});
  dnnl::post_ops po;
  if (p.relu) po.append_eltwise(1.0f, alg::eltwise_relu, 0.0f, 0.0f);
  po.append_eltwise(1.0f, alg::eltwise_round, 0.0f, 0.0f);
  if (p.residual) {
    po.append_eltwise(1.0f, alg::eltwise_clip, static_cast<float>(p.c_lo),
                      static_cast<float>(p.c_hi));
    po.append_eltwise(1.0f, alg::eltwise_linear, p.c_scale / p.y_scale, 0.0f);
    po.append_sum(p.z_scale / p.y_scale, p.z_zero, *dnnl_dtype(p.z_type));
    if (p.sum_relu) po.append_eltwise(1.0f, alg::eltwise_relu, 0.0f, 0.0f);
    po.append_eltwise(1.0f, alg::eltwise_round, 0.0f, 0.0f);
  }
  attr.set_post_ops(po);
  return attr;
}

// Constant weights of output channels [m_first, ...) in one oneDNN layout, in 64-byte aligned
// storage of their own.
struct Packed {
  int64_t m_first = 0;
  dnnl::memory::desc desc;
  dnnl::memory mem;
  std::vector<std::byte> storage;
};

// A primitive for one X shape, pads and thread count.
struct Entry {
  dnnl::primitive prim;
  dnnl::memory::desc src, dst, scratch;  // src and dst channels-last, as the primitive reads them
  dnnl::memory::desc bias;
  size_t scratch_bytes = 0;
  std::shared_ptr<const Packed> weights;
};

// This thread's buffer `slot` (0 src, 1 dst, 2 a copy of Z, 3 a part's output channels), at
// least n bytes, 64-byte aligned; valid until its next use.
std::byte* thread_buffer(int slot, int64_t n) {
  thread_local std::vector<std::byte> buffers[4];
  std::vector<std::byte>& b = buffers[slot];
  if (static_cast<int64_t>(b.size()) < n + 64) b.resize(n + 64);
  const auto addr = reinterpret_cast<uintptr_t>(b.data());
  return b.data() + (64 - addr % 64) % 64;
}

std::string dims_text(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

// Copies `bytes` of each of `pixels` pixels between channels-last rows `from_stride` and
// `to_stride` bytes apart.
void copy_pixels(std::byte* to, int64_t to_stride, const std::byte* from, int64_t from_stride,
                 int64_t pixels, int64_t bytes) {
  for (int64_t i = 0; i < pixels; ++i)
    std::memcpy(to + i * to_stride, from + i * from_stride, static_cast<size_t>(bytes));
}

class QConvKernel : public Kernel {
 public:
  explicit QConvKernel(QConvParams p) : p_(std::move(p)), copier_(p_.op) {}

  // Makes (and caches) the primitives for X of this shape now, so weights are packed at
  // compile time for a model of static shapes.
  void prepare(const Dims& x) const {
    const Dims xs = p_.gemm ? Dims{x[0], x[1], 1} : x;
    const ConvGeometry geo = conv_geometry(p_.attrs, xs, p_.w_shape, p_.op);
    if (element_count(geo.dst_shape) == 0) return;
    const int64_t M = geo.dst_shape[1], blocks = M / kChannelBlock;
    const int parts = channel_parts(geo, xs);
    for (int p = 0; p < parts; ++p) {
      const auto r = channel_range(M, dnnl_part_first(blocks, parts, p),
                                   dnnl_part_first(blocks, parts, p + 1));
      primitive(geo, xs, r.first, r.second);
    }
    if (parts == 0) primitive(geo, xs);
  }

  void compute(KernelContext& ctx) const override {
    ConstOperand x = src_of(ctx.input(kX));
    require(x.desc.dtype == DType::kUInt8, [&] { return p_.op + ": X must be uint8"; });
    const std::vector<int64_t> pixel{2};  // QGemm: the one-pixel dim
    if (p_.gemm) {
      require(x.desc.rank() == 2, [&] { return p_.op + ": X must be 2-D"; });
      x.desc = unsqueeze(x.desc, pixel);
    }
    const ConvGeometry geo = conv_geometry(p_.attrs, x.desc.shape, p_.w_shape, p_.op);
    const TensorRef& out =
        ctx.output(0, p_.gemm ? Dims{geo.dst_shape[0], geo.dst_shape[1]} : geo.dst_shape);
    Operand dst = dst_of(out);
    if (p_.gemm) dst.desc = unsqueeze(dst.desc, pixel);
    require(dst.desc.dtype == p_.y_type,
            [&] { return p_.op + ": the output's dtype is not Y_zero_point's"; });
    std::optional<ConstOperand> z;
    if (p_.residual) {
      z = src_of(ctx.input(kZ));
      if (p_.gemm && z->desc.rank() == 2) z->desc = unsqueeze(z->desc, pixel);
      require(z->desc.shape == geo.dst_shape && z->desc.dtype == p_.z_type,
              [&] { return p_.op + ": Z must have the output's shape and Z_zero_point's dtype"; });
    }
    if (element_count(dst.desc) == 0) return;
    if (element_count(x.desc) == 0)
      fail(ErrorCode::kNotSupported, p_.op + ": empty input channels or spatial dims");

    // src: read in place when dense channels-last, else copied into that layout.
    ConstOperand src = x;
    if (!is_channels_last(x.desc)) {
      const TensorDesc d = channels_last(DType::kUInt8, x.desc.shape);
      std::byte* buf = thread_buffer(0, element_count(d));
      copier_.copy(Operand{d, buf}, x);
      src = ConstOperand(d, buf);
      g_layout_copies.fetch_add(1, std::memory_order_relaxed);
    }
    // dst: written in place when dense channels-last and clear of X.
    Operand work = dst;
    if (!is_channels_last(dst.desc) || shares_memory(dst.data, dst.desc, src.data, src.desc)) {
      work.desc = channels_last(p_.y_type, dst.desc.shape);
      work.data = thread_buffer(1, element_count(work.desc));
    }
    if (z && !(z->data == work.data && z->desc == work.desc)) {  // the sum post-op reads dst
      g_layout_copies.fetch_add(1, std::memory_order_relaxed);
      if (shares_memory(work.data, work.desc, z->data, z->desc)) {
        const TensorDesc d = channels_last(p_.z_type, z->desc.shape);
        std::byte* buf = thread_buffer(2, element_count(d));
        copier_.copy(Operand{d, buf}, *z);
        copier_.copy(work, ConstOperand(d, buf));
      } else {
        copier_.copy(work, *z);
      }
    }
    if (const int parts = channel_parts(geo, x.desc.shape)) {
      run_channels(geo, src, work, parts);
    } else {
      run_blocks(geo, src, work);
    }
    if (work.data != dst.data) {
      copier_.copy(dst, ConstOperand(work));
      g_layout_copies.fetch_add(1, std::memory_order_relaxed);
    }
  }

  // The sum post-op reads each element of dst before writing it, so dst may be Z's memory.
  std::span<const int> in_place_inputs() const override {
    static constexpr std::array<int, 1> kResidual{kZ};
    return p_.residual ? std::span<const int>(kResidual) : std::span<const int>();
  }

 private:
  // How many parts one image of X splits into by output channels (0: it does not; see
  // kWeightsOverData).
  int channel_parts(const ConvGeometry& geo, const Dims& x) const {
    const int64_t M = geo.dst_shape[1];
    if (p_.attrs.group != 1 || geo.dst_shape[0] != 1 || M < 2 * kChannelBlock) return 0;
    const double w_bytes = static_cast<double>(element_count(p_.w_shape));
    const double data_bytes = static_cast<double>(element_count(x) + element_count(geo.dst_shape));
    if (w_bytes < kWeightsOverData * data_bytes) return 0;
    const int parts = dnnl_parts(M / kChannelBlock, macs(geo), kMinMacsPerPart);
    return parts > 1 ? parts : 0;
  }

  // The output channels of the part over blocks [first, last) of M / kChannelBlock: whole
  // blocks, the last part also the channels past them.
  static std::pair<int64_t, int64_t> channel_range(int64_t M, int64_t first, int64_t last) {
    const int64_t m0 = first * kChannelBlock;
    return {m0, (last == M / kChannelBlock ? M : last * kChannelBlock) - m0};
  }

  double macs(const ConvGeometry& geo) const {
    return static_cast<double>(element_count(geo.dst_shape)) *
           static_cast<double>(element_count(p_.w_shape) / p_.w_shape[0]);
  }

  // One image in `parts` blocks of output channels, each reading all of src and its share of
  // W into a dense buffer of its own (oneDNN's jit kernels write dense channels-last only),
  // then copied into its channels of work; with a residual, Z (in work) is copied in first.
  void run_channels(const ConvGeometry& geo, const ConstOperand& src, const Operand& work,
                    int parts) const {
    g_channel_splits.fetch_add(1, std::memory_order_relaxed);
    const int64_t M = geo.dst_shape[1], pixels = element_count(geo.dst_shape) / M;
    auto* out = static_cast<std::byte*>(first_element(work.data, work.desc));
    dnnl_parallel(M / kChannelBlock, parts, [&](int64_t first, int64_t last) {
      const auto range = channel_range(M, first, last);
      const int64_t m0 = range.first, mc = range.second;
      const std::shared_ptr<const Entry> e = primitive(geo, src.desc.shape, m0, mc);
      std::byte* part = thread_buffer(3, pixels * mc);
      if (p_.residual) copy_pixels(part, mc, out + m0, M, pixels, mc);
      dnnl_exec_arg_t args[4] = {
          dnnl_thread_arg(DNNL_ARG_SRC, e->src, first_element(src.data, src.desc)),
          {DNNL_ARG_WEIGHTS, e->weights->mem.get()},
          dnnl_thread_arg(DNNL_ARG_DST, e->dst, part)};
      int count = 3;
      if (!p_.bias.empty())
        args[count++] = dnnl_thread_arg(DNNL_ARG_BIAS, e->bias, p_.bias.data() + m0);
      dnnl_run(e->prim, std::span(args, count), e->scratch, e->scratch_bytes,
               [&] { return p_.op + ": oneDNN execution failed"; });
      copy_pixels(out + m0, M, part, mc, pixels, mc);
    });
  }

  // Blocks of images (or of output rows, for one image) across the pool, each one primitive
  // call on its thread.
  void run_blocks(const ConvGeometry& geo, const ConstOperand& src, const Operand& work) const {
    const std::shared_ptr<const Entry> whole = primitive(geo, src.desc.shape);
    const bool by_image = geo.dst_shape[0] > 1;
    const int64_t items = by_image ? geo.dst_shape[0] : geo.dst_shape[2];
    const int parts = by_image || !p_.gemm ? dnnl_parts(items, macs(geo), kMinMacsPerPart) : 1;
    dnnl_parallel(items, parts, [&](int64_t first, int64_t last) {
      ConstOperand xb = src;
      Operand wb = work;
      ConvGeometry g = geo;
      if (last - first < items) {
        const ConvBlock b = conv_block(geo, src.desc.shape, by_image, first, last);
        xb.desc = narrow(src.desc, b.dim, b.x_first, b.x_count);
        wb.desc = narrow(work.desc, b.dim, b.y_first, b.y_count);
        g = b.geo;
      }
      const std::shared_ptr<const Entry> e =
          last - first < items ? primitive(g, xb.desc.shape) : whole;
      dnnl_exec_arg_t args[4] = {
          dnnl_thread_arg(DNNL_ARG_SRC, e->src, first_element(xb.data, xb.desc)),
          {DNNL_ARG_WEIGHTS, e->weights->mem.get()},
          dnnl_thread_arg(DNNL_ARG_DST, e->dst, first_element(wb.data, wb.desc))};
      int count = 3;
      if (!p_.bias.empty()) args[count++] = dnnl_thread_arg(DNNL_ARG_BIAS, e->bias, p_.bias.data());
      dnnl_run(e->prim, std::span(args, count), e->scratch, e->scratch_bytes,
               [&] { return p_.op + ": oneDNN execution failed"; });
    });
  }

  // The weights of output channels [m_first, ...) in layout `d`, reordered from the int8
  // constant once per layout.
  std::shared_ptr<const Packed> packed_as(const dnnl::memory::desc& d, int64_t m_first) const {
    for (const auto& w : packed_)
      if (w->desc == d && w->m_first == m_first) return w;
    auto w = std::make_shared<Packed>();
    w->m_first = m_first;
    w->desc = d;
    w->storage.resize(d.get_size() + 64);
    const auto addr = reinterpret_cast<uintptr_t>(w->storage.data());
    w->mem = dnnl::memory(d, dnnl_engine(), w->storage.data() + (64 - addr % 64) % 64);
    // Output channel blocks (group 1 only) are rows [m_first, ...) of the plain (M, C, k...),
    // through its strides: QGemm's W stored (K, M) is a transposed view.
    TensorDesc plain = p_.w_plain;
    const dims_t dims = d.dims();
    int64_t offset = 0;
    if (dims[0] != plain.shape[0]) {
      offset = m_first * plain.strides[0];
      plain.shape[0] = dims[0];
    }
    dnnl::memory from(*strided_md(plain), dnnl_engine(),
                      const_cast<std::byte*>(p_.weights->bytes()) + offset);
    dnnl::reorder r(from, w->mem);
    const dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, from.get()}, {DNNL_ARG_TO, w->mem.get()}};
    dnnl_run(r, args, {}, 0, [&] { return p_.op + ": oneDNN reorder of the weights failed"; });
    constexpr size_t kMaxLayouts = 8;
    if (packed_.size() >= kMaxLayouts) packed_.clear();  // entries keep theirs alive
    packed_.push_back(w);
    return w;
  }

  // The primitive for X of this shape and output channels [m_first, m_first + m_count) (all
  // when m_count is 0).
  std::shared_ptr<const Entry> primitive(const ConvGeometry& geo, const Dims& x,
                                         int64_t m_first = 0, int64_t m_count = 0) const {
    dnnl_match_thread_count();  // oneDNN picks its implementation for this thread count
    if (m_count == 0) m_count = geo.dst_shape[1];
    std::vector<int64_t> key(x.begin(), x.end());
    // Blocks of one run (compute's split) differ in their pads or channels, not only in X.
    key.insert(key.end(), geo.pad_begin.begin(), geo.pad_begin.end());
    key.insert(key.end(), geo.pad_end.begin(), geo.pad_end.end());
    key.push_back(m_first);
    key.push_back(m_count);
    return cache_.get(std::move(key), [&] { return make_entry(geo, x, m_first, m_count); });
  }

  // primitive()'s entry, made under the cache's lock (packed_as keeps packed_ under it too).
  std::shared_ptr<const Entry> make_entry(const ConvGeometry& geo, const Dims& x, int64_t m_first,
                                          int64_t m_count) const {
    Dims w = p_.w_shape;
    w[0] = m_count;
    Dims y = geo.dst_shape;
    y[1] = m_count;
    using dt = dnnl::memory::data_type;
    const auto src = channels_last_md(DType::kUInt8, x);
    const auto dst = channels_last_md(p_.y_type, y);
    const dnnl::memory::desc weights(weights_dims(w, p_.attrs.group), dt::s8,
                                     dnnl::memory::format_tag::any);
    const dnnl::memory::desc bias({w[0]}, dt::f32, dnnl::memory::format_tag::a);
    dims_t dil(geo.dilations.size());
    for (size_t i = 0; i < dil.size(); ++i) dil[i] = geo.dilations[i] - 1;  // oneDNN counts gaps
    const dims_t st(geo.strides.begin(), geo.strides.end());
    const dims_t pl(geo.pad_begin.begin(), geo.pad_begin.end());
    const dims_t pr(geo.pad_end.begin(), geo.pad_end.end());
    using C = dnnl::convolution_forward;
    const auto kind = dnnl::prop_kind::forward_inference;
    const auto alg = dnnl::algorithm::convolution_direct;
    auto e = std::make_shared<Entry>();
    try {
      const auto d = p_.bias.empty() ? C::desc(kind, alg, src, weights, dst, st, dil, pl, pr)
                                     : C::desc(kind, alg, src, weights, bias, dst, st, dil, pl, pr);
      C::primitive_desc pd(d, make_attr(p_, m_first, m_count), dnnl_engine());
      // oneDNN 2.6's brgconv int8 kernels (AVX-512 VNNI) fault on layers where an output
      // reads padding only: those take the next implementation.
      const bool padding_only = output_reads_only_padding(geo, x);
      while (padding_only && std::string(pd.impl_info_str()).rfind("brg", 0) == 0 &&
             pd.next_impl()) {
      }
      if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0)
        g_reference_primitives.fetch_add(1, std::memory_order_relaxed);
      e->prim = C(pd);
      e->src = src;
      e->dst = dst;
      e->scratch = pd.scratchpad_desc();
      e->scratch_bytes = e->scratch.get_size();
      e->bias = bias;
      e->weights = packed_as(pd.weights_desc(), m_first);
    } catch (const dnnl::error& err) {
      fail(ErrorCode::kNotSupported, p_.op + ": oneDNN has no int8 convolution for X " +
                                         dims_text(x) + ", W " + dims_text(w) + " and output " +
                                         dims_text(geo.dst_shape) + " (" + err.what() + ")");
    }
    return e;
  }

  QConvParams p_;
  LayoutCopier copier_;
  PrimitiveCache<std::vector<int64_t>, Entry> cache_{kMaxCachedPrimitives};
  mutable std::vector<std::shared_ptr<const Packed>> packed_;
};

}  // namespace

int64_t dnnl_qconv_reference_primitives() { return g_reference_primitives.load(); }
int64_t dnnl_qconv_copies() { return g_layout_copies.load(); }
int64_t dnnl_qconv_channel_splits() { return g_channel_splits.load(); }

Reason supports_dnnl_qconv(const Graph& g, const Node& n) {
  const bool gemm = n.op == "QGemm";
  if (n.inputs.size() < kZ || n.inputs.size() > kInputs)
    return "geon." + n.op + " takes 11 to 16 inputs (" + std::to_string(n.inputs.size()) +
           " given)";
  if (n.outputs.size() != 1) return "geon." + n.op + " has one output";
  for (int i : {kX, kXScale, kXZero, kW, kWScale, kYScale, kYZero})
    if (!has_input(n, i)) return "input " + std::to_string(i) + " is required";
  if (input_dtype(g, n, kX) != DType::kUInt8)
    return "oneDNN's int8 convolution here takes uint8 X (int8 X would run oneDNN's s8·s8 "
           "path, which halves the weights on CPUs without VNNI), not " +
           std::string(dtype_name(input_dtype(g, n, kX)));
  const TensorData* w = constant(g, n, kW);
  if (!w || w->desc.dtype != DType::kInt8) return std::string("W must be a constant int8 tensor");
  const int rank = w->desc.rank();
  if (gemm ? rank != 2 : rank < 3 || rank > 5)
    return "W has rank " + std::to_string(rank) +
           (gemm ? "; QGemm's is 2-D" : "; oneDNN convolves 1-D to 3-D");
  if (auto r = onnx::input_rank(g, n, kX); r && *r != rank)
    return std::string("X and W differ in rank");
  const int64_t M = output_channels(n, *w);
  if (Reason r = scale_reason(g, n, kXScale, 1, "X_scale")) return r;
  if (Reason r = scale_reason(g, n, kWScale, M, "W_scale")) return r;
  if (Reason r = scale_reason(g, n, kYScale, 1, "Y_scale")) return r;
  if (Reason r = zero_reason(g, n, kXZero, "X_zero_point")) return r;
  if (Reason r = zero_reason(g, n, kYZero, "Y_zero_point")) return r;
  if (constant(g, n, kXZero)->desc.dtype != DType::kUInt8)
    return std::string("X_zero_point must be uint8");
  if (constant(g, n, kYZero)->desc.dtype != output_dtype(g, n, 0))
    return std::string("Y_zero_point's dtype must be the output's");
  if (has_input(n, kWZero)) {
    const TensorData* z = constant(g, n, kWZero);
    if (!z) return std::string("W_zero_point must be a constant");
    for (int64_t i = 0; i < z->elements(); ++i)
      if (element_as_double(*z, i) != 0)
        return std::string("oneDNN 2.6 convolves with zero weight zero points only");
  }
  if (has_input(n, kB)) {
    const TensorData* b = constant(g, n, kB);
    if (!b || b->desc.rank() != 1 || b->elements() != M)
      return std::string("B must be a constant vector of the output channel count");
    if (b->desc.dtype == DType::kInt32) {
      if (Reason r = scale_reason(g, n, kBScale, M, "B_scale")) return r;
      const TensorData* bz = has_input(n, kBZero) ? constant(g, n, kBZero) : nullptr;
      if (has_input(n, kBZero) && (!bz || (bz->elements() != 1 && bz->elements() != M)))
        return std::string("B_zero_point must be a constant of one or M elements");
    } else if (b->desc.dtype != DType::kFloat || has_input(n, kBScale) || has_input(n, kBZero)) {
      return std::string("B must be int32 with B_scale, or float alone");
    }
  }
  if (has_input(n, kZ)) {
    for (int i = kZScale; i <= kCZero; ++i)
      if (!has_input(n, i)) return "with Z, input " + std::to_string(i) + " is required";
    if (!eight_bit(input_dtype(g, n, kZ))) return std::string("Z must be 8-bit");
    if (Reason r = scale_reason(g, n, kZScale, 1, "Z_scale")) return r;
    if (Reason r = scale_reason(g, n, kCScale, 1, "C_scale")) return r;
    if (Reason r = zero_reason(g, n, kZZero, "Z_zero_point")) return r;
    if (Reason r = zero_reason(g, n, kCZero, "C_zero_point")) return r;
    if (constant(g, n, kZZero)->desc.dtype != input_dtype(g, n, kZ))
      return std::string("Z_zero_point's dtype must be Z's");
  }
  for (const char* a : {"activation", "sum_activation"}) {
    const std::string v = attr_string(n, a, "");
    if (!v.empty() && v != "Relu")
      return std::string(a) + " '" + v + "' is not fused here (Relu is)";
  }
  if (!has_input(n, kZ) && !attr_string(n, "sum_activation", "").empty())
    return std::string("sum_activation needs Z");
  if (gemm) return std::nullopt;
  ConvAttrs attrs;
  return read_conv_attrs(n, false, &attrs);
}

std::unique_ptr<Kernel> create_dnnl_qconv(const Graph& g, const Node& n) {
  if (Reason r = supports_dnnl_qconv(g, n)) fail(ErrorCode::kNotSupported, n.op + ": " + *r);
  auto k = std::make_unique<QConvKernel>(read_params(g, n));
  // Static X: the primitive and its packed weights now, at compile time.
  const Value& x = g.value(n.inputs[kX]);
  if (x.rank_known)
    if (const auto shape = static_lengths(x.axes)) {
      try {
        k->prepare(*shape);
      } catch (const std::bad_alloc&) {
        throw;
      } catch (const std::exception&) {
        // Reported on the run that meets it, with its shape.
      }
    }
  return k;
}

}  // namespace geon::cpu
