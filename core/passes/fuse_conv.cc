// Conv + bias + residual + activation => geon.FusedConv.
#include "core/passes/fuse_conv.h"

#include <cstring>
#include <vector>

#include "core/passes/post_ops.h"

namespace geon {
namespace {

using passes::PostOps;

// Whether constant c broadcasts onto a (N, C, spatial...) output of rank r as one value per
// channel (or one value in all).
bool per_channel(const Graph& g, int c, int r, int64_t channels) {
  const Dims& s = g.value(c).data->desc.shape;
  const int k = static_cast<int>(s.size());
  if (k > r) return false;
  for (int d = 0; d < k; ++d) {
    const int at = r - k + d;  // right-aligned
    if (s[d] != 1 && !(at == 1 && s[d] == channels)) return false;
  }
  return true;
}

// B + c per channel, as a new constant of shape (C).
int folded_bias(Graph& g, int b, int c, int64_t channels, const std::string& base) {
  std::vector<float> sum(static_cast<size_t>(channels), 0.0f);
  if (b >= 0) sum = passes::float_values(g, b);
  const std::vector<float> add = passes::float_values(g, c);
  for (int64_t k = 0; k < channels; ++k)
    sum[k] += add.size() == 1 ? add[0] : add[static_cast<size_t>(k)];
  auto d = make_tensor_data(DType::kFloat, Dims{channels});
  std::memcpy(d->storage->data(), sum.data(), sum.size() * sizeof(float));
  return passes::add_constant(g, base + "/B_fused", d);
}

}  // namespace

int fuse_conv(Graph& g, std::span<const KernelSet* const> sets) {
  const std::vector<const KernelEntry*> rows = passes::fused_rows(sets, "FusedConv");
  if (rows.empty()) return 0;
  const passes::Uses uses = passes::count_uses(g);
  std::vector<bool> dead(g.nodes.size(), false);
  std::vector<std::pair<int, Node>> fused;  // (position, node)
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node conv = g.nodes[k];  // a copy: constants added below may not disturb it
    if (!passes::onnx_domain(conv) || conv.op != "Conv" || conv.outputs.size() != 1 ||
        conv.outputs[0] < 0 || conv.inputs.size() < 2)
      continue;
    const int x = conv.inputs[0], w = conv.inputs[1];
    const int b = conv.inputs.size() > 2 ? conv.inputs[2] : -1;
    if (!passes::fixed_constant(g, w) || g.value(w).dtype() != DType::kFloat) continue;
    const Value& out = g.value(conv.outputs[0]);
    if (out.dtype() != DType::kFloat || !out.rank_known || out.rank() < 3) continue;
    const int64_t channels = g.value(w).data->desc.shape[0];
    const bool b_foldable = b < 0 || passes::fixed_constant(g, b);
    const int rank = out.rank();
    PostOps p = passes::match_post_ops(
        g, uses, conv.outputs[0], [&](int c) { return per_channel(g, c, rank, channels); },
        b_foldable);
    if (p.nodes.empty()) continue;
    bool overlap = false;
    for (int m : p.nodes) overlap = overlap || dead[m];
    if (overlap || dead[k]) continue;

    int bias = b;
    if (p.bias >= 0)
      bias = folded_bias(g, b, p.bias, channels, conv.name.empty() ? "conv" : conv.name);
    const auto make = [&] {
      Node f;
      f.op = "FusedConv";
      f.domain = "geon";
      f.opset = 1;
      f.inputs = {x, w, bias, p.residual};
      while (!f.inputs.empty() && f.inputs.back() < 0 && f.inputs.size() > 2) f.inputs.pop_back();
      f.outputs = {p.out};
      for (const auto& [name, a] : conv.attrs)
        if (name != "members") f.attrs[name] = a;
      passes::set_activation(f, p.act);
      passes::name_after_members(g, f, conv, p);
      return f;
    };
    const auto supported = [&](const Node& f) { return passes::any_supports(g, rows, f); };
    Node f = make();
    // An activation the kernels refuse (GeluTanh, say) stays a node of its own after the rest.
    if (!supported(f) && passes::drop_activation(g, p) && !p.nodes.empty()) f = make();
    if (p.nodes.empty() || !supported(f)) continue;
    dead[k] = true;
    for (int m : p.nodes) dead[m] = true;
    fused.emplace_back(p.nodes.back(), std::move(f));
  }
  return passes::place_fused(g, dead, fused);
}

}  // namespace geon
