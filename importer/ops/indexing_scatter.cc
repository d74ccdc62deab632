// Import rules: Scatter, ScatterElements, ScatterND and TensorScatter. Each writes into a copy
// of its data input, so the output has the data's very axes; the rules check that indices and
// updates fit the data and that the `reduction` attribute is one the node's opset defines.
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/indexing.h"

namespace geon::importer {
namespace {

// `reduction` is an attribute from opset 16 ("none", "add", "mul"); 18 adds "max" and "min".
void check_reduction(RuleContext& c) {
  if (c.opset() < 16) {
    c.require(!c.has_attr("reduction"), "attribute 'reduction' needs opset 16 or later");
    return;
  }
  const std::string r = c.attr_string("reduction", "none");
  const bool ok =
      r == "none" || r == "add" || r == "mul" || (c.opset() >= 18 && (r == "max" || r == "min"));
  c.require(ok, "attribute 'reduction' is '" + r + "', must be one of none, add, mul" +
                    (c.opset() >= 18 ? ", max, min" : " (max and min need opset 18)"));
}

bool ranks_known(RuleContext& c, std::initializer_list<int> which) {
  for (int i : which)
    if (!c.input(i).rank_known) return false;
  return true;
}

// Scatter (opset 9-10) and ScatterElements: data, indices and updates of one rank; indices and
// updates of one shape.
void scatter_elements(RuleContext& c) {
  require_index_dtype(c, 1, "indices");
  const DType t = common_dtype(c, {0, 2});
  check_reduction(c);
  if (ranks_known(c, {0, 1, 2})) {
    const Value& data = c.input(0);
    const Value& indices = c.input(1);
    const Value& updates = c.input(2);
    const int r = data.rank();
    c.require(r >= 1, "input 0 (data) must have rank >= 1, got a scalar");
    for (int i : {1, 2})
      c.require(c.input(i).rank() == r,
                "input " + std::to_string(i) + " has rank " + std::to_string(c.input(i).rank()) +
                    " but input 0 (data) has rank " + std::to_string(r) + "; they must match");
    for (int d = 0; d < r; ++d)
      require_same_length(c, updates.axes[d].length, indices.axes[d].length,
                          "dim " + std::to_string(d) + " of input 2 (updates)",
                          "that of input 1 (indices)");
    c.normalize_axis(c.attr_int("axis", 0), r, "attribute 'axis'");
  }
  same_as_input(c, 0, 0, t);
}

void scatter_deprecated(RuleContext& c) {
  c.fail("Scatter is deprecated since opset 11; use ScatterElements");
}

// ScatterND: updates.shape == indices.shape[:-1] ++ data.shape[k:], k = indices.shape[-1].
void scatter_nd(RuleContext& c) {
  require_dtype(c, 1, {DType::kInt64});
  const DType t = common_dtype(c, {0, 2});
  check_reduction(c);
  if (ranks_known(c, {0, 1, 2})) {
    const Value& data = c.input(0);
    const Value& indices = c.input(1);
    const Value& updates = c.input(2);
    const int r = data.rank(), q = indices.rank();
    c.require(r >= 1, "input 0 (data) must have rank >= 1, got a scalar");
    c.require(q >= 1, "input 1 (indices) must have rank >= 1, got a scalar");
    const Length& last = indices.axes[q - 1].length;
    if (last.is_static()) {
      const int64_t k = last.value;
      c.require(k <= r, "the last dim of input 1 (indices) is " + std::to_string(k) +
                            ", more than the rank " + std::to_string(r) + " of input 0 (data)");
      const int64_t want = q - 1 + r - k;
      c.require(updates.rank() == want, "input 2 (updates) has rank " +
                                            std::to_string(updates.rank()) + ", must be " +
                                            std::to_string(want) + " (indices rank - 1 + data " +
                                            "rank - indices.shape[-1])");
      for (int d = 0; d < q - 1; ++d)
        require_same_length(c, updates.axes[d].length, indices.axes[d].length,
                            "dim " + std::to_string(d) + " of input 2 (updates)",
                            "that of input 1 (indices)");
      for (int d = q - 1; d < want; ++d)
        require_same_length(c, updates.axes[d].length, data.axes[d - (q - 1) + k].length,
                            "dim " + std::to_string(d) + " of input 2 (updates)",
                            "dim " + std::to_string(d - (q - 1) + k) + " of input 0 (data)");
    }
  }
  same_as_input(c, 0, 0, t);
}

// TensorScatter (opset 24): past_cache and update differ only along `axis` (the sequence),
// where update is no longer; write_indices holds one start per batch entry (dim 0).
void tensor_scatter(RuleContext& c) {
  const DType t = common_dtype(c, {0, 1});
  const std::string mode = c.attr_string("mode", "linear");
  c.require(mode == "linear" || mode == "circular",
            "attribute 'mode' is '" + mode + "', must be linear or circular");
  if (c.has_input(2)) require_dtype(c, 2, {DType::kInt64});
  const Value& past = c.input(0);
  const Value& update = c.input(1);
  if (past.rank_known) {
    const int r = past.rank();
    const int axis = c.normalize_axis(c.attr_int("axis", -2), r, "attribute 'axis'");
    c.require(axis >= 1,
              "attribute 'axis' names dim 0, the batch dim; the sequence dim must "
              "come after it");
    if (update.rank_known) {
      c.require(update.rank() == r, "input 1 (update) has rank " + std::to_string(update.rank()) +
                                        " but input 0 (past_cache) has rank " + std::to_string(r) +
                                        "; they must match");
      for (int d = 0; d < r; ++d) {
        const Length& u = update.axes[d].length;
        const Length& p = past.axes[d].length;
        if (d != axis) {
          require_same_length(c, u, p, "dim " + std::to_string(d) + " of input 1 (update)",
                              "that of input 0 (past_cache)");
        } else if (u.is_static() && p.is_static()) {
          c.require(u.value <= p.value, "input 1 (update) has " + std::to_string(u.value) +
                                            " entries along axis " + std::to_string(axis) +
                                            ", more than the " + std::to_string(p.value) +
                                            " of input 0 (past_cache)");
        }
      }
    }
    if (c.has_input(2) && c.input(2).rank_known) {
      const Value& w = c.input(2);
      c.require(w.rank() == 1,
                "input 2 (write_indices) must be 1-D, got " + to_string_with_lengths(w.axes));
      require_same_length(c, w.axes[0].length, past.axes[0].length, "input 2 (write_indices)",
                          "the batch dim of input 0 (past_cache)");
    }
  }
  same_as_input(c, 0, 0, t);
}

}  // namespace

std::span<const RuleEntry> scatter_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "Scatter", 9, scatter_elements},
      {"", "Scatter", 11, scatter_deprecated},
      {"", "ScatterElements", 11, scatter_elements},
      {"", "ScatterElements", 16, scatter_elements},  // reduction none/add/mul
      {"", "ScatterElements", 18, scatter_elements},  // reduction max/min
      {"", "ScatterND", 11, scatter_nd},
      {"", "ScatterND", 16, scatter_nd},
      {"", "ScatterND", 18, scatter_nd},
      {"", "TensorScatter", 24, tensor_scatter},
  };
  return rules;
}

}  // namespace geon::importer
