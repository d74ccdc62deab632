// Attribute and constant-input readers, and the dtype checks that supports() functions share.
#include "kernels/cpu/common.h"

#include "core/base/error.h"
#include "core/engine/ops.h"

namespace geon::cpu {

int64_t attr_int(const Node& n, std::string_view name, int64_t dflt) {
  const Attribute* a = n.attr(name);
  return a ? a->i : dflt;
}

float attr_float(const Node& n, std::string_view name, float dflt) {
  const Attribute* a = n.attr(name);
  return a ? a->f : dflt;
}

std::string attr_string(const Node& n, std::string_view name, std::string dflt) {
  const Attribute* a = n.attr(name);
  return a ? a->s : dflt;
}

std::optional<std::vector<int64_t>> attr_ints(const Node& n, std::string_view name) {
  const Attribute* a = n.attr(name);
  if (!a) return std::nullopt;
  return a->ints;
}

bool has_input(const Node& n, int i) {
  return i < static_cast<int>(n.inputs.size()) && n.inputs[i] >= 0;
}

DType input_dtype(const Graph& g, const Node& n, int i) {
  return has_input(n, i) ? g.value(n.inputs[i]).dtype() : DType::kUndefined;
}

DType output_dtype(const Graph& g, const Node& n, int i) {
  return g.value(n.outputs.at(i)).dtype();
}

std::optional<std::vector<int64_t>> constant_ints(const Graph& g, const Node& n, int i) {
  if (!has_input(n, i)) return std::nullopt;
  const Value& v = g.value(n.inputs[i]);
  if (!v.data || !is_integer(v.dtype())) return std::nullopt;
  std::vector<int64_t> out(v.data->elements());
  for (int64_t k = 0; k < static_cast<int64_t>(out.size()); ++k)
    out[k] = element_as_int(*v.data, k);
  return out;
}

Reason require_constant(const Graph& g, const Node& n, int i, std::string_view what) {
  if (!has_input(n, i) || constant_ints(g, n, i)) return std::nullopt;
  return std::string(what) + " must be a constant integer tensor";
}

Reason check_engine_dtype(DType t, std::string_view what) {
  if (t == DType::kUndefined) return std::string(what) + " has no known dtype";
  if (t == DType::kString || is_complex(t))
    return std::string(what) + " is " + std::string(dtype_name(t)) +
           ", which the engine does not compute in";
  return std::nullopt;
}

Reason check_engine_op(std::string_view op, DType t) {
  if (Reason r = check_engine_dtype(t, "the input")) return r;
  const OpDef* def = find_op(op);
  if (!def) return "the engine has no op " + std::string(op);
  if (!def->fn[compute_index(compute_dtype(t))])
    return "the engine's " + std::string(op) + " does not exist for " + std::string(dtype_name(t));
  return std::nullopt;
}

}  // namespace geon::cpu
