// The sequence ops (opset 11): SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceErase,
// SequenceAt, SequenceLength. Lists are immutable (values.h): an insert or erase builds a new
// element list sharing the tensors of its source; tensors entering a list are copied once.
#include <string>

#include "core/base/error.h"
#include "kernels/cpu/generic/sequence/lists.h"
#include "kernels/cpu/generic/sequence/ops.h"

namespace geon::cpu {

Reason supports_sequence_empty(const Graph& g, const Node& n) {
  if (Reason r = require_arity(n, 0)) return r;
  if (Reason r = require_kind(g, n.outputs[0], true, "output")) return r;
  return std::nullopt;
}
std::unique_ptr<Kernel> create_sequence_empty(const Graph&, const Node&) {
  return make_kernel(
      [](KernelContext& ctx) { ctx.set_output_list(0, std::make_shared<ListValue>()); });
}

Reason supports_sequence_construct(const Graph& g, const Node& n) {
  if (Reason r = require_arity(n, n.inputs.size())) return r;
  if (Reason r = require_kind(g, n.outputs[0], true, "output")) return r;
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (Reason r = require_kind(g, n.inputs[i], false, "input " + std::to_string(i))) return r;
  return std::nullopt;
}
std::unique_ptr<Kernel> create_sequence_construct(const Graph&, const Node&) {
  return make_kernel([](KernelContext& ctx) {
    auto list = std::make_shared<ListValue>();
    for (int i = 0; i < ctx.num_inputs(); ++i) list->items.push_back(owned_copy(ctx.input(i)));
    ctx.set_output_list(0, std::move(list));
  });
}

Reason supports_sequence_insert(const Graph& g, const Node& n) {
  if (Reason r = require_arity(n, 2)) return r;
  if (Reason r = require_kind(g, n.outputs[0], true, "output")) return r;
  if (Reason r = require_kind(g, n.inputs.at(0), true, "input_sequence")) return r;
  return require_kind(g, n.inputs.at(1), false, "tensor");
}
std::unique_ptr<Kernel> create_sequence_insert(const Graph&, const Node&) {
  return make_kernel([](KernelContext& ctx) {
    const ListRef in = ctx.input_list(0);
    const auto size = static_cast<int64_t>(in->items.size());
    const int64_t at = ctx.num_inputs() > 2 && ctx.input(2).data
                           ? list_position(ctx.input(2), size, true, "position")
                           : size;
    auto list = std::make_shared<ListValue>(*in);
    list->items.insert(list->items.begin() + at, owned_copy(ctx.input(1)));
    ctx.set_output_list(0, std::move(list));
  });
}

Reason supports_sequence_erase(const Graph& g, const Node& n) {
  if (Reason r = require_arity(n, 1)) return r;
  if (Reason r = require_kind(g, n.outputs[0], true, "output")) return r;
  return require_kind(g, n.inputs.at(0), true, "input_sequence");
}
std::unique_ptr<Kernel> create_sequence_erase(const Graph&, const Node&) {
  return make_kernel([](KernelContext& ctx) {
    const ListRef in = ctx.input_list(0);
    const auto size = static_cast<int64_t>(in->items.size());
    if (size == 0) fail(ErrorCode::kInvalidArgument, "cannot erase from an empty sequence");
    const int64_t at = ctx.num_inputs() > 1 && ctx.input(1).data
                           ? list_position(ctx.input(1), size, false, "position")
                           : size - 1;
    auto list = std::make_shared<ListValue>(*in);
    list->items.erase(list->items.begin() + at);
    ctx.set_output_list(0, std::move(list));
  });
}

Reason supports_sequence_at(const Graph& g, const Node& n) {
  if (Reason r = require_arity(n, 2)) return r;
  if (Reason r = require_kind(g, n.outputs[0], false, "output")) return r;
  return require_kind(g, n.inputs.at(0), true, "input_sequence");
}
std::unique_ptr<Kernel> create_sequence_at(const Graph&, const Node&) {
  return make_kernel([](KernelContext& ctx) {
    const ListRef in = ctx.input_list(0);
    const auto size = static_cast<int64_t>(in->items.size());
    output_copy(ctx, 0, in->items[list_position(ctx.input(1), size, false, "position")]);
  });
}

Reason supports_sequence_length(const Graph& g, const Node& n) {
  if (Reason r = require_arity(n, 1)) return r;
  if (Reason r = require_kind(g, n.outputs[0], false, "output")) return r;
  return require_kind(g, n.inputs.at(0), true, "input_sequence");
}
std::unique_ptr<Kernel> create_sequence_length(const Graph&, const Node&) {
  return make_kernel([](KernelContext& ctx) {
    TensorRef& out = ctx.output(0, Dims{});
    *static_cast<int64_t*>(out.data) = static_cast<int64_t>(ctx.input_list(0)->items.size());
  });
}

}  // namespace geon::cpu
