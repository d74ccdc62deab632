// MatMul / Gemm + bias + residual + activation => geon.FusedMatMul.
#include "core/passes/fuse_matmul.h"

#include <vector>

#include "core/onnx/node.h"
#include "core/passes/post_ops.h"

namespace geon {
namespace {

// Whether constant c broadcasts over the last axis of an output of rank r whose last length
// is `n`: every dim 1 but the last, which is n or 1.
bool last_axis_bias(const Graph& g, int c, int r, const Length& n) {
  const Dims& s = g.value(c).data->desc.shape;
  const int k = static_cast<int>(s.size());
  if (k > r) return false;
  for (int d = 0; d + 1 < k; ++d)
    if (s[d] != 1) return false;
  return k == 0 || s[k - 1] == 1 || (n.is_static() && s[k - 1] == n.value);
}

}  // namespace

int fuse_matmul(Graph& g, std::span<const KernelSet* const> sets) {
  const std::vector<const KernelEntry*> rows = passes::fused_rows(sets, "FusedMatMul");
  if (rows.empty()) return 0;
  const passes::Uses uses = passes::count_uses(g);
  std::vector<bool> dead(g.nodes.size(), false);
  std::vector<std::pair<int, Node>> fused;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& mm = g.nodes[k];
    if (!passes::onnx_domain(mm) || (mm.op != "MatMul" && mm.op != "Gemm") ||
        mm.outputs.size() != 1 || mm.outputs[0] < 0 || mm.inputs.size() < 2 || mm.inputs[0] < 0 ||
        mm.inputs[1] < 0)
      continue;
    const Value& out = g.value(mm.outputs[0]);
    if (out.dtype() != DType::kFloat || !out.rank_known || out.rank() < 1) continue;
    int c = -1;
    float alpha = 1.0f;
    int64_t trans_b = 0;
    if (mm.op == "Gemm") {
      if (onnx::attr_int(mm, "transA", 0) != 0) continue;
      trans_b = onnx::attr_int(mm, "transB", 0) != 0 ? 1 : 0;
      alpha = onnx::attr_float(mm, "alpha", 1.0f);
      c = mm.inputs.size() > 2 ? mm.inputs[2] : -1;
      if (c >= 0 && onnx::attr_float(mm, "beta", 1.0f) != 1.0f) continue;
    } else if (mm.inputs.size() != 2) {
      continue;
    }
    const int rank = out.rank();
    const Length n = out.axes[rank - 1].length;
    passes::PostOps p = passes::match_post_ops(
        g, uses, mm.outputs[0], [&](int v) { return last_axis_bias(g, v, rank, n); }, c < 0);
    if (p.nodes.empty() || dead[k]) continue;
    bool overlap = false;
    for (int m : p.nodes) overlap = overlap || dead[m];
    if (overlap) continue;
    const auto make = [&] {
      Node f;
      f.op = "FusedMatMul";
      f.domain = "geon";
      f.opset = 1;
      f.inputs = {mm.inputs[0], mm.inputs[1], c >= 0 ? c : p.bias, p.residual};
      while (f.inputs.size() > 2 && f.inputs.back() < 0) f.inputs.pop_back();
      f.outputs = {p.out};
      f.attrs["trans_b"] = passes::int_attr(trans_b);
      f.attrs["alpha"] = passes::float_attr(alpha);
      passes::set_activation(f, p.act);
      passes::name_after_members(g, f, mm, p);
      return f;
    };
    const auto supported = [&](const Node& f) { return passes::any_supports(g, rows, f); };
    Node f = make();
    // An activation the kernels refuse stays a node of its own after the rest.
    if (!supported(f) && passes::drop_activation(g, p) && !p.nodes.empty()) f = make();
    if (p.nodes.empty() || !supported(f)) continue;
    dead[k] = true;
    for (int m : p.nodes) dead[m] = true;
    fused.emplace_back(p.nodes.back(), std::move(f));
  }
  return passes::place_fused(g, dead, fused);
}

}  // namespace geon
