// LinearAttention-27 on the host: per (batch, KV head) the recurrent state S (Dk x Dv) runs
// over the sequence, S_t = exp(g_t) S_{t-1} + k_t (x) u_t with u_t = v_t (linear, gated) or
// beta_t (v_t - (exp(g_t) S_{t-1})^T k_t) (delta, gated_delta); each query head of the KV
// head's group reads o_t = scale q_t^T S_t. Inputs are (B, T, H*D) with the heads packed
// last; decay is per head (H_kv) or per key dim (H_kv*Dk), beta per head or one for all.
// Computes in float, as the ONNX reference does, whatever the input dtypes.
#include <cmath>

#include "kernels/cpu/generic/attention/dense.h"
#include "kernels/cpu/generic/attention/ops.h"

namespace geon::cpu {
namespace {

enum In { kQuery, kKey, kValue, kPast, kDecay, kBeta };
constexpr const char* kNames[] = {"query", "key", "value", "past_state", "decay", "beta"};

struct Attrs {
  int64_t hq = 0, hkv = 0;
  float scale = 0;
  bool gated = false, delta = false;
  bool want_state = true;  // output 1 requested
};

bool float_kind(DType t) {
  return t == DType::kFloat || t == DType::kFloat16 || t == DType::kBFloat16;
}

std::string in_name(int i) { return "input " + std::to_string(i) + " (" + kNames[i] + ")"; }

void run(KernelContext& ctx, const Attrs& at) {
  for (int i : {kQuery, kKey, kValue})
    require(given(ctx, i), [&] { return in_name(i) + " is required"; });
  for (int i = 0; i < 6; ++i)
    if (given(ctx, i))
      require(ctx.input(i).desc.rank() == (i == kPast ? 4 : 3), [&] {
        return in_name(i) + " must have rank " + (i == kPast ? "4" : "3") + ", got " +
               dims_text(ctx.input(i).desc.shape);
      });
  require(given(ctx, kDecay) == at.gated, at.gated ? "this update_rule needs input 4 (decay)"
                                                   : "this update_rule takes no input 4 (decay)");
  require(given(ctx, kBeta) == at.delta, at.delta ? "this update_rule needs input 5 (beta)"
                                                  : "this update_rule takes no input 5 (beta)");
  const Dims& qs = ctx.input(kQuery).desc.shape;
  const Dims& ks = ctx.input(kKey).desc.shape;
  const Dims& vs = ctx.input(kValue).desc.shape;
  const int64_t B = qs[0], T = qs[1], Hq = at.hq, Hkv = at.hkv, G = Hq / Hkv;
  require(qs[2] % Hq == 0, [&] {
    return "query's hidden size " + std::to_string(qs[2]) + " is not a multiple of q_num_heads " +
           std::to_string(Hq);
  });
  require(vs[2] % Hkv == 0, [&] {
    return "value's hidden size " + std::to_string(vs[2]) + " is not a multiple of kv_num_heads " +
           std::to_string(Hkv);
  });
  const int64_t Dk = qs[2] / Hq, Dv = vs[2] / Hkv;
  require(ks[2] == Hkv * Dk, [&] {
    return "key's hidden size " + std::to_string(ks[2]) +
           " must be kv_num_heads * the query's head size (" + std::to_string(Hkv * Dk) + ")";
  });
  for (int i : {kKey, kValue, kDecay, kBeta}) {
    if (!given(ctx, i)) continue;
    const Dims& s = ctx.input(i).desc.shape;
    require(s[0] == B && s[1] == T, [&] {
      return in_name(i) + " " + dims_text(s) +
             " must have the query's batch and sequence length (" + std::to_string(B) + ", " +
             std::to_string(T) + ")";
    });
  }
  int64_t decay_w = 0, beta_w = 0;  // values per (b, t) row
  if (at.gated) {
    decay_w = ctx.input(kDecay).desc.shape[2];
    require(decay_w == Hkv || decay_w == Hkv * Dk, [&] {
      return "decay's last dim " + std::to_string(decay_w) + " must be kv_num_heads (" +
             std::to_string(Hkv) + ") or kv_num_heads * Dk (" + std::to_string(Hkv * Dk) + ")";
    });
  }
  if (at.delta) {
    beta_w = ctx.input(kBeta).desc.shape[2];
    require(beta_w == Hkv || beta_w == 1, [&] {
      return "beta's last dim " + std::to_string(beta_w) + " must be kv_num_heads (" +
             std::to_string(Hkv) + ") or 1";
    });
  }
  const Dims state_shape{B, Hkv, Dk, Dv};
  if (given(ctx, kPast))
    require(ctx.input(kPast).desc.shape == state_shape, [&] {
      return "past_state " + dims_text(ctx.input(kPast).desc.shape) +
             " must be (B, H_kv, Dk, Dv) " + dims_text(state_shape);
    });
  const Dims out_shape{B, T, Hq * Dv};
  check_output_size(ctx.input(kQuery).desc.dtype, out_shape, "output");
  check_output_size(DType::kFloat, state_shape, "present_state");

  const std::vector<float> q = dense_as<float>(ctx.input(kQuery));
  const std::vector<float> k = dense_as<float>(ctx.input(kKey));
  const std::vector<float> v = dense_as<float>(ctx.input(kValue));
  const std::vector<float> decay =
      at.gated ? dense_as<float>(ctx.input(kDecay)) : std::vector<float>{};
  const std::vector<float> beta =
      at.delta ? dense_as<float>(ctx.input(kBeta)) : std::vector<float>{};
  std::vector<float> state =
      given(ctx, kPast)
          ? dense_as<float>(ctx.input(kPast))
          : std::vector<float>(static_cast<size_t>(std::max<int64_t>(B * Hkv * Dk * Dv, 1)));
  std::vector<float> out(static_cast<size_t>(std::max<int64_t>(B * T * Hq * Dv, 1)));
  const float scale = at.scale != 0 ? at.scale : 1.0f / std::sqrt(static_cast<float>(Dk));

  // One (batch, KV head) recurrence per item; items touch disjoint state and output columns.
  // With a head size of 0 nothing accumulates (the output is zeros or empty) and the items are
  // not walked: kv_num_heads may be huge when every hidden size is 0.
  if (Dk > 0 && Dv > 0 && T > 0)
    parallel_rows(B * Hkv, cost_of({T, Dk, Dv, 2 + G}), [&](int64_t lo, int64_t hi) {
      std::vector<float> u(static_cast<size_t>(std::max<int64_t>(Dv, 1)));
      for (int64_t item = lo; item < hi; ++item) {
        const int64_t b = item / Hkv, h = item % Hkv;
        float* S = state.data() + item * Dk * Dv;
        for (int64_t t = 0; t < T; ++t) {
          const int64_t row = b * T + t;
          const float* kt = k.data() + row * Hkv * Dk + h * Dk;
          const float* vt = v.data() + row * Hkv * Dv + h * Dv;
          if (at.gated) {
            const float* g = decay.data() + row * decay_w;
            for (int64_t i = 0; i < Dk; ++i) {
              const float f = std::exp(decay_w == Hkv ? g[h] : g[h * Dk + i]);
              for (int64_t m = 0; m < Dv; ++m) S[i * Dv + m] *= f;
            }
          }
          if (at.delta) {
            const float bt = beta[row * beta_w + (beta_w == 1 ? 0 : h)];
            for (int64_t m = 0; m < Dv; ++m) {
              float r = 0;
              for (int64_t i = 0; i < Dk; ++i) r += S[i * Dv + m] * kt[i];
              u[m] = bt * (vt[m] - r);
            }
          } else {
            std::copy_n(vt, Dv, u.data());
          }
          for (int64_t i = 0; i < Dk; ++i)
            for (int64_t m = 0; m < Dv; ++m) S[i * Dv + m] += kt[i] * u[m];
          for (int64_t hq = h * G; hq < (h + 1) * G; ++hq) {
            const float* qt = q.data() + row * Hq * Dk + hq * Dk;
            float* o = out.data() + row * Hq * Dv + hq * Dv;
            for (int64_t m = 0; m < Dv; ++m) {
              float acc = 0;
              for (int64_t i = 0; i < Dk; ++i) acc += qt[i] * S[i * Dv + m];
              o[m] = scale * acc;
            }
          }
        }
      }
    });
  store_dense(ctx.output(0, out_shape), out);
  if (at.want_state) store_dense(ctx.output(1, state_shape), state);
}

}  // namespace

Reason supports_linear_attention(const Graph& g, const Node& n) {
  for (int i = 0; i < 6; ++i)
    if (has_input(n, i) && !float_kind(input_dtype(g, n, i)))
      return "LinearAttention " + in_name(i) + " of " +
             std::string(dtype_name(input_dtype(g, n, i))) +
             " is not one of float, float16, bfloat16";
  const int64_t hq = attr_int(n, "q_num_heads", 0), hkv = attr_int(n, "kv_num_heads", 0);
  if (hq < 1 || hkv < 1 || hq % hkv != 0)
    return "LinearAttention q_num_heads (" + std::to_string(hq) +
           ") must be a positive multiple of kv_num_heads (" + std::to_string(hkv) + ")";
  const std::string rule = attr_string(n, "update_rule", "gated_delta");
  if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta")
    return "LinearAttention update_rule '" + rule + "' is unknown";
  const bool gated = rule == "gated" || rule == "gated_delta";
  const bool delta = rule == "delta" || rule == "gated_delta";
  if (has_input(n, kDecay) != gated)
    return "LinearAttention update_rule '" + rule + (gated ? "' needs" : "' takes no") +
           " input 4 (decay)";
  if (has_input(n, kBeta) != delta)
    return "LinearAttention update_rule '" + rule + (delta ? "' needs" : "' takes no") +
           " input 5 (beta)";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_linear_attention(const Graph&, const Node& n) {
  Attrs at;
  at.hq = attr_int(n, "q_num_heads", 0);
  at.hkv = attr_int(n, "kv_num_heads", 0);
  require(at.hq >= 1 && at.hkv >= 1 && at.hq % at.hkv == 0,
          "q_num_heads must be a positive multiple of kv_num_heads");
  at.scale = attr_float(n, "scale", 0.0f);
  const std::string rule = attr_string(n, "update_rule", "gated_delta");
  at.gated = rule == "gated" || rule == "gated_delta";
  at.delta = rule == "delta" || rule == "gated_delta";
  at.want_state = n.outputs.size() > 1 && n.outputs[1] >= 0;
  return make_node_kernel(n, [at](KernelContext& ctx) { run(ctx, at); });
}

}  // namespace geon::cpu
