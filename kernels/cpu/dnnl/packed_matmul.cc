// The prepacked product as a 1×1 convolution: A (rows, K) is the source with K channels at
// `rows` positions (nwc, which is A's row-major layout), the packed weights are (N, K, 1), and
// the destination (rows, N) is nwc too. A primitive per (rows, bias, beta), made with the packed
// weights descriptor fixed where oneDNN allows, so the one packed copy serves every row count;
// a primitive that wants another layout reads a copy in it, made once.
// Large B with many rows on AVX-512 instead: split by columns (by_columns below).
#include "kernels/cpu/dnnl/packed_matmul.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "kernels/cpu/dnnl/packed_gemv.h"
#include "kernels/cpu/dnnl/primitive_cache.h"
#include "kernels/cpu/dnnl/runtime.h"
#include "kernels/cpu/native/packed_gemm.h"

namespace geon::cpu {
namespace {

using dims_t = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;
constexpr auto f32 = dnnl::memory::data_type::f32;

// The row count the packed layout is chosen for (on AVX2 the 1×1 kernels' layout does not
// depend on it; on AVX-512 some row counts want another, see Impl::relaid).
constexpr int64_t kRepresentativeRows = 64;
constexpr size_t kMaxCachedPrimitives = 256;
// Products below this many multiply-adds a part are not worth another thread.
constexpr int64_t kMinMacsPerPart = int64_t{1} << 16;
// A B of at least this many floats (2 MB, past a core's L2), with K >= N, read by A's of at
// least kColumnMinRows rows, is split by columns: a split by rows has every thread stream all of
// B from L3 or memory for its few rows, a split by columns half of B each (on 2 threads) for all
// rows, twice the work per byte of B read. oneDNN's 1x1 convolution writes dense outputs only, so
// the parts are matmul primitives (its sgemm: jit code reading B in place, writing its columns of
// a wider dst). Measured in BERT-base (128 rows, distinct weights, 2 threads, AVX-512): 768x768
// 718 -> 691 us, with the residual 752 -> 704, 3072x768 2971 -> 2748; but 768x3072 (K < N)
// 3018 -> 3306 (the sgemm is slower on that shape, 8% without its Gelu too), and on AVX2 the
// sgemm is 15% slower than the convolution on all of them: neither is split so.
constexpr int64_t kColumnMinWeights = int64_t{1} << 19;
constexpr int64_t kColumnMinRows = 32;

dnnl::memory::desc src_md(int64_t rows, int64_t k) { return {dims_t{1, k, rows}, f32, tag::nwc}; }
dnnl::memory::desc dst_md(int64_t rows, int64_t n) { return {dims_t{1, n, rows}, f32, tag::nwc}; }

// A cached primitive and the packed weights it reads; empty when oneDNN has no fast one.
struct Entry {
  std::optional<dnnl::convolution_forward> prim;
  dnnl::memory weights;
  dnnl::memory::desc scratch;
  size_t scratch_bytes = 0;
};

std::atomic<int64_t> g_relayouts{0};

// The 1×1 convolution pd, or nullopt when oneDNN has none or only its reference code (which
// accepts any layout and would be far slower than the general matmul path).
std::optional<dnnl::convolution_forward::primitive_desc> conv_pd(
    int64_t rows, int64_t k, int64_t n, const dnnl::memory::desc& weights, bool bias, float beta,
    std::span<const MatmulPostOps::Eltwise> eltwise = {}) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (beta != 0.0f || !eltwise.empty()) {
    dnnl::post_ops po;
    if (beta != 0.0f) po.append_sum(beta);
    for (const MatmulPostOps::Eltwise& e : eltwise)
      po.append_eltwise(1.0f, static_cast<dnnl::algorithm>(e.alg), e.alpha, e.beta);
    attr.set_post_ops(po);
  }
  try {
    const auto kind = dnnl::prop_kind::forward_inference;
    const auto algo = dnnl::algorithm::convolution_direct;
    const dims_t stride{1}, pad{0};
    const auto desc = bias ? dnnl::convolution_forward::desc(kind, algo, src_md(rows, k), weights,
                                                             dnnl::memory::desc({n}, f32, tag::a),
                                                             dst_md(rows, n), stride, pad, pad)
                           : dnnl::convolution_forward::desc(kind, algo, src_md(rows, k), weights,
                                                             dst_md(rows, n), stride, pad, pad);
    dnnl::convolution_forward::primitive_desc pd(desc, attr, dnnl_engine());
    if (std::string(pd.impl_info_str()).find("ref") != std::string::npos) return std::nullopt;
    return pd;
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

// B as stored, seen as the (N, K, 1) weights: the strides carry the transposition.
dnnl::memory::desc stored_md(int64_t k, int64_t n, bool transposed) {
  return {dims_t{n, k, 1}, f32, transposed ? dims_t{k, 1, 1} : dims_t{1, n, 1}};
}

bool avx512_core() {
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  const auto want = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
  return (isa & want) == want;
}

bool column_split_pays(int64_t k, int64_t n, int64_t min_rows) {
  return min_rows >= kColumnMinRows && k * n >= kColumnMinWeights && n >= 2 && k >= n &&
         avx512_core();
}

}  // namespace

struct DnnlPackedMatmul::Impl {
  Dims shape;  // B as stored
  int64_t k = 0, n = 0;
  bool transposed = false;
  dnnl::memory::desc weights;
  std::shared_ptr<Storage> storage;  // the packed weights
  // Made once: runs only read it, so every thread passes the same one and no run repeats the
  // zero padding of the blocked layout's tail.
  dnnl::memory weights_mem;
  std::unique_ptr<const PackedGemm> small;  // geon's own packing for small products, or null
  int64_t panel_width = 0;                  // column_panel_width(weights): 0, no packed_gemv
  // Split by columns (kColumnMinWeights): `weights` is then B's plain dense (K, N) row-major
  // copy, which `columns` reads in place; every run has at least kColumnMinRows rows.
  bool by_columns = false;
  DnnlMatmul columns;

  PrimitiveCache<std::vector<int64_t>, Entry> cache{kMaxCachedPrimitives};
  // The packed weights reordered into other layouts (relaid()), kept for the object's life.
  mutable std::vector<std::pair<dnnl::memory, std::shared_ptr<Storage>>> other_layouts;

  // The packed weights in layout `want` (from the cache's make, under its lock): weights_mem
  // itself, or a copy made once.
  dnnl::memory relaid(const dnnl::memory::desc& want) const {
    if (want == weights) return weights_mem;
    for (const auto& [mem, storage] : other_layouts)
      if (mem.get_desc() == want) return mem;
    auto storage = std::make_shared<Storage>(host_allocator(), want.get_size());
    std::memset(storage->data(), 0, want.get_size());  // a blocked tail's padding stays zero
    dnnl::memory to(want, dnnl_engine(), storage->data());
    // Through the plain layout: oneDNN 2.6 reorders one blocked layout into another with its
    // slow generic code (115 ms for BERT's 3072x768), plain to blocked and back with jit code.
    std::vector<float> plain(static_cast<size_t>(k * n));
    dnnl::memory mid(stored_md(k, n, false), dnnl_engine(), plain.data());
    dnnl::stream& s = dnnl_thread_stream();
    dnnl_match_thread_count();
    dnnl::memory from = weights_mem;  // a handle on the same weights
    dnnl::reorder(from, mid).execute(s, from, mid);
    dnnl::reorder(mid, to).execute(s, mid, to);
    s.wait();
    other_layouts.emplace_back(to, std::move(storage));
    g_relayouts.fetch_add(1, std::memory_order_relaxed);
    return to;
  }

  std::shared_ptr<const Entry> primitive(int64_t rows, bool bias, float beta,
                                         std::span<const MatmulPostOps::Eltwise> post) const {
    const auto bits = [](float f) {
      int32_t b;
      std::memcpy(&b, &f, 4);
      return b;
    };
    std::vector<int64_t> key{rows, bias ? 1 : 0, bits(beta)};
    for (const MatmulPostOps::Eltwise& e : post)
      key.insert(key.end(), {static_cast<int64_t>(e.alg), bits(e.alpha), bits(e.beta)});
    return cache.get(std::move(key), [&] {
      auto e = std::make_shared<Entry>();
      auto pd = conv_pd(rows, k, n, weights, bias, beta, post);
      e->weights = weights_mem;
      if (!pd) {
        // Some kernels' blocking depends on the row count or the post-ops (AVX-512's brgconv): a
        // primitive that cannot read the packed layout gets a copy in its own, made once.
        pd = conv_pd(rows, k, n, {dims_t{n, k, 1}, f32, tag::any}, bias, beta, post);
        if (pd) e->weights = relaid(pd->weights_desc());
      }
      if (pd) {
        e->scratch = pd->scratchpad_desc();
        e->scratch_bytes = e->scratch.get_size();
        e->prim.emplace(*pd);
      }
      return e;
    });
  }
};

DnnlPackedMatmul::DnnlPackedMatmul(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DnnlPackedMatmul::~DnnlPackedMatmul() = default;

const Dims& DnnlPackedMatmul::packed_shape() const { return impl_->shape; }

std::shared_ptr<const DnnlPackedMatmul> DnnlPackedMatmul::pack(const TensorData& b, bool transposed,
                                                               float alpha, int64_t min_rows) {
  if (b.desc.dtype != DType::kFloat || b.desc.rank() != 2 || !b.bytes() || b.desc.offset != 0 ||
      !is_contiguous(b.desc))
    return nullptr;
  auto impl = std::make_unique<Impl>();
  impl->shape = b.desc.shape;
  impl->transposed = transposed;
  impl->k = b.desc.shape[transposed ? 1 : 0];
  impl->n = b.desc.shape[transposed ? 0 : 1];
  const int64_t k = impl->k, n = impl->n;
  if (k == 0 || n == 0) return nullptr;
  impl->by_columns = column_split_pays(k, n, min_rows);
  if (impl->by_columns) {
    impl->weights = stored_md(k, n, false);
  } else {
    const auto pd = conv_pd(kRepresentativeRows, k, n, {dims_t{n, k, 1}, f32, tag::any}, false, 0);
    if (!pd) return nullptr;
    impl->weights = pd->weights_desc();
  }
  const dnnl::memory::desc plain = stored_md(k, n, transposed);
  const float* src = reinterpret_cast<const float*>(b.bytes());
  std::vector<float> scaled;
  if (alpha != 1.0f) {  // alpha·A·B = A·(alpha·B): the scale is paid once, here
    scaled.assign(src, src + k * n);
    for (float& x : scaled) x *= alpha;
    src = scaled.data();
  }
  // The reorder writes every element; only a blocked layout with padding is cleared first.
  const size_t packed_bytes = impl->weights.get_size();
  impl->storage = std::make_shared<Storage>(host_allocator(), packed_bytes);
  void* data = impl->storage->data();
  if (packed_bytes != static_cast<size_t>(k * n) * sizeof(float))
    std::memset(data, 0, packed_bytes);
  try {
    dnnl::engine& engine = dnnl_engine();
    dnnl::memory from(plain, engine, const_cast<float*>(src));
    impl->weights_mem = dnnl::memory(impl->weights, engine, data);
    dnnl::stream& s = dnnl_thread_stream();
    dnnl_match_thread_count();  // single-threaded, like every oneDNN call of geon's
    dnnl::reorder(from, impl->weights_mem).execute(s, from, impl->weights_mem);
    s.wait();
  } catch (const dnnl::error&) {
    return nullptr;
  }
  if (!impl->by_columns) {
    impl->small = PackedGemm::pack(b, transposed, alpha, min_rows);
    impl->panel_width = column_panel_width(impl->weights);
  }
  return std::shared_ptr<const DnnlPackedMatmul>(new DnnlPackedMatmul(std::move(impl)));
}

std::vector<float> DnnlPackedMatmul::unpack() const {
  const Impl& p = *impl_;
  std::vector<float> out(static_cast<size_t>(p.k * p.n));
  dnnl::memory from = p.weights_mem;  // a handle on the same packed weights
  dnnl::memory to(stored_md(p.k, p.n, p.transposed), dnnl_engine(), out.data());
  dnnl::stream& s = dnnl_thread_stream();
  dnnl::reorder(from, to).execute(s, from, to);
  s.wait();
  return out;
}

bool DnnlPackedMatmul::run(const ConstOperand& a, const Operand& dst, const ConstOperand* bias,
                           float beta, std::span<const MatmulPostOps::Eltwise> post,
                           const Activation* act, bool onednn_post) const {
  const Impl& p = *impl_;
  // Small products on geon's own kernel, when it can apply the activation too.
  const bool fusable = post.empty() || (act && PackedGemm::fuses(*act));
  if (p.small && fusable && (beta == 0.0f || beta == 1.0f) &&
      p.small->worth_it(element_count(dst.desc) / p.n)) {
    std::optional<ConstOperand> z;  // beta 1: what dst holds is added, read in place
    if (beta != 0.0f) z.emplace(dst);
    if (p.small->run(a, dst, bias, z ? &*z : nullptr, post.empty() || !act ? Activation{} : *act))
      return true;
  }
  if (!post.empty() && !onednn_post) return false;
  const int r = a.desc.rank();
  if (r < 1 || dst.desc.rank() != r || a.desc.shape[r - 1] != p.k || dst.desc.shape[r - 1] != p.n ||
      a.desc.dtype != DType::kFloat || dst.desc.dtype != DType::kFloat)
    return false;
  for (int i = 0; i + 1 < r; ++i)
    if (a.desc.shape[i] != dst.desc.shape[i]) return false;
  if (!is_contiguous(a.desc) || !is_contiguous(dst.desc)) return false;
  if (bias && (element_count(bias->desc) != p.n || !is_contiguous(bias->desc))) return false;
  const int64_t rows = element_count(dst.desc) / p.n;
  if (rows == 0) return true;
  const float* a0 = static_cast<const float*>(a.data) + a.desc.offset;
  float* d0 = static_cast<float*>(dst.data) + dst.desc.offset;
  const float* b0 = bias ? static_cast<const float*>(bias->base()) + bias->desc.offset : nullptr;
  // Too few rows to split by rows (see packed_gemv.h).
  if (p.panel_width && post.empty() && rows <= kPackedGemvMaxRows &&
      p.k * p.n >= kPackedGemvMinWeights) {
    const ColumnPanels panels{static_cast<const float*>(p.weights_mem.get_data_handle()), p.k, p.n,
                              p.panel_width};
    packed_gemv(panels, a0, rows, d0, b0, beta);
    return true;
  }
  // The column parts' sgemm applies eltwise post-ops in a slow pass of its own (768x3072 with Gelu,
  // BERT's FFN1: 3.30 ms, 2.75 without): refused, the caller applies the activation after.
  if (p.by_columns) {
    if (!post.empty()) return false;
    const ConstOperand b_plain(row_major(DType::kFloat, Dims{p.k, p.n}),
                               p.weights_mem.get_data_handle());
    std::optional<ConstOperand> bias_row;
    if (bias) bias_row.emplace(row_major(DType::kFloat, Dims{1, p.n}), b0);
    return p.columns.run_by_columns(ConstOperand(row_major(DType::kFloat, Dims{rows, p.k}), a0),
                                    b_plain, bias ? &*bias_row : nullptr,
                                    Operand{row_major(DType::kFloat, Dims{rows, p.n}), d0}, beta);
  }
  // Blocks of rows across the pool, each one primitive call on its thread. A split gives at most
  // two row counts; both must have a primitive before anything is written.
  const int parts = dnnl_parts(rows, double(rows) * p.k * p.n, kMinMacsPerPart);
  for (const int64_t count : {rows / parts, (rows + parts - 1) / parts})
    if (count > 0 && !p.primitive(count, bias != nullptr, beta, post)->prim) return false;

  dnnl_parallel(rows, parts, [&](int64_t first, int64_t last) {
    const int64_t count = last - first;
    const auto e = p.primitive(count, bias != nullptr, beta, post);
    // The C entry point takes the arguments as an array: no map is built per call.
    dnnl_exec_arg_t args[4] = {dnnl_thread_arg(DNNL_ARG_SRC, src_md(count, p.k), a0 + first * p.k),
                               {DNNL_ARG_WEIGHTS, e->weights.get()},
                               dnnl_thread_arg(DNNL_ARG_DST, dst_md(count, p.n), d0 + first * p.n)};
    int n = 3;
    if (bias)
      args[n++] = dnnl_thread_arg(DNNL_ARG_BIAS, dnnl::memory::desc({p.n}, f32, tag::a), b0);
    dnnl_run(*e->prim, std::span(args, n), e->scratch, e->scratch_bytes,
             "oneDNN prepacked matmul: execution failed");
  });
  return true;
}

bool DnnlPackedMatmul::splits_by_columns() const { return impl_->by_columns; }

int64_t dnnl_packed_matmul_relayouts() { return g_relayouts.load(std::memory_order_relaxed); }

}  // namespace geon::cpu
