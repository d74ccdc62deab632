// The CPU-specific checks that supports() functions share.
#include "kernels/cpu/common.h"

#include "core/base/error.h"
#include "core/engine/ops.h"

namespace geon::cpu {

Reason require_constant(const Graph& g, const Node& n, int i, std::string_view what) {
  if (!has_input(n, i) || constant_ints(g, n, i)) return std::nullopt;
  return std::string(what) + " must be a constant integer tensor";
}

Reason check_engine_op(std::string_view op, DType t) {
  if (Reason r = engine_dtype_reason(t, "the input")) return r;
  const OpDef* def = find_op(op);
  if (!def) return "the engine has no op " + std::string(op);
  if (!def->fn[compute_index(compute_dtype(t))])
    return "the engine's " + std::string(op) + " does not exist for " + std::string(dtype_name(t));
  return std::nullopt;
}

}  // namespace geon::cpu
