// Import rules: attention. Attention-23/24 (3-D packed or 4-D per-head Q, K, V, with a KV
// cache), RotaryEmbedding-23 and LinearAttention-27 (recurrent linear attention with a state);
// the preview domain's FlexAttention is with the other domains in misc_ml.cc. Batch and sequence
// axes of the outputs are the inputs' own; head counts and sizes that the op unpacks from a packed
// dim are new axes.
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/nn.h"

namespace geon::importer {
namespace {

std::string in_name(int i, const char* name) {
  return "input " + std::to_string(i) + " (" + name + ")";
}

// A positive attribute, required when `required`; 0 when absent.
int64_t positive_attr(RuleContext& c, const char* name, bool required) {
  if (!c.has_attr(name)) {
    if (required) c.fail("attribute '" + std::string(name) + "' is required but missing");
    return 0;
  }
  const int64_t v = c.attr_int(name);
  if (v < 1)
    c.fail("attribute '" + std::string(name) + "' is " + std::to_string(v) + "; it must be >= 1");
  return v;
}

// n / k for a packed dim of n = k * size; fails when a static n is not a multiple of k.
Length unpacked(RuleContext& c, const Length& n, int64_t k, const std::string& what,
                const char* heads) {
  if (!n.is_static()) return k == 1 ? n : Length::unknown();
  if (n.value % k != 0)
    c.fail(what + " is " + std::to_string(n.value) + ", which attribute '" + heads + "' (" +
           std::to_string(k) + ") does not divide");
  return Length::known(n.value / k);
}

void require_flag(RuleContext& c, const char* name) {
  const int64_t v = c.attr_int(name, 0);
  if (v != 0 && v != 1)
    c.fail("attribute '" + std::string(name) + "' is " + std::to_string(v) + "; it must be 0 or 1");
}

void check_softmax_precision(RuleContext& c) {
  if (!c.has_attr("softmax_precision")) return;
  const int64_t p = c.attr_int("softmax_precision");
  const auto t = dtype_from_onnx(static_cast<int32_t>(p));
  if (!t || !is_float_type(*t))
    c.fail("attribute 'softmax_precision' is " + std::to_string(p) + "; it must be a float type");
}

// A length sum when both are static, unknown otherwise.
Length sum_length(const Length& a, const Length& b) {
  if (!a.is_static() || !b.is_static()) return Length::unknown();
  const auto s = checked_add(a.value, b.value);
  return s ? Length::known(*s) : Length::unknown();
}

// The per-head view of one of Attention's Q, K, V (4-D, or 3-D unpacked with `heads`).
struct Heads {
  Axis batch, heads, seq, size;
};

Heads per_head(RuleContext& c, int i, const char* name, int64_t heads_attr,
               const char* heads_name) {
  const Value& v = c.input(i);
  if (v.rank() == 4) {
    if (heads_attr > 0)
      require_same_length(c, v.axes[1].length, Length::known(heads_attr),
                          in_name(i, name) + " dim 1",
                          "attribute '" + std::string(heads_name) + "'");
    return {v.axes[0], v.axes[1], v.axes[2], v.axes[3]};
  }
  const Length size =
      unpacked(c, v.axes[2].length, heads_attr, in_name(i, name) + " dim 2", heads_name);
  return {v.axes[0], c.new_axis(Length::known(heads_attr)), v.axes[1], c.new_axis(size)};
}

// Attention: Y (B, Hq, Lq, Dv) or (B, Lq, Hq * Dv); present_key/value (B, Hkv, P + L, D/Dv);
// qk_matmul_output (B, Hq, Lq, P + L). `v24`: the nonpad_kv_seqlen input.
void attention(RuleContext& c, bool v24) {
  require_arity(c, 7, 4);  // 6 inputs before 24: checked below
  const int max_inputs = v24 ? 7 : 6;
  if (c.num_inputs() > max_inputs)
    c.fail("Attention-" + std::string(v24 ? "24" : "23") + " takes at most " +
           std::to_string(max_inputs) + " inputs, the node has " + std::to_string(c.num_inputs()) +
           (v24 ? "" : " (nonpad_kv_seqlen came with Attention-24)"));
  require_nn_float(c, 0, 23, "Q");
  const DType t1 = c.input_dtype(0);
  require_same_dtype(c, 1, "K", t1, "Q");
  require_nn_float(c, 2, 23, "V");
  const DType t2 = c.input_dtype(2);
  if (c.has_input(4)) require_same_dtype(c, 4, "past_key", t1, "Q");
  if (c.has_input(5)) require_same_dtype(c, 5, "past_value", t2, "V");
  if (c.has_input(4) != c.has_input(5))
    c.fail("inputs past_key and past_value must be given together");
  if (c.has_input(6)) {
    if (c.input_dtype(6) != DType::kInt64)
      c.fail("input 6 (nonpad_kv_seqlen) has dtype " + std::string(dtype_name(c.input_dtype(6))) +
             "; it must be int64");
    if (c.has_input(4))
      c.fail("input nonpad_kv_seqlen cannot be combined with past_key and past_value");
    require_rank(c, 6, "nonpad_kv_seqlen", 1);
  }
  require_flag(c, "is_causal");
  const int64_t mode = c.attr_int("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3)
    c.fail("attribute 'qk_matmul_output_mode' is " + std::to_string(mode) + "; it must be 0 to 3");
  check_softmax_precision(c);

  const Value& q = c.input(0);
  const Value& k = c.input(1);
  const Value& v = c.input(2);
  if (!q.rank_known || !k.rank_known || !v.rank_known) {
    for (int o = 0; o < 4; ++o) c.set_output_unknown_rank(o, o == 2 ? t2 : t1);
    return;
  }
  if (q.rank() != 3 && q.rank() != 4)
    c.fail("input 0 (Q) has rank " + std::to_string(q.rank()) + "; it must be 3 or 4");
  if (k.rank() != q.rank() || v.rank() != q.rank())
    c.fail("inputs Q, K and V have ranks " + std::to_string(q.rank()) + ", " +
           std::to_string(k.rank()) + " and " + std::to_string(v.rank()) + "; they must match");
  const bool packed = q.rank() == 3;
  const int64_t hq_attr = positive_attr(c, "q_num_heads", packed);
  const int64_t hkv_attr = positive_attr(c, "kv_num_heads", packed);
  const Heads qh = per_head(c, 0, "Q", hq_attr, "q_num_heads");
  const Heads kh = per_head(c, 1, "K", hkv_attr, "kv_num_heads");
  const Heads vh = per_head(c, 2, "V", hkv_attr, "kv_num_heads");
  require_same_length(c, kh.batch.length, qh.batch.length, "K's batch size", "Q's");
  require_same_length(c, vh.batch.length, qh.batch.length, "V's batch size", "Q's");
  require_same_length(c, kh.size.length, qh.size.length, "K's head size", "Q's");
  require_same_length(c, vh.seq.length, kh.seq.length, "V's sequence length", "K's");
  require_same_length(c, vh.heads.length, kh.heads.length, "V's head count", "K's");
  const Length& hq = qh.heads.length;
  const Length& hkv = kh.heads.length;
  if (hq.is_static() && hkv.is_static() && (hkv.value == 0 || hq.value % hkv.value != 0))
    c.fail("Q has " + std::to_string(hq.value) + " heads, not a multiple of K's " +
           std::to_string(hkv.value) + " (grouped-query attention shares each KV head)");

  // The total sequence: past + new when a cache is given, else K's own sequence axis.
  Axis total = kh.seq;
  if (c.has_input(4)) {
    require_rank(c, 4, "past_key", 4);
    require_rank(c, 5, "past_value", 4);
    const Value& pk = c.input(4);
    const Value& pv = c.input(5);
    if (pk.rank_known) {
      require_same_length(c, pk.axes[0].length, qh.batch.length, "past_key's batch size", "Q's");
      require_same_length(c, pk.axes[1].length, hkv, "past_key's head count", "K's");
      require_same_length(c, pk.axes[3].length, kh.size.length, "past_key's head size", "K's");
      total = axis_like(c, kh.seq, sum_length(pk.axes[2].length, kh.seq.length));
    }
    if (pv.rank_known) {
      if (pk.rank_known)
        require_same_length(c, pv.axes[2].length, pk.axes[2].length, "past_value's sequence length",
                            "past_key's");
      require_same_length(c, pv.axes[3].length, vh.size.length, "past_value's head size", "V's");
    }
  }
  if (c.has_input(3) && c.input(3).rank_known) {
    const Value& m = c.input(3);
    if (m.rank() < 2 || m.rank() > 4)
      c.fail("input 3 (attn_mask) has rank " + std::to_string(m.rank()) + "; it must be 2 to 4");
    const Length& ml = m.axes[m.rank() - 2].length;
    if (ml != Length::known(1))
      require_same_length(c, ml, qh.seq.length, "attn_mask's query dim", "Q's sequence length");
  }
  if (c.has_input(6))
    require_vector_of(c, 6, "nonpad_kv_seqlen", qh.batch.length, "the batch size");

  if (packed) {
    const Axis hidden = c.new_axis(scaled_length(c, vh.size.length, hq_attr));
    c.set_output(0, t1, distinct_axes(c, {qh.batch, qh.seq, hidden}));
  } else {
    c.set_output(0, t1, distinct_axes(c, {qh.batch, qh.heads, qh.seq, vh.size}));
  }
  c.set_output(1, t1, distinct_axes(c, {qh.batch, kh.heads, total, kh.size}));
  c.set_output(2, t2, distinct_axes(c, {qh.batch, kh.heads, total, vh.size}));
  c.set_output(3, t1, distinct_axes(c, {qh.batch, qh.heads, qh.seq, total}));
}

void attention_23(RuleContext& c) { attention(c, false); }
void attention_24(RuleContext& c) { attention(c, true); }

// RotaryEmbedding-23: Y like X (B, H, S, D) or (B, S, H * D).
void rotary_embedding(RuleContext& c) {
  require_arity(c, 4, 1);
  require_nn_float(c, 0, 23, "X");
  const DType t = c.input_dtype(0);
  require_same_dtype(c, 1, "cos_cache", t, "X");
  require_same_dtype(c, 2, "sin_cache", t, "X");
  if (c.has_input(3) && c.input_dtype(3) != DType::kInt64)
    c.fail("input 3 (position_ids) has dtype " + std::string(dtype_name(c.input_dtype(3))) +
           "; it must be int64");
  require_flag(c, "interleaved");
  const int64_t heads = c.attr_int("num_heads", 0);
  const int64_t rot = c.attr_int("rotary_embedding_dim", 0);
  if (heads < 0 || rot < 0)
    c.fail("attributes 'num_heads' and 'rotary_embedding_dim' must not be negative");
  const Value& x = c.input(0);
  const bool with_ids = c.has_input(3);
  require_rank(c, 1, "cos_cache", with_ids ? 2 : 3);
  require_rank(c, 2, "sin_cache", with_ids ? 2 : 3);
  if (with_ids) require_rank(c, 3, "position_ids", 2);
  if (x.rank_known) {
    if (x.rank() != 3 && x.rank() != 4)
      c.fail("input 0 (X) has rank " + std::to_string(x.rank()) + "; it must be 3 or 4");
    if (x.rank() == 3 && heads == 0) c.fail("attribute 'num_heads' is required for a 3-D input");
    const Length head = x.rank() == 4
                            ? x.axes[3].length
                            : unpacked(c, x.axes[2].length, heads, "X's hidden size", "num_heads");
    if (head.is_static()) {
      const int64_t dim = rot == 0 ? head.value : rot;
      if (dim > head.value || dim % 2 != 0)
        c.fail("the rotary dim " + std::to_string(dim) +
               " must be even and at most the head size " + std::to_string(head.value));
      for (int i : {1, 2})
        if (c.input(i).rank_known)
          require_same_length(c, c.input(i).axes.list().back().length, Length::known(dim / 2),
                              in_name(i, i == 1 ? "cos_cache" : "sin_cache") + " last dim",
                              "half the rotary dim");
    }
  }
  same_as_input(c, 0, 0);
}

// LinearAttention-27: query (B, T, Hq * Dk), key (B, T, Hkv * Dk), value (B, T, Hkv * Dv),
// past_state (B, Hkv, Dk, Dv) -> output (B, T, Hq * Dv), present_state (B, Hkv, Dk, Dv).
void linear_attention(RuleContext& c) {
  require_arity(c, 6, 2);
  require_nn_float(c, 0, 1, "query");
  const DType t = c.input_dtype(0);
  require_same_dtype(c, 1, "key", t, "query");
  require_same_dtype(c, 2, "value", t, "query");
  if (c.has_input(3)) require_nn_float(c, 3, 1, "past_state");
  if (c.has_input(4)) require_same_dtype(c, 4, "decay", t, "query");
  if (c.has_input(5)) require_same_dtype(c, 5, "beta", t, "query");
  const DType s = c.has_input(3) ? c.input_dtype(3) : t;
  const int64_t hq = positive_attr(c, "q_num_heads", true);
  const int64_t hkv = positive_attr(c, "kv_num_heads", true);
  if (hq % hkv != 0)
    c.fail("attribute 'q_num_heads' (" + std::to_string(hq) + ") must be a multiple of " +
           "'kv_num_heads' (" + std::to_string(hkv) + ")");
  const std::string rule = c.attr_string("update_rule", "gated_delta");
  if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta")
    c.fail("attribute 'update_rule' is '" + rule +
           "'; it must be linear, gated, delta or gated_delta");
  if ((rule == "gated" || rule == "gated_delta") && !c.has_input(4))
    c.fail("update_rule '" + rule + "' needs input 4 (decay)");
  if ((rule == "delta" || rule == "gated_delta") && !c.has_input(5))
    c.fail("update_rule '" + rule + "' needs input 5 (beta)");
  if (c.attr_int("chunk_size", 64) < 1) c.fail("attribute 'chunk_size' must be >= 1");
  const char* names[] = {"query", "key", "value", "past_state", "decay", "beta"};
  for (int i = 0; i < 6; ++i)
    if (c.has_input(i)) require_rank(c, i, names[i], i == 3 ? 4 : 3);
  const Value& q = c.input(0);
  const Value& k = c.input(1);
  const Value& v = c.input(2);
  Length dk = Length::unknown(), dv = Length::unknown();
  if (q.rank_known) dk = unpacked(c, q.axes[2].length, hq, "query's hidden size", "q_num_heads");
  if (k.rank_known) {
    const Length kdk = unpacked(c, k.axes[2].length, hkv, "key's hidden size", "kv_num_heads");
    require_same_length(c, kdk, dk, "key's head size", "query's");
    if (!dk.is_static()) dk = kdk;
  }
  if (v.rank_known) dv = unpacked(c, v.axes[2].length, hkv, "value's hidden size", "kv_num_heads");
  for (int i : {1, 2, 4, 5})
    if (q.rank_known && c.has_input(i) && c.input(i).rank_known) {
      const Value& o = c.input(i);
      require_same_length(c, o.axes[0].length, q.axes[0].length, in_name(i, names[i]) + " dim 0",
                          "query's batch size");
      require_same_length(c, o.axes[1].length, q.axes[1].length, in_name(i, names[i]) + " dim 1",
                          "query's sequence length");
    }
  if (!q.rank_known) {
    c.set_output_unknown_rank(0, t);
    c.set_output_unknown_rank(1, s);
    return;
  }
  const Axis out_hidden = c.new_axis(scaled_length(c, dv, hq));
  c.set_output(0, t, distinct_axes(c, {q.axes[0], q.axes[1], out_hidden}));
  std::vector<Axis> state = {q.axes[0], c.new_axis(Length::known(hkv)), c.new_axis(dk),
                             c.new_axis(dv)};
  if (c.has_input(3) && c.input(3).rank_known) {
    const Value& past = c.input(3);
    const Length want[] = {q.axes[0].length, Length::known(hkv), dk, dv};
    for (int d = 0; d < 4; ++d)
      require_same_length(c, past.axes[d].length, want[d],
                          "input 3 (past_state) dim " + std::to_string(d),
                          "(B, kv_num_heads, Dk, Dv)'s");
    for (int d = 1; d < 4; ++d) state[d] = past.axes[d];
  }
  c.set_output(1, s, distinct_axes(c, std::move(state)));
}

}  // namespace

std::span<const RuleEntry> nn_attention_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "Attention", 23, attention_23},
      {"", "Attention", 24, attention_24},  // nonpad_kv_seqlen input
      {"", "RotaryEmbedding", 23, rotary_embedding},
      {"", "LinearAttention", 27, linear_attention},
  };
  return rules;
}

}  // namespace geon::importer
