// The optional ops: Optional (15) wraps a tensor or sequence, or makes an empty optional of the
// `type` attribute; OptionalHasElement and OptionalGetElement (15; from 18 they take plain
// tensors and sequences too, and HasElement an omitted input, which has no element).
#include "core/base/error.h"
#include "kernels/cpu/generic/sequence/lists.h"
#include "kernels/cpu/generic/sequence/ops.h"

namespace geon::cpu {
namespace {

bool input_is_list(const Graph& g, const Node& n, int i) {
  return has_input(n, i) && is_list_type(g.value(n.inputs[i]).type);
}

}  // namespace

Reason supports_optional(const Graph& g, const Node& n) {
  if (Reason r = require_arity(n, 0)) return r;
  if (Reason r = require_kind(g, n.outputs[0], true, "output")) return r;
  return std::nullopt;
}
std::unique_ptr<Kernel> create_optional(const Graph& g, const Node& n) {
  const bool given = has_input(n, 0);
  const bool list = input_is_list(g, n, 0);
  return make_kernel([=](KernelContext& ctx) {
    if (!given) {
      ctx.set_output_list(0, std::make_shared<ListValue>(ListValue{true, {}}));
    } else if (list) {
      ctx.set_output_list(0, ctx.input_list(0));  // optional(seq): the same elements
    } else {
      auto v = std::make_shared<ListValue>();
      v->items.push_back(owned_copy(ctx.input(0)));
      ctx.set_output_list(0, std::move(v));
    }
  });
}

Reason supports_optional_has_element(const Graph& g, const Node& n) {
  if (Reason r = require_arity(n, 0)) return r;
  return require_kind(g, n.outputs[0], false, "output");
}
std::unique_ptr<Kernel> create_optional_has_element(const Graph& g, const Node& n) {
  const bool given = has_input(n, 0);
  const bool optional = given && g.value(n.inputs[0]).type.kind == TypeKind::kOptional;
  return make_kernel([=](KernelContext& ctx) {
    const bool has = given && (!optional || !ctx.input_list(0)->none);
    TensorRef& out = ctx.output(0, Dims{});
    *static_cast<bool*>(out.data) = has;
  });
}

Reason supports_optional_get_element(const Graph&, const Node& n) {
  if (Reason r = require_arity(n, 1)) return r;
  return std::nullopt;
}
std::unique_ptr<Kernel> create_optional_get_element(const Graph& g, const Node& n) {
  const ValueType in = g.value(n.inputs[0]).type;
  const bool out_list = n.outputs[0] >= 0 && is_list_type(g.value(n.outputs[0]).type);
  return make_kernel([=](KernelContext& ctx) {
    if (!is_list_type(in)) {  // a plain tensor (opset 18): itself
      output_copy(ctx, 0, owned_copy(ctx.input(0)));
      return;
    }
    const ListRef v = ctx.input_list(0);
    if (v->none) fail(ErrorCode::kInvalidArgument, "the optional input has no element");
    if (in.kind == TypeKind::kSequence || out_list) {
      ctx.set_output_list(0, in.kind == TypeKind::kSequence
                                 ? v
                                 : std::make_shared<ListValue>(ListValue{false, v->items}));
      return;
    }
    output_copy(ctx, 0, v->items.at(0));
  });
}

// Identity of a sequence or optional: the same value.
std::unique_ptr<Kernel> create_list_identity() {
  return make_kernel([](KernelContext& ctx) { ctx.set_output_list(0, ctx.input_list(0)); });
}

}  // namespace geon::cpu
