// Constant (and any node whose outputs the importer already computed) as a kernel: it copies
// the decoded contents into its output. Constant folding removes such nodes; this keeps graphs
// runnable when folding is off (optimization level 0).
#include <memory>

#include "core/desc/views.h"
#include "kernels/cpu/generic_ops.h"

namespace geon::cpu {

Reason supports_constant(const Graph& g, const Node& n) {
  if (n.outputs.size() != 1 || n.outputs[0] < 0) return "Constant must have one output";
  const Value& v = g.value(n.outputs[0]);
  if (!v.data) return "Constant: the importer decoded no value";
  if (v.dtype() == DType::kString) return "Constant: string tensors are not supported";
  return std::nullopt;
}

std::unique_ptr<Kernel> create_constant(const Graph& g, const Node& n) {
  std::shared_ptr<const TensorData> data = g.value(n.outputs[0]).data;
  return make_node_kernel(n, [data](KernelContext& ctx) {
    const TensorRef& out = ctx.output(0, data->desc.shape);
    if (data->elements() == 0) return;
    assign(dst_of(out), ConstOperand(data->desc, data->bytes()));
  });
}

}  // namespace geon::cpu
