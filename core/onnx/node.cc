// Attribute and input readers over core::Node, and the engine dtype rule.
#include "core/onnx/node.h"

#include "core/graph/tensor_data.h"

namespace geon::onnx {

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
  return i >= 0 && i < static_cast<int>(n.inputs.size()) && n.inputs[i] >= 0;
}

int present_inputs(const Node& n) {
  int k = 0;
  for (int i = 0; i < static_cast<int>(n.inputs.size()); ++i) k += has_input(n, i) ? 1 : 0;
  return k;
}

DType input_dtype(const Graph& g, const Node& n, int i) {
  return has_input(n, i) ? g.value(n.inputs[i]).dtype() : DType::kUndefined;
}

DType output_dtype(const Graph& g, const Node& n, int i) {
  if (i < 0 || i >= static_cast<int>(n.outputs.size()) || n.outputs[i] < 0)
    return DType::kUndefined;
  return g.value(n.outputs[i]).dtype();
}

std::optional<int> input_rank(const Graph& g, const Node& n, int i) {
  if (!has_input(n, i)) return std::nullopt;
  const Value& v = g.value(n.inputs[i]);
  if (!v.rank_known) return std::nullopt;
  return v.rank();
}

std::optional<std::vector<int64_t>> constant_ints(const Graph& g, const Node& n, int i) {
  if (!has_input(n, i)) return std::nullopt;
  const Value& v = g.value(n.inputs[i]);
  if (!v.data || !is_integer(v.dtype())) return std::nullopt;
  std::vector<int64_t> out(static_cast<size_t>(v.data->elements()));
  for (int64_t k = 0; k < static_cast<int64_t>(out.size()); ++k)
    out[k] = element_as_int(*v.data, k);
  return out;
}

Reason engine_dtype_reason(DType t, std::string_view what) {
  if (t == DType::kUndefined) return std::string(what) + " has no known dtype";
  if (t == DType::kString || is_complex(t))
    return std::string(what) + " is " + std::string(dtype_name(t)) +
           ", which the engine does not compute in";
  return std::nullopt;
}

namespace {

// A sequence or optional carries its elements' dtype, so the dtype check alone would let an
// engine kernel take a value that is not one tensor (the CUDA set's Identity did, and then
// found a host sequence where it expected device memory).
Reason engine_value_reason(const Value& v, const std::string& what) {
  if (v.type.kind != TypeKind::kTensor)
    return what + " is " + to_string(v.type) +
           ", not a tensor: the engine computes on tensors only";
  return engine_dtype_reason(v.dtype(), what);
}

}  // namespace

Reason engine_io_reason(const Graph& g, const Node& n) {
  for (int i = 0; i < static_cast<int>(n.inputs.size()); ++i)
    if (has_input(n, i))
      if (Reason r = engine_value_reason(g.value(n.inputs[i]), "input " + std::to_string(i)))
        return r;
  for (int i = 0; i < static_cast<int>(n.outputs.size()); ++i)
    if (n.outputs[i] >= 0)
      if (Reason r = engine_value_reason(g.value(n.outputs[i]), "output " + std::to_string(i)))
        return r;
  return std::nullopt;
}

}  // namespace geon::onnx
