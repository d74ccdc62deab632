// ONNX Attention (opsets 23 and 24) on the host: softmax(scale·Q·Kᵀ (softcapped) + bias)·V per
// (batch, query head, query row), with K/V heads shared by groups of query heads (GQA/MQA),
// past key/value concatenated before the new ones (present_*), the bias from attn_mask
// (bool or additive, broadcast, its last dim padded with -inf), is_causal and
// nonpad_kv_seqlen, and the optional qk_matmul_output. Computes in float (double for double
// inputs); every input is first copied dense, so any strides are accepted.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/error.h"
#include "core/desc/views.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

enum In { kQ, kK, kV, kMask, kPastK, kPastV, kNonpad };

struct Attrs {
  bool causal = false;
  int64_t q_heads = 0, kv_heads = 0;  // 3-D inputs only
  float scale = 0;                    // 0: 1/sqrt(head_size)
  float softcap = 0;
  int mode = 0;                                // qk_matmul_output_mode
  bool want[4] = {true, false, false, false};  // which outputs the node requests
};

// A 4-D (batch, head, seq, dim) view of a dense buffer: 4-D inputs as they are, 3-D inputs
// (batch, seq, heads·dim) seen with the heads split off.
template <class T>
struct View4 {
  const T* p = nullptr;
  int64_t len[4] = {}, st[4] = {};
  const T* row(int64_t b, int64_t h, int64_t s) const {
    return p + b * st[0] + h * st[1] + s * st[2];
  }
};

template <class T>
std::vector<T> dense(const TensorRef& t, DType acc) {
  std::vector<T> v(static_cast<size_t>(std::max<int64_t>(element_count(t.desc), 1)));
  assign(Operand{row_major(acc, t.desc.shape), v.data()}, src_of(t));
  return v;
}

template <class T>
View4<T> view4(const std::vector<T>& buf, const Dims& shape, int64_t heads, const char* what) {
  View4<T> v;
  v.p = buf.data();
  if (shape.size() == 4) {
    for (int k = 0; k < 4; ++k) v.len[k] = shape[k];
    v.st[3] = 1, v.st[2] = shape[3], v.st[1] = shape[2] * shape[3], v.st[0] = shape[1] * v.st[1];
    return v;
  }
  require(shape.size() == 3, [&] { return std::string(what) + " must have rank 3 or 4"; });
  require(heads > 0 && shape[2] % heads == 0, [&] {
    return std::string(what) + " hidden size " + std::to_string(shape[2]) +
           " is not a multiple of its head count " + std::to_string(heads);
  });
  const int64_t d = shape[2] / heads;
  v.len[0] = shape[0], v.len[1] = heads, v.len[2] = shape[1], v.len[3] = d;
  v.st[3] = 1, v.st[1] = d, v.st[2] = shape[2], v.st[0] = shape[1] * shape[2];
  return v;
}

// Dense (B, H, past + S, D): the past rows then the new ones.
template <class T>
std::vector<T> concat_past(const View4<T>& x, const std::vector<T>* past, int64_t past_len) {
  const int64_t B = x.len[0], H = x.len[1], S = x.len[2], D = x.len[3], total = past_len + S;
  std::vector<T> out(static_cast<size_t>(std::max<int64_t>(B * H * total * D, 1)));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      T* dst = out.data() + ((b * H + h) * total) * D;
      if (past_len > 0) std::copy_n(past->data() + (b * H + h) * past_len * D, past_len * D, dst);
      for (int64_t s = 0; s < S; ++s) std::copy_n(x.row(b, h, s), D, dst + (past_len + s) * D);
    }
  return out;
}

// The additive mask as element strides over (B, H, Sq, total) (0 where it broadcasts), with
// its own last length: columns past it are -inf (the spec's padding).
template <class T>
struct Mask {
  std::vector<T> bias;  // bool masks already turned into 0 / -inf
  int64_t st[4] = {}, last = 0;
  bool present = false;
  T at(int64_t b, int64_t h, int64_t i, int64_t j) const {
    if (!present) return T(0);
    if (j >= last) return -std::numeric_limits<T>::infinity();
    return bias[b * st[0] + h * st[1] + i * st[2] + j * st[3]];
  }
};

// `outer` is (batch, q_heads, q_seq): the mask's other dims must broadcast to them, or its
// strides would reach past its data.
template <class T>
Mask<T> read_mask(const TensorRef& m, DType acc, const int64_t (&outer)[3]) {
  Mask<T> out;
  out.present = true;
  const Dims& shape = m.desc.shape;
  const int r = m.desc.rank();
  require(r >= 1 && r <= 4, "attn_mask must have rank 1 to 4");
  for (int k = 0; k + 1 < r; ++k)
    require(shape[k] == 1 || shape[k] == outer[4 - r + k], [&] {
      return "attn_mask dim " + std::to_string(k) + " (" + std::to_string(shape[k]) +
             ") does not broadcast to " + std::to_string(outer[4 - r + k]);
    });
  if (m.desc.dtype == DType::kBool) {
    std::vector<uint8_t> keep(static_cast<size_t>(std::max<int64_t>(element_count(shape), 1)));
    assign(Operand{row_major(DType::kUInt8, shape), keep.data()}, src_of(m));
    out.bias.resize(keep.size());
    for (size_t i = 0; i < keep.size(); ++i)
      out.bias[i] = keep[i] ? T(0) : -std::numeric_limits<T>::infinity();
  } else {
    out.bias = dense<T>(m, acc);
  }
  int64_t s = 1;
  for (int k = r - 1; k >= 0; --k) {
    out.st[4 - r + k] = shape[k] == 1 ? 0 : s;
    s *= shape[k];
  }
  out.last = shape[r - 1];
  if (out.last == 1) out.st[3] = 0;  // a length-1 last dim covers only column 0 (then -inf)
  return out;
}

template <class T>
void run(KernelContext& ctx, const Attrs& at, DType acc) {
  const auto given = [&](int i) { return ctx.num_inputs() > i && ctx.input(i).present(); };
  const TensorRef &q_in = ctx.input(kQ), &k_in = ctx.input(kK), &v_in = ctx.input(kV);
  const int rank = q_in.desc.rank();
  require(k_in.desc.rank() == rank && v_in.desc.rank() == rank,
          "Q, K and V must have the same rank");
  require(rank == 3 || rank == 4, "Q, K and V must have rank 3 or 4");
  const std::vector<T> qb = dense<T>(q_in, acc), kb = dense<T>(k_in, acc), vb = dense<T>(v_in, acc);
  const View4<T> q = view4(qb, q_in.desc.shape, at.q_heads, "Q");
  const View4<T> k = view4(kb, k_in.desc.shape, at.kv_heads, "K");
  const View4<T> v = view4(vb, v_in.desc.shape, at.kv_heads, "V");
  const int64_t B = q.len[0], Hq = q.len[1], Sq = q.len[2], D = q.len[3];
  const int64_t Hkv = k.len[1], S = k.len[2], Dv = v.len[3];
  require(k.len[0] == B && v.len[0] == B, "Q, K and V must have the same batch size");
  require(k.len[3] == D, [&] {
    return "Q and K head sizes differ: " + std::to_string(D) + " and " + std::to_string(k.len[3]);
  });
  require(v.len[1] == Hkv && v.len[2] == S, "K and V must have the same heads and length");
  require(Hkv > 0 && Hq % Hkv == 0, [&] {
    return "q_num_heads " + std::to_string(Hq) + " is not a multiple of kv_num_heads " +
           std::to_string(Hkv);
  });
  // Past key/value, concatenated before the new rows.
  int64_t P = 0;
  std::vector<T> pk, pv;
  if (given(kPastK) || given(kPastV)) {
    require(given(kPastK) && given(kPastV), "past_key and past_value must be given together");
    const Dims& ks = ctx.input(kPastK).desc.shape;
    const Dims& vs = ctx.input(kPastV).desc.shape;
    require(ks.size() == 4 && ks[0] == B && ks[1] == Hkv && ks[3] == D,
            "past_key must be (batch, kv_heads, past, head_size)");
    require(vs.size() == 4 && vs[0] == B && vs[1] == Hkv && vs[2] == ks[2] && vs[3] == Dv,
            "past_value must be (batch, kv_heads, past, v_head_size)");
    P = ks[2];
    pk = dense<T>(ctx.input(kPastK), acc);
    pv = dense<T>(ctx.input(kPastV), acc);
  }
  const int64_t Tk = P + S;
  const std::vector<T> kall = concat_past(k, &pk, P), vall = concat_past(v, &pv, P);
  const int64_t outer[3] = {B, Hq, Sq};
  const Mask<T> mask = given(kMask) ? read_mask<T>(ctx.input(kMask), acc, outer) : Mask<T>{};
  std::vector<int64_t> nonpad;
  if (given(kNonpad)) {
    nonpad = read_ints(ctx.input(kNonpad), "nonpad_kv_seqlen");
    require(static_cast<int64_t>(nonpad.size()) == B,
            "nonpad_kv_seqlen must have batch_size values");
  }
  const T scale = at.scale != 0 ? T(at.scale) : T(1) / std::sqrt(static_cast<T>(D));
  const T cap = T(at.softcap);
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();

  const int64_t rows = B * Hq * Sq;
  std::vector<T> y(static_cast<size_t>(std::max<int64_t>(rows * Dv, 1)));  // (B, Hq, Sq, Dv)
  std::vector<T> qk(at.want[3] ? static_cast<size_t>(std::max<int64_t>(rows * Tk, 1)) : 0);
  auto run_rows = [&](int64_t lo, int64_t hi) {
    std::vector<T> s(static_cast<size_t>(std::max<int64_t>(Tk, 1)));
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t i = r % Sq, h = (r / Sq) % Hq, b = r / (Sq * Hq);
      const int64_t kvh = h / (Hq / Hkv);
      const T* qr = q.row(b, h, i);
      const T* kh = kall.data() + (b * Hkv + kvh) * Tk * D;
      const T* vh = vall.data() + (b * Hkv + kvh) * Tk * Dv;
      T* qko = at.want[3] ? qk.data() + r * Tk : nullptr;
      const int64_t valid = nonpad.empty() ? Tk : nonpad[b];
      T best = kNegInf;
      for (int64_t j = 0; j < Tk; ++j) {
        const T* kr = kh + j * D;
        T dot = 0;
        for (int64_t d = 0; d < D; ++d) dot += qr[d] * kr[d];
        T x = dot * scale;
        if (qko && at.mode == 0) qko[j] = x;
        if (cap > T(0)) x = cap * std::tanh(x / cap);
        if (qko && at.mode == 1) qko[j] = x;
        x += mask.at(b, h, i, j);
        if ((at.causal && j > P + i) || j >= valid) x += kNegInf;
        if (qko && at.mode == 2) qko[j] = x;
        s[j] = x;
        best = std::max(best, x);
      }
      // A fully masked row has best = -inf and gives NaN, as the ONNX reference's softmax does.
      T sum = 0;
      for (int64_t j = 0; j < Tk; ++j) sum += (s[j] = std::exp(s[j] - best));
      const T inv = T(1) / sum;
      T* yr = y.data() + r * Dv;
      std::fill(yr, yr + Dv, T(0));
      for (int64_t j = 0; j < Tk; ++j) {
        const T p = s[j] * inv;
        if (qko && at.mode == 3) qko[j] = p;
        if (p == T(0)) continue;  // masked keys never touch Y, even when V holds inf or NaN
        const T* vr = vh + j * Dv;
        for (int64_t d = 0; d < Dv; ++d) yr[d] += p * vr[d];
      }
      if (best == kNegInf && Tk > 0)  // fully masked
        std::fill(yr, yr + Dv, std::numeric_limits<T>::quiet_NaN());
    }
  };
  ThreadPool& pool = default_thread_pool();
  const int parts = static_cast<int>(std::min<int64_t>(
      {pool.size(), rows, std::max<int64_t>(rows * Tk * (D + Dv) / (1 << 15), 1)}));
  if (parts <= 1)
    run_rows(0, rows);
  else
    pool.run(parts, [&](int p) { run_rows(rows * p / parts, rows * (p + 1) / parts); });

  // Y: (B, Hq, Sq, Dv), or (B, Sq, Hq·Dv) for 3-D inputs (a permuted view of the same values).
  const TensorDesc y4 = row_major(acc, Dims{B, Hq, Sq, Dv});
  if (rank == 4) {
    assign(dst_of(ctx.output(0, Dims{B, Hq, Sq, Dv})), ConstOperand(y4, y.data()));
  } else {
    const TensorRef& out = ctx.output(0, Dims{B, Sq, Hq * Dv});
    const ReshapeResult split = reshape(out.desc, Dims{B, Sq, Hq, Dv});
    require(split.view.has_value(),
            [&] { return "the output cannot be split into heads: " + split.why; });
    assign(Operand{*split.view, out.data},
           ConstOperand(permute(y4, std::vector<int64_t>{0, 2, 1, 3}), y.data()));
  }
  if (at.want[1])
    assign(dst_of(ctx.output(1, Dims{B, Hkv, Tk, D})),
           ConstOperand(row_major(acc, Dims{B, Hkv, Tk, D}), kall.data()));
  if (at.want[2])
    assign(dst_of(ctx.output(2, Dims{B, Hkv, Tk, Dv})),
           ConstOperand(row_major(acc, Dims{B, Hkv, Tk, Dv}), vall.data()));
  if (at.want[3])
    assign(dst_of(ctx.output(3, Dims{B, Hq, Sq, Tk})),
           ConstOperand(row_major(acc, Dims{B, Hq, Sq, Tk}), qk.data()));
}

bool is_float_kind(DType t) {
  return t == DType::kFloat || t == DType::kDouble || t == DType::kFloat16 || t == DType::kBFloat16;
}

}  // namespace

Reason supports_attention(const Graph& g, const Node& n) {
  for (int i : {kQ, kK, kV, kPastK, kPastV})
    if (has_input(n, i) && !is_float_kind(input_dtype(g, n, i)))
      return "Attention input " + std::to_string(i) + " of " +
             std::string(dtype_name(input_dtype(g, n, i))) + " is not implemented";
  if (has_input(n, kMask)) {
    const DType m = input_dtype(g, n, kMask);
    if (m != DType::kBool && !is_numeric(m))
      return "Attention attn_mask of " + std::string(dtype_name(m)) + " is not implemented";
  }
  const int64_t mode = attr_int(n, "qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3)
    return "Attention qk_matmul_output_mode " + std::to_string(mode) + " is unknown";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_attention(const Graph& g, const Node& n) {
  Attrs at;
  at.causal = attr_int(n, "is_causal", 0) != 0;
  at.q_heads = attr_int(n, "q_num_heads", 0);
  at.kv_heads = attr_int(n, "kv_num_heads", 0);
  at.scale = attr_float(n, "scale", 0.0f);
  at.softcap = attr_float(n, "softcap", 0.0f);
  at.mode = static_cast<int>(attr_int(n, "qk_matmul_output_mode", 0));
  for (int i = 0; i < 4; ++i)
    at.want[i] = static_cast<int>(n.outputs.size()) > i && n.outputs[i] >= 0;
  const DType acc = input_dtype(g, n, kQ) == DType::kDouble ? DType::kDouble : DType::kFloat;
  return make_node_kernel(n, [at, acc](KernelContext& ctx) {
    if (acc == DType::kDouble)
      run<double>(ctx, at, acc);
    else
      run<float>(ctx, at, acc);
  });
}

}  // namespace geon::cpu
