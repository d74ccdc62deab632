#include "kernels/cpu/generic/sequence/lists.h"

#include <string>

#include "core/base/error.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {

OwnedTensor owned_copy(const TensorRef& t) {
  const TensorDesc desc = row_major(t.desc.dtype, t.desc.shape);
  const auto bytes = static_cast<size_t>(dtype_bytes_for(desc.dtype, element_count(desc)));
  if (bytes == 0) return {desc, nullptr};
  auto storage = std::make_shared<Storage>(host_allocator(), bytes);
  assign(Operand{desc, storage->data()}, src_of(t));
  return {desc, std::move(storage)};
}

void output_copy(KernelContext& ctx, int i, const OwnedTensor& t) {
  TensorRef& out = ctx.output(i, t.desc.shape);
  if (element_count(t.desc) > 0) assign(dst_of(out), src_of(ref_of(t)));
}

int64_t list_position(const TensorRef& t, int64_t size, bool inclusive, std::string_view what) {
  const std::vector<int64_t> v = read_ints(t, what);
  // A scalar by the spec; a one-element tensor is taken too (the backend data feeds one).
  if (v.size() != 1 || t.desc.shape.size() > 1)
    fail(ErrorCode::kInvalidArgument, std::string(what) + " must be a scalar");
  const int64_t hi = inclusive ? size : size - 1;
  if (v[0] < -size || v[0] > hi)
    fail(ErrorCode::kInvalidArgument, std::string(what) + " " + std::to_string(v[0]) +
                                          " is out of range [" + std::to_string(-size) + ", " +
                                          std::to_string(hi) + "] for a sequence of " +
                                          std::to_string(size));
  return v[0] < 0 ? v[0] + size : v[0];
}

Reason require_arity(const Node& n, size_t inputs) {
  if (n.inputs.size() < inputs) return "needs " + std::to_string(inputs) + " input(s)";
  for (size_t i = 0; i < inputs; ++i)
    if (n.inputs[i] < 0) return "input " + std::to_string(i) + " may not be omitted";
  if (n.outputs.empty()) return std::string("needs an output");
  return std::nullopt;
}

Reason require_kind(const Graph& g, int v, bool list, std::string_view what) {
  if (v < 0) return std::nullopt;
  const Value& val = g.value(v);
  if (is_list_type(val.type) != list)
    return std::string(what) + " is a " + to_string(val.type) + "; expected " +
           (list ? "a sequence or optional" : "a tensor");
  return std::nullopt;
}

}  // namespace geon::cpu
