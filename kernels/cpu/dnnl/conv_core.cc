// oneDNN convolution and deconvolution setup: channels-last memory descriptors, ONNX weights
// seen as oneDNN's (G, O/G, I/G, k...) by strides alone, post-ops for FusedConv, a
// primitive cache (primitive_cache.h) and per-thread buffers for the copies of odd layouts.
#include "kernels/cpu/dnnl/conv_core.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <vector>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/dnnl/layout.h"
#include "kernels/cpu/dnnl/nan_guard.h"
#include "kernels/cpu/dnnl/primitive_cache.h"
#include "kernels/cpu/dnnl/runtime.h"
#include "kernels/cpu/native/direct_conv.h"
#include "kernels/cpu/native/winograd_conv.h"
#include "kernels/cpu/native/winograd_transforms.h"

namespace geon::cpu {
namespace {

using dims_t = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;
constexpr auto f32 = dnnl::memory::data_type::f32;
constexpr size_t kMaxCachedPrimitives = 256;
// Convolutions below this many multiply-adds a part are not worth another thread.
constexpr double kMinMacsPerPart = 1 << 17;
// Winograd's scratchpad (7 to 20 MB for ResNet's layers, whatever the part's size) exists once
// per thread; a layer whose scratchpad times the threads running its parts passes this stays
// direct, so peak memory does not grow with the core count.
constexpr size_t kWinogradScratchBudget = size_t{64} << 20;

std::atomic<int64_t> g_layout_copies{0};
std::atomic<int64_t> g_reference_primitives{0};
std::atomic<int64_t> g_weight_repacks{0};
std::atomic<int64_t> g_winograd_primitives{0};
std::atomic<int64_t> g_winograd_refusals{0};
std::atomic<int64_t> g_winograd_declines{0};

TensorDesc channels_last(const Dims& shape) { return cpu::channels_last(DType::kFloat, shape); }
dnnl::memory::desc channels_last_md(const Dims& shape) { return *strided_md(channels_last(shape)); }

float* at(const void* base, const TensorDesc& d) {
  return static_cast<float*>(first_element(base, d));
}

// A 1x1 kernel with unit strides and no pads: every output pixel reads its own input pixel.
bool pointwise(const ConvGeometry& geo) {
  for (int i = 0; i < geo.spatial(); ++i)
    if (geo.kernel[i] != 1 || geo.strides[i] != 1 || geo.pad_begin[i] != 0 || geo.pad_end[i] != 0)
      return false;
  return true;
}

// This thread's buffer `slot` (0 src, 1 dst, 2 dense W, 3 bias, 4 reordered W, 5 blocked src,
// 6 blocked dst), at least n floats, 64-byte aligned; valid until its next use.
float* thread_buffer(int slot, int64_t n) {
  constexpr int64_t kAlignFloats = 16;
  thread_local std::vector<float> buffers[7];
  std::vector<float>& b = buffers[slot];
  if (static_cast<int64_t>(b.size()) < n + kAlignFloats) b.resize(n + kAlignFloats);
  const auto addr = reinterpret_cast<uintptr_t>(b.data());
  return b.data() + ((64 - addr % 64) % 64) / sizeof(float);
}

// W as oneDNN's weights, by strides: (G, O/G, I/G, k...) or (O, I, k...) for one group.
// Conv's W is (M, C/G, k...); ConvTranspose's is (C, M/G, k...).
TensorDesc weights_view(const TensorDesc& w, int64_t g, bool transpose) {
  const Dims& s = w.strides;
  TensorDesc v = w;
  v.shape.clear();
  v.strides.clear();
  const int64_t per_o = transpose ? w.shape[1] : w.shape[0] / g;
  const int64_t per_i = transpose ? w.shape[0] / g : w.shape[1];
  const int64_t so = transpose ? s[1] : s[0], si = transpose ? s[0] : s[1];
  if (g > 1) {
    v.shape.push_back(g);
    v.strides.push_back(transpose ? per_i * s[0] : per_o * s[0]);
  }
  v.shape.push_back(per_o);
  v.strides.push_back(so);
  v.shape.push_back(per_i);
  v.strides.push_back(si);
  for (int i = 2; i < w.rank(); ++i) {
    v.shape.push_back(w.shape[i]);
    v.strides.push_back(s[i]);
  }
  return v;
}

dims_t to_dims(const Dims& d) { return dims_t(d.begin(), d.end()); }

std::string dims_text(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

dnnl::primitive_attr make_attr(const DnnlConvOptions& o) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::post_ops po;
  if (o.residual) po.append_sum(1.0f);
  using alg = dnnl::algorithm;
  const Activation& a = o.activation;
  switch (a.kind) {
    case ActivationKind::kNone:
      break;
    case ActivationKind::kRelu:
      po.append_eltwise(1.0f, alg::eltwise_relu, 0.0f, 0.0f);
      break;
    case ActivationKind::kLeakyRelu:
      po.append_eltwise(1.0f, alg::eltwise_relu, a.alpha, 0.0f);
      break;
    case ActivationKind::kClip:
      po.append_eltwise(1.0f, alg::eltwise_clip, a.alpha, a.beta);
      break;
    case ActivationKind::kSigmoid:
      po.append_eltwise(1.0f, alg::eltwise_logistic, 0.0f, 0.0f);
      break;
    case ActivationKind::kTanh:
      po.append_eltwise(1.0f, alg::eltwise_tanh, 0.0f, 0.0f);
      break;
    case ActivationKind::kHardSigmoid:
      // oneDNN 2.6 has no hardsigmoid: max(0, min(1, alpha x + beta)) as linear then clip.
      po.append_eltwise(1.0f, alg::eltwise_linear, a.alpha, a.beta);
      po.append_eltwise(1.0f, alg::eltwise_clip, 0.0f, 1.0f);
      break;
    case ActivationKind::kHardSwish:
      // 2.6's hardswish is x * min(max(x + 3, 0), 6) / 6, ONNX's formula.
      po.append_eltwise(1.0f, alg::eltwise_hardswish, 0.0f, 0.0f);
      break;
    case ActivationKind::kElu:
      po.append_eltwise(1.0f, alg::eltwise_elu, a.alpha, 0.0f);
      break;
    case ActivationKind::kGelu:
      po.append_eltwise(1.0f, alg::eltwise_gelu_erf, 0.0f, 0.0f);
      break;
  }
  attr.set_post_ops(po);
  return attr;
}

// Constant weights in one oneDNN layout, in 64-byte aligned storage of their own.
struct PackedWeights {
  dnnl::memory::desc desc;
  dnnl::memory mem;
  std::vector<std::byte> storage;
};

std::shared_ptr<PackedWeights> allocate_packed(const dnnl::memory::desc& d) {
  auto p = std::make_shared<PackedWeights>();
  p->desc = d;
  p->storage.resize(d.get_size() + 64);
  const auto addr = reinterpret_cast<uintptr_t>(p->storage.data());
  p->mem = dnnl::memory(d, dnnl_engine(), p->storage.data() + (64 - addr % 64) % 64);
  return p;
}

// A primitive for one geometry, with the descriptors it was made for.
struct Entry {
  dnnl::primitive prim;
  dnnl::memory::desc src, dst, bias, weights, scratch;
  size_t scratch_bytes = 0;
  // A Winograd primitive's blocked src and dst, with the reorders from and to channels-last
  // (src and dst above stay the channels-last ones); to_dst brings the residual in.
  struct Blocked {
    dnnl::memory::desc src, dst;
    dnnl::reorder to_src, from_dst;
    std::optional<dnnl::reorder> to_dst;
  };
  std::optional<Blocked> blocked;
  // The constant weights in `weights`' layout: the copy packed at construction, or one
  // reordered from it once when this primitive wants another layout (shared per layout).
  std::shared_ptr<const PackedWeights> packed;
  // W given per run: its view as oneDNN weights and the reorder into `weights`.
  std::optional<dnnl::reorder> w_reorder;
};

// A primitive made for a geometry, with the layouts it chose.
struct Made {
  dnnl::primitive prim;
  dnnl::memory::desc src, dst, weights, scratch;
  std::string impl;  // oneDNN's implementation name, e.g. "brgconv_1x1:avx512_core"
  bool winograd = false;
};

template <typename P>
Made made(const typename P::primitive_desc& pd) {
  Made m{P(pd),
         pd.src_desc(),
         pd.dst_desc(),
         pd.weights_desc(),
         pd.scratchpad_desc(),
         pd.impl_info_str()};
  if (m.impl.rfind("ref", 0) == 0) g_reference_primitives.fetch_add(1, std::memory_order_relaxed);
  return m;
}

bool winograd_disabled() {
  static const bool off = [] {
    const char* v = std::getenv("GEON_WINOGRAD");
    return v && std::string_view(v) == "0";
  }();
  return off;
}

// Layers for oneDNN's Winograd convolution (F(2x2,3x3) or F(4x4,3x3), AVX-512 only): 3x3,
// unit strides and dilations, one group, channels in multiples of 16 from 64 to 128. There it takes
// about half the time of the direct kernels even with the src/dst copies into its blocked layout
// (ResNet-50's 3x3 layers, one thread: 1.9 -> 1.0 ms at 64x56x56, 1.9 -> 0.6 at 128x28x28); its
// outputs differ from direct ones by ~2e-6 of their magnitude, well inside ONNX's rtol of 1e-3. Its
// weights are up to 4x the direct ones, so wider layers stay direct: at 256 channels one image's
// layer gained only x1.15 (its 9.4 MB of weights streamed from memory) and ResNet-50's peak memory
// grew past ONNX Runtime's; 512 gains x1.2 alone. Nor where its scratchpads would pass
// kWinogradScratchBudget. GEON_WINOGRAD=0 turns it off.
bool winograd_candidate(const DnnlConvOptions& o, const ConvGeometry& geo, const dims_t& w) {
  if (o.attrs.transpose || o.attrs.group != 1 || geo.spatial() != 2 || w.size() != 4 ||
      winograd_disabled())
    return false;
  for (int i = 0; i < 2; ++i)
    if (geo.kernel[i] != 3 || geo.strides[i] != 1 || geo.dilations[i] != 1) return false;
  for (const int64_t c : {w[0], w[1]})
    if (c % 16 != 0 || c < 64 || c > 128) return false;
  return true;
}

// The primitive for a geometry with the weights layout left to oneDNN (`any`), or nullopt when
// oneDNN has none. Never a forced layout: the fast implementations accept only the layouts they
// pick for the current thread count, and one forced on them (the layout packed at construction
// under another thread count) can leave only the reference implementation, ~1000x slower.
// `winograd`: try the Winograd algorithm first where winograd_candidate() allows it.
std::optional<Made> make_primitive(const DnnlConvOptions& o, const ConvGeometry& geo, const Dims& x,
                                   const dims_t& weights_dims, bool bias, bool winograd) {
  const dnnl::memory::desc weights(weights_dims, f32, tag::any);
  const auto src = channels_last_md(x), dst = channels_last_md(geo.dst_shape);
  const dnnl::memory::desc bias_md({geo.dst_shape[1]}, f32, tag::a);
  dims_t dil(geo.dilations.size());
  for (size_t i = 0; i < dil.size(); ++i) dil[i] = geo.dilations[i] - 1;  // oneDNN counts gaps
  const dims_t st = to_dims(geo.strides), pl = to_dims(geo.pad_begin), pr = to_dims(geo.pad_end);
  const auto kind = dnnl::prop_kind::forward_inference;
  const dnnl::primitive_attr attr = make_attr(o);
  try {
    if (o.attrs.transpose) {
      using D = dnnl::deconvolution_forward;
      const auto alg = dnnl::algorithm::deconvolution_direct;
      const auto d = bias ? D::desc(kind, alg, src, weights, bias_md, dst, st, dil, pl, pr)
                          : D::desc(kind, alg, src, weights, dst, st, dil, pl, pr);
      return made<D>(D::primitive_desc(d, attr, dnnl_engine()));
    }
    using C = dnnl::convolution_forward;
    if (winograd && winograd_candidate(o, geo, weights_dims)) {
      const auto alg = dnnl::algorithm::convolution_winograd;
      const dnnl::memory::desc bsrc(src.dims(), f32, tag::any), bdst(dst.dims(), f32, tag::any);
      try {
        const auto d = bias ? C::desc(kind, alg, bsrc, weights, bias_md, bdst, st, dil, pl, pr)
                            : C::desc(kind, alg, bsrc, weights, bdst, st, dil, pl, pr);
        const C::primitive_desc pd(d, attr, dnnl_engine());
        const auto threads = static_cast<size_t>(dnnl_parts_in_flight());
        if (pd.scratchpad_desc().get_size() * threads <= kWinogradScratchBudget) {
          Made m = made<C>(pd);
          m.winograd = true;
          g_winograd_primitives.fetch_add(1, std::memory_order_relaxed);
          return m;
        }
        g_winograd_refusals.fetch_add(1, std::memory_order_relaxed);
      } catch (const dnnl::error&) {
        // No Winograd implementation here (no AVX-512, or these post-ops): the direct one.
      }
    }
    const auto alg = dnnl::algorithm::convolution_direct;
    const auto d = bias ? C::desc(kind, alg, src, weights, bias_md, dst, st, dil, pl, pr)
                        : C::desc(kind, alg, src, weights, dst, st, dil, pl, pr);
    return made<C>(C::primitive_desc(d, attr, dnnl_engine()));
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

dims_t weights_dims(const Dims& w, int64_t g, bool transpose) {
  TensorDesc d = row_major(DType::kFloat, w);
  return to_dims(weights_view(d, g, transpose).shape);
}

void run_reorder(const dnnl::reorder& r, dnnl::memory& from, dnnl::memory& to) {
  const dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, from.get()}, {DNNL_ARG_TO, to.get()}};
  dnnl_run(r, args, {}, 0, "oneDNN reorder of convolution weights failed");
}

// A dense row-major copy of a view oneDNN cannot read (negative or zero strides).
ConstOperand readable(const ConstOperand& v, int slot) {
  if (strided_md(v.desc)) return v;
  const TensorDesc d = row_major(DType::kFloat, v.desc.shape);
  float* buf = thread_buffer(slot, element_count(d));
  assign(Operand{d, buf}, v);
  return ConstOperand(d, buf);
}

}  // namespace

int64_t dnnl_conv_layout_copies() { return g_layout_copies.load(); }
int64_t dnnl_conv_reference_primitives() { return g_reference_primitives.load(); }
int64_t dnnl_conv_weight_repacks() { return g_weight_repacks.load(); }
int64_t dnnl_conv_winograd_primitives() { return g_winograd_primitives.load(); }
int64_t dnnl_conv_winograd_refusals() { return g_winograd_refusals.load(); }
int64_t dnnl_conv_winograd_declines() { return g_winograd_declines.load(); }

struct DnnlConv::Impl {
  DnnlConvOptions o;
  // The constant weights, packed (null when W comes per run).
  Dims packed_w_shape;
  std::shared_ptr<const PackedWeights> packed;
  // geon's own convolution for the constant weights where it is faster (then not packed for
  // oneDNN too: a run it cannot take reorders W from the input instead).
  std::unique_ptr<const DirectConv> direct;
  // Its Winograd convolution, tried first where the layer has one and a run enough tiles.
  std::unique_ptr<const WinogradConv> winograd;

  // Whether the activation is one oneDNN turns NaN into a number in (nan_guard.h), and the
  // largest magnitude of the constant weights (those of packed_w_shape; +inf for a NaN).
  bool drops_nan = false;
  float packed_w_max = 0.0f;

  PrimitiveCache<std::vector<int64_t>, Entry> cache{kMaxCachedPrimitives};
  // The packed weights reordered into the other layouts primitives asked for (another thread
  // count or X shape than at construction), one copy per layout.
  mutable std::vector<std::shared_ptr<const PackedWeights>> repacked;
  // Layout copies (src in, dst out, Z in).
  LayoutCopier copier{"convolution"};
  void copy(const Operand& to, const ConstOperand& from) const { copier.copy(to, from); }

  bool use_packed(const Dims& w) const { return packed && w == packed_w_shape; }

  // The packed weights in layout `d`: the construction's copy, or a reorder of it made once
  // per layout. Called from the cache's make, under its lock.
  std::shared_ptr<const PackedWeights> packed_as(const dnnl::memory::desc& d) const {
    if (packed->desc == d) return packed;
    for (const auto& r : repacked)
      if (r->desc == d) return r;
    auto r = allocate_packed(d);
    // Through a plain copy: oneDNN 2.6 reorders one blocked layout into another with its slow
    // generic code (24 ms for a 1x1 layer of ResNet-50), plain to blocked and back with jit.
    const dims_t dims = packed->desc.dims();
    dims_t strides(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
    std::vector<float> plain(static_cast<size_t>(strides[0] * dims[0]));
    dnnl::memory mid({dims, dnnl::memory::data_type::f32, strides}, dnnl_engine(), plain.data());
    dnnl::memory from = packed->mem;
    run_reorder(dnnl::reorder(from, mid), from, mid);
    run_reorder(dnnl::reorder(mid, r->mem), mid, r->mem);
    g_weight_repacks.fetch_add(1, std::memory_order_relaxed);
    constexpr size_t kMaxLayouts = 16;
    if (repacked.size() >= kMaxLayouts) repacked.clear();  // entries keep theirs alive
    repacked.push_back(r);
    return r;
  }

  // `winograd`: false for the direct primitive where Winograd would be chosen; `activation`:
  // false for one without the activation's post-op.
  std::shared_ptr<const Entry> primitive(const ConvGeometry& geo, const Dims& x,
                                         const TensorDesc& w, bool bias, bool winograd = true,
                                         bool activation = true) const {
    const bool pk = use_packed(w.shape);
    std::vector<int64_t> key(x.begin(), x.end());
    key.insert(key.end(), w.shape.begin(), w.shape.end());
    key.push_back(bias ? 1 : 0);
    key.push_back(pk ? 1 : 0);
    key.push_back(winograd ? 1 : 0);
    key.push_back(activation ? 1 : 0);
    // Blocks of one run (run_geometry's split) differ in their pads, not only in X.
    key.insert(key.end(), geo.pad_begin.begin(), geo.pad_begin.end());
    key.insert(key.end(), geo.pad_end.begin(), geo.pad_end.end());
    TensorDesc wv;
    std::optional<dnnl::memory::desc> w_user;
    if (!pk) {
      wv = weights_view(w, o.attrs.group, o.attrs.transpose);
      w_user = strided_md(wv);
      require(w_user.has_value(),
              [&] { return o.op + ": W's view has strides oneDNN cannot read"; });
      key.insert(key.end(), wv.strides.begin(), wv.strides.end());
    }
    return cache.get(std::move(key), [&] {
      return make_entry(geo, x, w, bias, pk, pk && winograd, activation, w_user);
    });
  }

  std::shared_ptr<const Entry> make_entry(const ConvGeometry& geo, const Dims& x,
                                          const TensorDesc& w, bool bias, bool pk, bool winograd,
                                          bool activation,
                                          const std::optional<dnnl::memory::desc>& w_user) const {
    auto e = std::make_shared<Entry>();
    e->src = channels_last_md(x);
    e->dst = channels_last_md(geo.dst_shape);
    e->bias = dnnl::memory::desc({geo.dst_shape[1]}, f32, tag::a);
    const dims_t wd = weights_dims(w.shape, o.attrs.group, o.attrs.transpose);
    // Winograd only for packed weights (the caller's `winograd`): those reach its layout
    // through a plain copy (packed_as), while W given per run may be a view oneDNN reorders
    // into it from no layout.
    DnnlConvOptions plain = o;
    if (!activation) plain.activation = {};
    const std::optional<Made> pd = make_primitive(plain, geo, x, wd, bias, winograd);
    if (!pd)
      fail(ErrorCode::kNotSupported,
           o.op + ": oneDNN has no " + (o.attrs.transpose ? "deconvolution" : "convolution") +
               " for X " + dims_text(x) + ", W " + dims_text(w.shape) + ", strides " +
               dims_text(geo.strides) + ", dilations " + dims_text(geo.dilations) + ", pads " +
               dims_text(geo.pad_begin) + " / " + dims_text(geo.pad_end) + " and output " +
               dims_text(geo.dst_shape));
    e->prim = pd->prim;
    e->weights = pd->weights;
    e->scratch = pd->scratch;
    e->scratch_bytes = e->scratch.get_size();
    dnnl::engine& engine = dnnl_engine();
    if (pd->winograd) {
      const auto reorder = [&](const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
        return dnnl::reorder(dnnl::reorder::primitive_desc(engine, from, engine, to));
      };
      e->blocked = Entry::Blocked{pd->src, pd->dst, reorder(e->src, pd->src),
                                  reorder(pd->dst, e->dst), std::nullopt};
      if (o.residual) e->blocked->to_dst = reorder(e->dst, pd->dst);
    }
    if (pk)
      e->packed = packed_as(e->weights);
    else
      e->w_reorder.emplace(dnnl::reorder::primitive_desc(engine, *w_user, engine, e->weights));
    return e;
  }

  // dst = act(conv + bias + z) for a geometry whose pads oneDNN takes, split across the pool:
  // by images when there are several, else (Conv only) by rows of the first spatial dim, each
  // block with the input rows it reads and the pads it still needs.
  void run_geometry(const ConvGeometry& geo, const ConstOperand& x, const ConstOperand& w,
                    const ConstOperand* bias, const ConstOperand* z, const Operand& dst) const {
    const Dims& ds = geo.dst_shape;
    double macs = static_cast<double>(element_count(ds)) *
                  static_cast<double>(element_count(w.desc.shape)) / std::max<int64_t>(ds[1], 1);
    if (o.attrs.transpose) macs = 0;  // one block: its pads do not split this way
    const bool by_image = ds[0] > 1;
    if (!by_image && ds.size() == 4 && pointwise(geo) && run_pixels(geo, macs, x, w, bias, z, dst))
      return;
    const int64_t items = by_image ? ds[0] : ds[2];
    const int parts = dnnl_parts(items, macs, kMinMacsPerPart);
    dnnl_parallel(items, parts, [&](int64_t first, int64_t last) {
      if (first == 0 && last == items) return run_block(geo, x, w, bias, z, dst);
      run_part(conv_block(geo, x.desc.shape, by_image, first, last), x, w, bias, z, dst);
    });
  }

  // One image of a pointwise convolution split by pixels rather than rows (7 rows halve into 4
  // and 3, 49 pixels into 25 and 24): the image seen as one row of H*W pixels, which oneDNN's
  // 1x1 kernels take (not one column: that leaves only its reference code). False when a
  // view's strides do not allow that row, or when one part does it all.
  bool run_pixels(const ConvGeometry& geo, double macs, const ConstOperand& x,
                  const ConstOperand& w, const ConstOperand* bias, const ConstOperand* z,
                  const Operand& dst) const {
    const auto row = [](const TensorDesc& d) {
      const int64_t s[] = {d.shape[0], d.shape[1], 1, d.shape[2] * d.shape[3]};
      return reshape(d, s).view;
    };
    const auto xr = row(x.desc), dr = row(dst.desc);
    const auto zr = z ? row(z->desc) : std::nullopt;
    if (!xr || !dr || (z && !zr)) return false;
    const int64_t items = dr->shape[3];
    const int parts = dnnl_parts(items, macs, kMinMacsPerPart);
    if (parts < 2) return false;  // one part: the image's own primitive, made at creation
    const ConstOperand xp(*xr, x.data);
    const Operand dp{*dr, dst.data};
    std::optional<ConstOperand> zp;
    if (z) zp = ConstOperand(*zr, z->data);
    ConvGeometry row_geo = geo;  // the image as one row; each part narrows its width
    row_geo.dst_shape = dr->shape;
    dnnl_parallel(items, parts, [&](int64_t first, int64_t last) {
      ConvBlock b{3, first, last - first, first, last - first, row_geo};
      b.geo.dst_shape[3] = last - first;
      run_part(b, xp, w, bias, zp ? &*zp : nullptr, dp);
    });
    return true;
  }

  // One part of a split run: X, Y and Z narrowed to the block along its dim.
  void run_part(const ConvBlock& b, const ConstOperand& x, const ConstOperand& w,
                const ConstOperand* bias, const ConstOperand* z, const Operand& dst) const {
    const ConstOperand xb(narrow(x.desc, b.dim, b.x_first, b.x_count), x.data);
    const Operand db{narrow(dst.desc, b.dim, b.y_first, b.y_count), dst.data};
    std::optional<ConstOperand> zb;
    if (z) zb = ConstOperand(narrow(z->desc, b.dim, b.y_first, b.y_count), z->data);
    run_block(b.geo, xb, w, bias, zb ? &*zb : nullptr, db);
  }

  // run_geometry's work for one block, on this thread.
  void run_block(const ConvGeometry& geo, const ConstOperand& x_in, const ConstOperand& w_in,
                 const ConstOperand* bias_in, const ConstOperand* z, const Operand& dst) const {
    const ConstOperand w = use_packed(w_in.desc.shape) ? w_in : readable(w_in, 2);
    dnnl_match_thread_count();  // before the primitive is chosen, which depends on it
    auto e = primitive(geo, x_in.desc.shape, w.desc, bias_in != nullptr);
    dnnl::engine& engine = dnnl_engine();

    // src: read in place when dense channels-last, else copied into that layout.
    ConstOperand x = x_in;
    if (!is_channels_last(x.desc)) {
      const TensorDesc d = channels_last(x.desc.shape);
      float* buf = thread_buffer(0, element_count(d));
      copy(Operand{d, buf}, x);
      x = ConstOperand(d, buf);
      g_layout_copies.fetch_add(1, std::memory_order_relaxed);
    }
    // oneDNN's Winograd transforms mix a tile's inputs, so one NaN or infinity, or a value
    // they overflow, would turn outputs whose windows never read it into NaN (three layers
    // from one NaN pixel: NaN a whole tile and more away): a block whose sums could leave
    // float's range runs the direct primitive. And an activation oneDNN drops NaN in is
    // applied after a primitive without it where a NaN could reach it: an input holds one, or
    // the sums could overflow into +inf - inf (nan_guard.h).
    bool x_safe = true, guarded = false;
    if (e->blocked || drops_nan) {
      const float x_max = max_abs(&x);
      const float w_max = w.desc.shape == packed_w_shape ? packed_w_max : max_abs(&w);
      // Multiply-adds per output at most (a transposed layer's, over every group's channels).
      const double terms = static_cast<double>(element_count(w.desc)) /
                           static_cast<double>(w.desc.shape[o.attrs.transpose ? 1 : 0]);
      x_safe = native::sums_stay_finite(terms, x_max, w_max);
      // The addends only raise the bound, so this fails wherever x_safe does.
      guarded = drops_nan &&
                !native::sums_stay_finite(terms, x_max, w_max, max_abs(z) + max_abs(bias_in));
    }
    const bool decline = e->blocked && !x_safe;
    if (decline || guarded) {
      e = primitive(geo, x_in.desc.shape, w.desc, bias_in != nullptr, false, !guarded);
      if (decline) g_winograd_declines.fetch_add(1, std::memory_order_relaxed);
    }
    // weights: the packed copy, or this run's W reordered into the primitive's layout.
    dnnl::memory wm;
    if (e->packed) {
      wm = e->packed->mem;
    } else {
      dnnl::memory from(*strided_md(weights_view(w.desc, o.attrs.group, o.attrs.transpose)), engine,
                        at(w.data, w.desc));
      wm = dnnl::memory(e->weights, engine,
                        thread_buffer(4, static_cast<int64_t>(e->weights.get_size() / 4) + 1));
      run_reorder(*e->w_reorder, from, wm);
    }
    std::optional<ConstOperand> bias;
    if (bias_in) {
      bias = *bias_in;
      if (bias->desc.shape[0] > 1 && bias->desc.strides[0] != 1) {
        const TensorDesc d = row_major(DType::kFloat, bias->desc.shape);
        float* buf = thread_buffer(3, element_count(d));
        assign(Operand{d, buf}, *bias_in);
        bias = ConstOperand(d, buf);
      }
    }
    // dst: written in place when dense channels-last and clear of every input.
    const bool direct = is_channels_last(dst.desc) &&
                        !shares_memory(dst.data, dst.desc, x.data, x.desc) &&
                        !shares_memory(dst.data, dst.desc, w.data, w.desc) &&
                        !(bias && shares_memory(dst.data, dst.desc, bias->data, bias->desc));
    Operand work = dst;
    if (!direct) {
      work.desc = channels_last(dst.desc.shape);
      work.data = thread_buffer(1, element_count(work.desc));
    }
    if (z) {  // the sum post-op adds what dst holds
      const bool same = z->data == work.data && z->desc == work.desc;
      if (!same) {
        if (shares_memory(work.data, work.desc, z->data, z->desc)) {
          // z overlaps dst some other way (not the executor's in-place): through a copy.
          std::vector<float> copy(element_count(z->desc));
          const TensorDesc d = row_major(DType::kFloat, z->desc.shape);
          assign(Operand{d, copy.data()}, *z);
          assign(work, ConstOperand(d, copy.data()));
        } else {
          copy(work, *z);
        }
      }
    }

    const auto fail_message = [&] { return o.op + ": oneDNN execution failed"; };
    // The Winograd layout's reorders: `from` in layout fm into `to` in layout tm.
    const auto reorder = [&](const dnnl::reorder& r, const dnnl::memory::desc& fm, const void* from,
                             const dnnl::memory::desc& tm, void* to) {
      const dnnl_exec_arg_t a[] = {dnnl_thread_arg(DNNL_ARG_FROM, fm, from),
                                   dnnl_thread_arg(DNNL_ARG_TO, tm, to)};
      dnnl_run(r, a, {}, 0, fail_message);
    };
    float* src = at(x.data, x.desc);
    float* out = at(work.data, work.desc);
    dnnl::memory::desc src_md = e->src, dst_md = e->dst;
    if (e->blocked) {  // Winograd: through its blocked layout
      src_md = e->blocked->src;
      dst_md = e->blocked->dst;
      float* b = thread_buffer(5, static_cast<int64_t>(src_md.get_size() / sizeof(float)));
      reorder(e->blocked->to_src, e->src, src, src_md, b);
      src = b;
      out = thread_buffer(6, static_cast<int64_t>(dst_md.get_size() / sizeof(float)));
      // The sum post-op adds what the blocked dst holds: Z, which work holds now.
      if (z) reorder(*e->blocked->to_dst, e->dst, at(work.data, work.desc), dst_md, out);
    }
    dnnl_exec_arg_t args[4] = {dnnl_thread_arg(DNNL_ARG_SRC, src_md, src),
                               {DNNL_ARG_WEIGHTS, wm.get()},
                               dnnl_thread_arg(DNNL_ARG_DST, dst_md, out)};
    int n = 3;
    if (bias) args[n++] = dnnl_thread_arg(DNNL_ARG_BIAS, e->bias, at(bias->base(), bias->desc));
    dnnl_run(e->prim, std::span(args, n), e->scratch, e->scratch_bytes, fail_message);
    if (e->blocked) {
      reorder(e->blocked->from_dst, dst_md, out, e->dst, at(work.data, work.desc));
    }
    if (guarded) apply_activation(o.activation, work);
    if (!direct) {
      copy(dst, ConstOperand(work));
      g_layout_copies.fetch_add(1, std::memory_order_relaxed);
    }
  }
};

DnnlConv::DnnlConv(DnnlConvOptions o, const TensorData* weights, const Dims& x_hint)
    : impl_(std::make_unique<Impl>()) {
  impl_->o = std::move(o);
  Impl& p = *impl_;
  p.drops_nan = onednn_drops_nan(p.o.activation);
  if (!weights || weights->desc.dtype != DType::kFloat || !weights->bytes() ||
      weights->desc.rank() != static_cast<int>(x_hint.size()) || x_hint.size() < 3 ||
      x_hint.size() > 5 || element_count(weights->desc) == 0)
    return;
  // A representative X: unknown batch 1, unknown spatial lengths 32 (the blocked weights
  // layout depends on channels and kernel, hardly on these).
  Dims x = x_hint;
  const Dims& w = weights->desc.shape;
  x[0] = x[0] < 0 ? 1 : x[0];
  x[1] = p.o.attrs.transpose ? w[0] : w[1] * p.o.attrs.group;
  for (size_t i = 2; i < x.size(); ++i) x[i] = x[i] < 1 ? 32 : x[i];
  p.packed_w_shape = w;
  p.packed_w_max = max_abs(weights->desc, weights->bytes());
  if (!winograd_disabled()) p.winograd = WinogradConv::make(p.o.attrs, p.o.activation, *weights);
  // Where every run of X's known spatial lengths has tiles enough for the Winograd kernel, the
  // direct one's packed weights would only serve the rare run it declines (a non-finite input,
  // other views), which reorders W from the input instead: not made, to spare session creation
  // and memory.
  const bool spatial_known =
      std::all_of(x_hint.begin() + 2, x_hint.end(), [](int64_t d) { return d >= 1; });
  bool winograd_always = false;
  if (p.winograd && spatial_known) {
    try {
      winograd_always = p.winograd->takes_every_run(conv_geometry(p.o.attrs, x, w, p.o.op));
    } catch (const std::bad_alloc&) {
      throw;  // out of memory fails the session, as below
    } catch (const std::exception&) {
      // Not a valid geometry for this X: leave it to the runs, which report it.
    }
  }
  if (!winograd_always) p.direct = DirectConv::make(p.o.attrs, p.o.activation, *weights);
  if (p.direct || p.winograd) return;
  try {
    const ConvGeometry geo = conv_geometry(p.o.attrs, x, w, p.o.op);
    if (element_count(geo.dst_shape) == 0) return;
    for (int64_t b : geo.pad_begin)
      if (b < 0) return;
    const dims_t wd = weights_dims(w, p.o.attrs.group, p.o.attrs.transpose);
    dnnl_match_thread_count();  // pack for the layout this thread's count will likely want
    // Packed for the direct primitive: oneDNN reorders into a Winograd weights layout but not
    // out of one, so a Winograd primitive gets its copy from this one (packed_as).
    const auto pd = make_primitive(p.o, geo, x, wd, false, false);
    if (!pd) return;
    auto packed = allocate_packed(pd->weights);
    const TensorDesc wv = weights_view(weights->desc, p.o.attrs.group, p.o.attrs.transpose);
    dnnl::memory from(*strided_md(wv), dnnl_engine(), at(weights->bytes(), weights->desc));
    run_reorder(dnnl::reorder(from, packed->mem), from, packed->mem);
    p.packed = std::move(packed);
  } catch (const std::bad_alloc&) {
    throw;  // out of memory fails the session, with its node named, rather than going unseen
  } catch (const std::exception&) {
    // No packing: W is reordered per run from the input instead.
    p.packed.reset();
  }
}

DnnlConv::~DnnlConv() = default;

bool DnnlConv::prepacked() const { return impl_->packed || impl_->direct || impl_->winograd; }

ConvGeometry DnnlConv::geometry(const Dims& x, const Dims& w) const {
  return conv_geometry(impl_->o.attrs, x, w, impl_->o.op);
}

void DnnlConv::run(const ConstOperand& x, const ConstOperand& w, const ConstOperand* bias,
                   const ConstOperand* z, const Operand& dst) const {
  const Impl& p = *impl_;
  const std::string& op = p.o.op;
  for (const ConstOperand* t : {&x, &w, bias, z})
    require(!t || t->desc.dtype == DType::kFloat,
            [&] { return op + ": oneDNN convolution takes float only"; });
  ConvGeometry geo = geometry(x.desc.shape, w.desc.shape);
  require(dst.desc.shape == geo.dst_shape, [&] {
    return op + ": output " + to_string(dst.desc) + " is not the convolution's shape";
  });
  require(!bias || (bias->desc.rank() == 1 && bias->desc.shape[0] == geo.dst_shape[1]),
          [&] { return op + ": B must be a vector of the output channel count"; });
  require(!z || z->desc.shape == geo.dst_shape,
          [&] { return op + ": Z must have the output's shape"; });
  if (element_count(dst.desc) == 0) return;
  if (element_count(x.desc) == 0 || element_count(w.desc) == 0)
    fail(ErrorCode::kNotSupported, op + ": empty channels or spatial dims with a non-empty output");
  if (w.desc.shape == p.packed_w_shape && ((p.winograd && p.winograd->run(geo, x, bias, z, dst)) ||
                                           (p.direct && p.direct->run(geo, x, bias, z, dst))))
    return;

  // ConvTranspose whose output reaches past the footprint of the input (output_shape,
  // output_padding): oneDNN takes no negative begin pad and no end pad of -stride or less, so
  // dst is bias (or 0) first and the footprint is computed into the part it covers.
  bool filled = false;
  Operand sub = dst;
  for (int i = 0; i < geo.spatial(); ++i) {
    const int64_t skip = std::max<int64_t>(0, -geo.pad_begin[i]);
    const int64_t end = std::max<int64_t>(geo.pad_end[i], 1 - geo.strides[i]);
    if (skip == 0 && end == geo.pad_end[i]) continue;
    require(!z && p.o.activation.kind == ActivationKind::kNone,
            [&] { return op + ": negative pads with a residual or an activation"; });
    if (!filled) {
      std::vector<int64_t> around{0};  // B as (1, M, 1...), broadcast over dst
      for (int k = 2; k < dst.desc.rank(); ++k) around.push_back(k);
      if (bias)
        assign(dst, ConstOperand(unsqueeze(bias->desc, around), bias->data));
      else
        assign(dst, ConstOperand::scalar(0, DType::kFloat));
      filled = true;
    }
    const int64_t len = geo.dst_shape[i + 2] - skip - (end - geo.pad_end[i]);
    if (len <= 0) return;
    sub.desc = narrow(sub.desc, i + 2, skip, len);
    geo.dst_shape[i + 2] = len;
    geo.pad_begin[i] += skip;
    geo.pad_end[i] = end;
  }
  p.run_geometry(geo, x, w, bias, z, sub);
}

}  // namespace geon::cpu
