// ONNX Attention (float, no past/present, softcap or qk output) on oneDNN: scores = scale·Q·Kᵀ
// as one batched matmul over strided views (Kᵀ and shared GQA heads are views, no copies), the
// mask and causal bias added in place, geon's softmax over each row (softmax_rows.h), then P·V
// into Y; the engine pool splits kv heads (or query rows) across threads. Shapes this path does
// not take at run time (a short mask last dim, odd head splits) go to the cpu.generic kernel
// made alongside, which also defines the semantics matched here.
#include <algorithm>
#include <cmath>
#include <limits>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>

#include "core/base/error.h"
#include "core/engine/thread_pool.h"
#include "kernels/cpu/dnnl/matmul_core.h"
#include "kernels/cpu/dnnl/ops.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/native/softmax_rows.h"

namespace geon::cpu {
namespace {

enum In { kQ, kK, kV, kMask, kPastK, kPastV, kNonpad };
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// A thread's scores buffer holds at most this many floats (or one query row per head): larger
// blocks are made a few batches, or a few query rows, at a time.
constexpr int64_t kMaxScoreFloats = int64_t{1} << 22;

// A (batch, head, seq, dim) view: 4-D tensors as they are, 3-D (batch, seq, heads·dim) with
// the heads split off.
struct View4 {
  int64_t len[4] = {}, st[4] = {}, offset = 0;
};

std::optional<View4> view4(const TensorDesc& d, int64_t heads) {
  View4 v;
  v.offset = d.offset;
  if (d.rank() == 4) {
    for (int k = 0; k < 4; ++k) v.len[k] = d.shape[k], v.st[k] = d.strides[k];
    return v;
  }
  if (d.rank() != 3 || heads <= 0 || d.shape[2] % heads != 0) return std::nullopt;
  const int64_t dim = d.shape[2] / heads;
  v.len[0] = d.shape[0], v.len[1] = heads, v.len[2] = d.shape[1], v.len[3] = dim;
  v.st[0] = d.strides[0], v.st[1] = dim * d.strides[2], v.st[2] = d.strides[1];
  v.st[3] = d.strides[2];
  return v;
}

// A block of the work: batches [b0, b0 + nb), kv heads [h0, h0 + nh) (with all their query
// heads) and query rows [i0, i0 + ni).
struct Block {
  int64_t b0, nb, h0, nh, i0, ni;
};

// The 5-D (batch, kv head, group, rows, cols) matmul operand of a 4-D view over a block, the
// heads split as (kv head, group): `shared` views have one head per kv head (K, V), broadcast
// over the group, and all their rows. `transposed` swaps the two matrix dims (Kᵀ).
TensorDesc five_d(const View4& v, const Block& w, int64_t group, bool shared, bool transposed) {
  TensorDesc d;
  d.dtype = DType::kFloat;
  const int r = transposed ? 3 : 2, c = transposed ? 2 : 3;
  const int64_t rows = shared ? v.len[2] : w.ni;
  d.shape = {w.nb, w.nh, shared ? 1 : group, r == 2 ? rows : v.len[r], c == 2 ? rows : v.len[c]};
  d.strides = {v.st[0], shared ? v.st[1] : v.st[1] * group, shared ? 0 : v.st[1], v.st[r], v.st[c]};
  d.offset = v.offset + w.b0 * v.st[0] + w.h0 * (shared ? 1 : group) * v.st[1] +
             (shared ? 0 : w.i0 * v.st[2]);
  return d;
}

// The mask as element strides over (B, H, Sq, S), 0 where it broadcasts.
struct MaskView {
  const void* data = nullptr;
  bool is_bool = false;
  int64_t st[4] = {};
};

// One run's operands: the 4-D views, their data, the mask and the sizes every block shares.
struct Job {
  View4 q, k, v, y;
  const void *qp = nullptr, *kp = nullptr, *vp = nullptr;
  void* yp = nullptr;
  MaskView mask;
  int64_t Hq = 0, Sq = 0, S = 0, Dv = 0, G = 1;
  float scale = 1;
};

struct Attrs {
  bool causal = false;
  int64_t q_heads = 0, kv_heads = 0;
  float scale = 0;
};

class DnnlAttention {
 public:
  DnnlAttention(Attrs at, std::unique_ptr<Kernel> fallback)
      : at_(at), fallback_(std::move(fallback)) {}

  void compute(KernelContext& ctx) const {
    if (!try_run(ctx)) fallback_->compute(ctx);
  }

 private:
  // False, with nothing written, when these shapes are left to the generic kernel.
  bool try_run(KernelContext& ctx) const {
    const TensorRef &q_in = ctx.input(kQ), &k_in = ctx.input(kK), &v_in = ctx.input(kV);
    const int rank = q_in.desc.rank();
    if (k_in.desc.rank() != rank || v_in.desc.rank() != rank || (rank != 3 && rank != 4))
      return false;
    const std::optional<View4> q = view4(q_in.desc, at_.q_heads);
    const std::optional<View4> k = view4(k_in.desc, at_.kv_heads);
    const std::optional<View4> v = view4(v_in.desc, at_.kv_heads);
    if (!q || !k || !v) return false;
    const int64_t B = q->len[0], Hq = q->len[1], Sq = q->len[2], D = q->len[3];
    const int64_t Hkv = k->len[1], S = k->len[2], Dv = v->len[3];
    if (k->len[0] != B || v->len[0] != B || k->len[3] != D || v->len[1] != Hkv || v->len[2] != S ||
        Hkv <= 0 || Hq % Hkv != 0)
      return false;  // the generic kernel names the mismatch

    MaskView mask;  // data null: none
    const bool has_mask = ctx.num_inputs() > kMask && ctx.input(kMask).present();
    if (has_mask) {
      const TensorDesc& m = ctx.input(kMask).desc;
      const int r = m.rank();
      if (r < 1 || r > 4 || m.shape[r - 1] != S) return false;  // short last dims: generic
      const int64_t full[4] = {B, Hq, Sq, S};
      for (int i = 0; i < r; ++i) {
        const int64_t len = m.shape[i], want = full[4 - r + i];
        if (len != 1 && len != want) return false;
        mask.st[4 - r + i] = len == 1 ? 0 : m.strides[i];
      }
      mask.is_bool = m.dtype == DType::kBool;
      const size_t esize = mask.is_bool ? 1 : sizeof(float);
      mask.data = static_cast<const char*>(ctx.input(kMask).data) + m.offset * esize;
    }

    const TensorRef& out =
        rank == 4 ? ctx.output(0, Dims{B, Hq, Sq, Dv}) : ctx.output(0, Dims{B, Sq, Hq * Dv});
    const std::optional<View4> y = view4(out.desc, Hq);
    require(y.has_value(), "Attention: the output cannot be split into heads");
    if (B * Hq * Sq * Dv == 0) return true;

    Job job;
    job.q = *q, job.k = *k, job.v = *v, job.y = *y;
    job.qp = q_in.data, job.kp = k_in.data, job.vp = v_in.data, job.yp = out.data;
    job.mask = mask;
    job.Hq = Hq, job.Sq = Sq, job.S = S, job.Dv = Dv, job.G = Hq / Hkv;
    job.scale = at_.scale != 0 ? at_.scale : 1.0f / std::sqrt(static_cast<float>(D));
    // One pool job, each part running oneDNN on its own thread over its own kv heads (or query
    // rows when there are fewer kv heads than parts): one fork for the whole op instead of one
    // OpenMP region per primitive, which costs much more on a busy machine.
    ThreadPool& pool = default_thread_pool();
    const int64_t work = B * Hq * Sq * S * (D + Dv);
    int64_t parts = std::min<int64_t>(pool.size(), std::max<int64_t>(work / (1 << 18), 1));
    const bool by_heads = Hkv >= parts;
    if (!by_heads) parts = std::min(parts, Sq);
    if (parts <= 1) {
      run_block(job, Block{0, B, 0, Hkv, 0, Sq});
      return true;
    }
    const int64_t n = by_heads ? Hkv : Sq;
    pool.run(static_cast<int>(parts), [&](int p) {
      const int64_t lo = n * p / parts, hi = n * (p + 1) / parts;
      thread_local ThreadPool single(1);
      ScopedPool scope(&single);  // oneDNN and the engine on this thread alone
      run_block(job, by_heads ? Block{0, B, lo, hi - lo, 0, Sq} : Block{0, B, 0, Hkv, lo, hi - lo});
    });
    return true;
  }

  // Attention over one block, a few batches or query rows at a time so the scores stay bounded.
  void run_block(const Job& j, const Block& w) const {
    if (w.nh == 0 || w.ni == 0) return;
    const int64_t per_row = w.nh * j.G * std::max<int64_t>(j.S, 1);
    const int64_t bstep = std::clamp<int64_t>(kMaxScoreFloats / (per_row * w.ni), 1, w.nb);
    const int64_t istep = std::clamp<int64_t>(kMaxScoreFloats / per_row, 1, w.ni);
    const int64_t rows_max = bstep * w.nh * j.G * istep;
    thread_local std::vector<float> scores;
    if (scores.size() < static_cast<size_t>(rows_max * j.S))
      scores.resize(static_cast<size_t>(rows_max * j.S));
    float* sc = scores.data();
    for (int64_t b0 = w.b0; b0 < w.b0 + w.nb; b0 += bstep)
      for (int64_t i0 = w.i0; i0 < w.i0 + w.ni; i0 += istep) {
        const Block c{b0, std::min(bstep, w.b0 + w.nb - b0), w.h0, w.nh,
                      i0, std::min(istep, w.i0 + w.ni - i0)};
        run_chunk(j, c, sc);
      }
  }

  // Attention over a block whose scores fit the thread's buffers.
  void run_chunk(const Job& j, const Block& c, float* sc) const {
    const int64_t rows = c.nb * c.nh * j.G * c.ni;
    const TensorDesc sd = row_major(DType::kFloat, Dims{c.nb, c.nh, j.G, c.ni, j.S});
    if (j.S > 0) {
      matmul_.run(ConstOperand(five_d(j.q, c, j.G, false, false), j.qp),
                  ConstOperand(five_d(j.k, c, j.G, true, true), j.kp), Operand{sd, sc}, j.scale,
                  0.0f);
      if (j.mask.data || at_.causal) add_bias(j, c, sc);
      // A fully masked row (all -inf) comes out NaN (0 / 0), and so does its row of Y, as the
      // ONNX reference's softmax gives.
      softmax_rows(false, sc, sc, rows, j.S);
    }
    matmul_.run(ConstOperand(sd, sc), ConstOperand(five_d(j.v, c, j.G, true, false), j.vp),
                Operand{five_d(j.y, c, j.G, false, false), j.yp}, 1.0f, 0.0f);
  }

  // Adds the mask (bool: 0 or -inf) and the causal -inf to a block's scores.
  void add_bias(const Job& j, const Block& c, float* sc) const {
    const MaskView& m = j.mask;
    const int64_t heads = c.nh * j.G, rows = c.nb * heads * c.ni, S = j.S;
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = c.i0 + r % c.ni, h = c.h0 * j.G + (r / c.ni) % heads;
      const int64_t b = c.b0 + r / (c.ni * heads);
      float* s = sc + r * S;
      if (m.data) {
        const int64_t off = b * m.st[0] + h * m.st[1] + i * m.st[2], js = m.st[3];
        if (m.is_bool) {
          const uint8_t* keep = static_cast<const uint8_t*>(m.data) + off;
          for (int64_t x = 0; x < S; ++x) s[x] = keep[x * js] ? s[x] : kNegInf;
        } else if (js == 1) {
          const float* add = static_cast<const float*>(m.data) + off;
          for (int64_t x = 0; x < S; ++x) s[x] += add[x];
        } else {
          const float* add = static_cast<const float*>(m.data) + off;
          for (int64_t x = 0; x < S; ++x) s[x] += add[x * js];
        }
      }
      if (at_.causal)
        for (int64_t x = i + 1; x < S; ++x) s[x] = kNegInf;
    }
  }

  Attrs at_;
  std::unique_ptr<Kernel> fallback_;
  DnnlMatmul matmul_;
};

bool given(const Node& n, int i) { return has_input(n, i); }

}  // namespace

Reason supports_dnnl_attention(const Graph& g, const Node& n) {
  for (int i : {kQ, kK, kV})
    if (input_dtype(g, n, i) != DType::kFloat)
      return "oneDNN Attention takes float Q, K and V; input " + std::to_string(i) + " is " +
             std::string(dtype_name(input_dtype(g, n, i))) + " (cpu.generic runs it)";
  if (given(n, kMask) && input_dtype(g, n, kMask) != DType::kFloat &&
      input_dtype(g, n, kMask) != DType::kBool)
    return "oneDNN Attention takes a float or bool attn_mask (cpu.generic runs others)";
  if (given(n, kPastK) || given(n, kPastV) || given(n, kNonpad))
    return "past key/value and nonpad_kv_seqlen are computed by cpu.generic";
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (n.outputs[i] >= 0) return "present key/value and qk outputs are computed by cpu.generic";
  if (attr_float(n, "softcap", 0.0f) != 0.0f) return "softcap is computed by cpu.generic";
  if (output_dtype(g, n, 0) != DType::kFloat) return "oneDNN Attention writes float Y only";
  return supports_attention(g, n);
}

std::unique_ptr<Kernel> create_dnnl_attention(const Graph& g, const Node& n) {
  Attrs at;
  at.causal = attr_int(n, "is_causal", 0) != 0;
  at.q_heads = attr_int(n, "q_num_heads", 0);
  at.kv_heads = attr_int(n, "kv_num_heads", 0);
  at.scale = attr_float(n, "scale", 0.0f);
  auto impl = std::make_shared<DnnlAttention>(at, create_attention(g, n));
  // Not make_node_kernel: the generic fallback prefixes its own messages with the op.
  return make_kernel([impl](KernelContext& ctx) {
    try {
      impl->compute(ctx);
    } catch (const dnnl::error& e) {
      fail(ErrorCode::kInternal, std::string("Attention: oneDNN: ") + e.what());
    }
  });
}

}  // namespace geon::cpu
