// Import rules: linear algebra. MatMul and Gemm are dots: the contracted dims (A's K and B's K)
// must have one length and leave the output, which keeps A's row axis M and B's column axis N
// object for object; MatMul's batch dims are numpy-broadcast into one set of shared axes.
// Einsum reads its labels the same way (a label names one axis, kept when the output lists it),
// and Det drops the two matrix axes. Einsum's parsing is in linalg_einsum.cc.
#include <vector>

#include "core/axes/broadcast.h"
#include "core/base/error.h"
#include "importer/ops/common.h"
#include "importer/ops/families.h"
#include "importer/ops/linalg.h"

namespace geon::importer {

void require_linalg_dtype(RuleContext& c, int i, bool ints, int since_bf16) {
  const DType t = c.input_dtype(i);
  const bool ok = t == DType::kFloat || t == DType::kDouble || t == DType::kFloat16 ||
                  (t == DType::kBFloat16 && c.opset() >= since_bf16) ||
                  (ints && (t == DType::kInt32 || t == DType::kInt64 || t == DType::kUInt32 ||
                            t == DType::kUInt64));
  if (!ok)
    c.fail("input " + std::to_string(i) + " has dtype " + std::string(dtype_name(t)) + ", which " +
           std::string(c.node().op) + "-" + std::to_string(c.opset()) + " does not accept");
}

Axes broadcast_or_fail(RuleContext& c, const std::vector<Axes>& operands) {
  try {
    return broadcast_axes(operands, c.graph().factory()).out;
  } catch (const Error& e) {
    c.fail(e.what());
  }
}

namespace {

// ---- MatMul -------------------------------------------------------------------------------

// numpy matmul: A [..., M, K] x B [..., K, N] -> [..., M, N]; a 1-D A is [K] (no M), a 1-D B
// is [K] (no N); the batch dims broadcast.
void matmul(RuleContext& c) {
  const DType t = common_dtype(c, {0, 1});
  require_linalg_dtype(c, 0, c.opset() >= 9, 13);
  const Value& a = c.input(0);
  const Value& b = c.input(1);
  if (!a.rank_known || !b.rank_known) {
    c.set_output_unknown_rank(0, t);
    return;
  }
  const int ra = a.rank(), rb = b.rank();
  c.require(ra >= 1, "input 0 (A) must have rank >= 1, got a scalar");
  c.require(rb >= 1, "input 1 (B) must have rank >= 1, got a scalar");
  const Axis& ka = a.axes[ra - 1];
  const Axis& kb = rb == 1 ? b.axes[0] : b.axes[rb - 2];
  require_same_length(c, ka.length, kb.length,
                      "the contracted dim (last) of input 0 (A) " + to_string_with_lengths(a.axes),
                      std::string("the contracted dim (") + (rb == 1 ? "only" : "second to last") +
                          ") of input 1 (B) " + to_string_with_lengths(b.axes));
  const std::vector<Axis> batch_a(a.axes.begin(), a.axes.end() - std::min(ra, 2));
  const std::vector<Axis> batch_b(b.axes.begin(), b.axes.end() - std::min(rb, 2));
  std::vector<Axis> out;
  if (!batch_a.empty() || !batch_b.empty())
    out = broadcast_or_fail(c, {Axes(batch_a), Axes(batch_b)}).list();
  if (ra >= 2) out.push_back(a.axes[ra - 2]);
  if (rb >= 2) out.push_back(b.axes[rb - 1]);
  c.set_output(0, t, distinct_axes(c, std::move(out)));
}

// ---- Gemm ---------------------------------------------------------------------------------

// Y = alpha * A' B' + beta * C with A' [M, K], B' [K, N]; C broadcasts to [M, N] (from opset 7
// always, one-way; before, only with the `broadcast` attribute, else it must be [M, N]).
void gemm(RuleContext& c) {
  const DType t = common_dtype(c);
  require_linalg_dtype(c, 0, c.opset() >= 9, 13);
  if (c.opset() < 11) c.input(2);  // C is required before opset 11
  const bool trans_a = c.attr_int("transA", 0) != 0, trans_b = c.attr_int("transB", 0) != 0;
  c.attr_float("alpha", 1.0f);
  c.attr_float("beta", 1.0f);
  if (c.opset() >= 7)
    c.require(!c.has_attr("broadcast"), "attribute 'broadcast' was removed in opset 7");
  const Value& a = c.input(0);
  const Value& b = c.input(1);
  for (int i : {0, 1}) {
    const Value& v = c.input(i);
    if (v.rank_known)
      c.require(v.rank() == 2, "input " + std::to_string(i) + (i == 0 ? " (A)" : " (B)") +
                                   " must be 2-D, got " + to_string_with_lengths(v.axes));
  }
  const Axis m = a.rank_known ? a.axes[trans_a ? 1 : 0] : c.new_axis(Length::unknown());
  const Axis n = b.rank_known ? b.axes[trans_b ? 0 : 1] : c.new_axis(Length::unknown());
  if (a.rank_known && b.rank_known)
    require_same_length(c, a.axes[trans_a ? 0 : 1].length, b.axes[trans_b ? 1 : 0].length,
                        std::string("the contracted dim of input 0 (A") + (trans_a ? "^T" : "") +
                            ") " + to_string_with_lengths(a.axes),
                        std::string("that of input 1 (B") + (trans_b ? "^T" : "") + ") " +
                            to_string_with_lengths(b.axes));
  const Axes out = distinct_axes(c, {m, n});
  if (c.has_input(2) && c.input(2).rank_known) {
    const Value& cv = c.input(2);
    const bool exact = c.opset() < 7 && c.attr_int("broadcast", 0) == 0;
    if (exact) {
      c.require(cv.rank() == 2, "input 2 (C) must be [M, N] without attribute 'broadcast', got " +
                                    to_string_with_lengths(cv.axes));
    } else {
      c.require(cv.rank() <= 2,
                "input 2 (C) must broadcast to [M, N], got " + to_string_with_lengths(cv.axes));
    }
    for (int d = 0; d < cv.rank(); ++d) {
      const Length& len = cv.axes[d].length;
      const Length& want = out[2 - cv.rank() + d].length;
      if (!exact && len.is_static() && len.value == 1) continue;
      require_same_length(c, len, want, "dim " + std::to_string(d) + " of input 2 (C)",
                          std::string("the output's ") + (2 - cv.rank() + d == 0 ? "M" : "N"));
    }
  }
  c.set_output(0, t, out);
}

// ---- Det --------------------------------------------------------------------------------------

void det(RuleContext& c) {
  require_linalg_dtype(c, 0, false, 22);
  const Value& x = c.input(0);
  if (!x.rank_known) {
    c.set_output_unknown_rank(0, x.dtype());
    return;
  }
  const int r = x.rank();
  c.require(r >= 2,
            "input 0 must have rank >= 2 ([*, M, M]), got " + to_string_with_lengths(x.axes));
  require_same_length(c, x.axes[r - 2].length, x.axes[r - 1].length,
                      "the rows of input 0 " + to_string_with_lengths(x.axes), "its columns");
  c.set_output(0, x.dtype(), Axes(std::vector<Axis>(x.axes.begin(), x.axes.end() - 2)));
}

}  // namespace

std::span<const RuleEntry> linalg_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "MatMul", 1, matmul},
      {"", "MatMul", 9, matmul},  // integer types
      {"", "Gemm", 1, gemm},
      {"", "Gemm", 7, gemm},   // one-way broadcast of C, no 'broadcast'
                               // attribute
      {"", "Gemm", 9, gemm},   // integer types
      {"", "Gemm", 11, gemm},  // C optional
      {"", "Einsum", 12, einsum},
      {"", "Det", 11, det},
      {"", "Det", 22, det},  // bfloat16
  };
  return rules;
}

}  // namespace geon::importer
