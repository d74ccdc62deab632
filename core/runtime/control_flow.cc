// If, and the helpers Loop and Scan share: bodies compiled as nested executables, run inside
// the enclosing run so that captured values bind by name, results copied into node outputs.
#include "core/runtime/control_flow.h"

#include <cstring>
#include <numeric>

#include "core/base/error.h"
#include "core/buffer/device_copy.h"

namespace geon {

std::unique_ptr<ExecutableImpl> compile_body(const Node& n, const char* name,
                                             std::span<const KernelSet* const> sets,
                                             const ExecutorOptions& options,
                                             ExecClock::time_point origin) {
  const Attribute* a = n.attr(name);
  if (!a || a->kind != Attribute::Kind::kGraph || !a->g)
    fail(ErrorCode::kInvalidArgument, "attribute '" + std::string(name) + "' must be a graph");
  // Bodies run inside the enclosing run, on its thread and so on its pool: none of their own.
  ExecutorOptions inner = options;
  inner.threads = 0;
  inner.pool = nullptr;
  try {
    return compile_executable(a->g, sets, inner, origin);
  } catch (const Error& e) {
    throw Error(e.code(), "body '" + std::string(name) + "': " + e.what());
  }
}

std::vector<OwnedTensor> run_body(const ExecutableImpl& body, std::span<const TensorRef> inputs,
                                  NodeContext& ctx, std::span<const ListRef> lists) {
  std::vector<int> all(body.graph().outputs.size());
  std::iota(all.begin(), all.end(), 0);
  return body.run_in(inputs, &ctx.state(), all, {}, lists);
}

int64_t read_scalar(const TensorRef& t, const std::string& what) {
  if (t.device.kind != DeviceKind::kHost) fail(ErrorCode::kInternal, what + " is not on the host");
  if (element_count(t.desc) != 1)
    fail(ErrorCode::kInvalidArgument, what + " must hold one element, got " + to_string(t.desc));
  const auto* p = static_cast<const std::byte*>(t.data);
  switch (t.desc.dtype) {
    case DType::kBool:
    case DType::kUInt8:
      return p[t.desc.offset] != std::byte{0} ? 1 : 0;
    case DType::kInt32: {
      int32_t x;
      std::memcpy(&x, p + t.desc.offset * 4, sizeof x);
      return x;
    }
    case DType::kInt64: {
      int64_t x;
      std::memcpy(&x, p + t.desc.offset * 8, sizeof x);
      return x;
    }
    default:
      fail(ErrorCode::kInvalidArgument,
           what + " must be bool or an integer, got " + std::string(dtype_name(t.desc.dtype)));
  }
}

size_t dense_bytes(const TensorDesc& d) {
  return static_cast<size_t>(dtype_bytes_for(d.dtype, element_count(d)));
}

void emit(NodeContext& ctx, int i, const TensorRef& src) {
  TensorRef& dst = ctx.output(i, src.desc.shape);
  if (dst.desc.dtype != src.desc.dtype)
    fail(ErrorCode::kInvalidArgument,
         "output " + std::to_string(i) + " is " + std::string(dtype_name(dst.desc.dtype)) +
             " but the body gives " + std::string(dtype_name(src.desc.dtype)));
  if (!is_contiguous(src.desc))
    fail(ErrorCode::kInternal, "a body result is strided: " + to_string(src.desc));
  const auto* from =
      static_cast<const std::byte*>(src.data) + dtype_bytes_for(src.desc.dtype, src.desc.offset);
  copy_bytes(dst.data, dst.device, from, src.device, dense_bytes(src.desc));
}

void emit_value(NodeContext& ctx, int i, const OwnedTensor& result) {
  const int v = ctx.node().outputs.at(i);
  if (v < 0) return;
  const ValueType& want = ctx.state().c.graph->values[v].type;
  if (is_list_type(want)) {
    if (result.list) {
      ctx.set_output_list(i, result.list);
    } else {
      auto wrapped = std::make_shared<ListValue>();
      wrapped->items.push_back(result);
      ctx.set_output_list(i, std::move(wrapped));
    }
    return;
  }
  if (!result.list) {
    emit(ctx, i, ref_of(result));
    return;
  }
  if (result.list->none || result.list->items.size() != 1)
    fail(ErrorCode::kInvalidArgument,
         "output " + std::to_string(i) + " is a tensor but the body gives a sequence or none");
  emit(ctx, i, ref_of(result.list->items[0]));
}

void require_tensor_io(const Graph& g, const Node& n, bool lists) {
  auto check = [&](int v) {
    if (v < 0) return;
    const Value& val = g.values[v];
    if (lists && is_list_type(val.type)) return;
    if (val.type.kind != TypeKind::kTensor && val.type.kind != TypeKind::kUnknown)
      fail(ErrorCode::kNotSupported, "'" + val.name + "' is a " + to_string(val.type) +
                                         "; the executor runs control flow on tensors only");
  };
  for (int v : n.inputs) check(v);
  for (int v : n.outputs) check(v);
}

namespace {

class IfFlow final : public ControlFlow {
 public:
  IfFlow(std::unique_ptr<ExecutableImpl> then_body, std::unique_ptr<ExecutableImpl> else_body)
      : then_(std::move(then_body)), else_(std::move(else_body)) {}

  void run(NodeContext& ctx) const override {
    const bool cond = read_scalar(ctx.input(0), "cond") != 0;
    const ExecutableImpl& body = cond ? *then_ : *else_;
    const std::vector<OwnedTensor> outs = run_body(body, {}, ctx);
    for (int i = 0; i < ctx.num_outputs(); ++i) emit_value(ctx, i, outs[i]);
  }
  std::vector<const ExecutableImpl*> bodies() const override { return {then_.get(), else_.get()}; }

 private:
  std::unique_ptr<ExecutableImpl> then_, else_;
};

}  // namespace

std::unique_ptr<ControlFlow> make_if(const Graph& g, const Node& n,
                                     std::span<const KernelSet* const> sets,
                                     const ExecutorOptions& options, ExecClock::time_point origin) {
  require(n.inputs.size() == 1 && n.inputs[0] >= 0, "If takes exactly one input, the condition");
  require_tensor_io(g, n, true);
  auto then_body = compile_body(n, "then_branch", sets, options, origin);
  auto else_body = compile_body(n, "else_branch", sets, options, origin);
  for (const ExecutableImpl* b : {then_body.get(), else_body.get()}) {
    require(b->graph().inputs.empty(), "an If branch takes no inputs");
    require(b->graph().outputs.size() == n.outputs.size(), [&] {
      return "the branches must give " + std::to_string(n.outputs.size()) +
             " outputs, one per node output; a branch gives " +
             std::to_string(b->graph().outputs.size());
    });
  }
  return std::make_unique<IfFlow>(std::move(then_body), std::move(else_body));
}

std::unique_ptr<ControlFlow> make_control_flow(const Graph& g, const Node& n,
                                               std::span<const KernelSet* const> sets,
                                               const ExecutorOptions& options,
                                               ExecClock::time_point origin) {
  if (n.op == "If") return make_if(g, n, sets, options, origin);
  if (n.op == "Loop") return make_loop(g, n, sets, options, origin);
  if (n.op == "SequenceMap") return make_sequence_map(g, n, sets, options, origin);
  return make_scan(g, n, sets, options, origin);
}

}  // namespace geon
