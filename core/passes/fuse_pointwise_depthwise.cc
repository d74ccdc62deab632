// 1x1 Conv / FusedConv -> depthwise Conv / FusedConv => geon.FusedPointwiseDepthwise.
#include "core/passes/fuse_pointwise_depthwise.h"

#include <string>
#include <string_view>
#include <vector>

#include "core/passes/graph_edit.h"
#include "core/passes/post_ops.h"

namespace geon {
namespace {

constexpr std::string_view kPrefix = "dw_";

bool is_conv(const Node& n) {
  return (passes::onnx_domain(n) && n.op == "Conv") || (n.domain == "geon" && n.op == "FusedConv");
}

// A convolution with one output, a fixed float weight of rank 4 and no residual Z.
bool plain_conv(const Graph& g, const Node& n) {
  if (!is_conv(n) || n.outputs.size() != 1 || n.outputs[0] < 0 || n.inputs.size() < 2 ||
      n.inputs[0] < 0)
    return false;
  if (n.inputs.size() > 3 && n.inputs[3] >= 0) return false;
  const int w = n.inputs[1];
  return passes::fixed_constant(g, w) && g.value(w).dtype() == DType::kFloat &&
         g.value(w).data->desc.rank() == 4;
}

int64_t group_of(const Node& n) {
  const Attribute* a = n.attr("group");
  return a && a->kind == Attribute::Kind::kInt ? a->i : 1;
}

int bias_of(const Node& n) { return n.inputs.size() > 2 ? n.inputs[2] : -1; }

Node side(const Node& fused, bool depthwise) {
  Node s;
  s.name = fused.name;
  s.op = "FusedConv";
  s.domain = "geon";
  s.opset = 1;
  const auto in = [&](size_t i) { return i < fused.inputs.size() ? fused.inputs[i] : -1; };
  s.inputs = depthwise ? std::vector<int>{-1, in(3), in(4)} : std::vector<int>{in(0), in(1), in(2)};
  for (const auto& [name, a] : fused.attrs) {
    if (name == "members") continue;
    const bool prefixed = name.compare(0, kPrefix.size(), kPrefix) == 0;
    if (prefixed == depthwise) s.attrs[prefixed ? name.substr(kPrefix.size()) : name] = a;
  }
  return s;
}

}  // namespace

Node pointwise_side(const Node& fused) { return side(fused, false); }
Node depthwise_side(const Node& fused) { return side(fused, true); }

int fuse_pointwise_depthwise(Graph& g, std::span<const KernelSet* const> sets) {
  const std::vector<const KernelEntry*> rows = passes::fused_rows(sets, "FusedPointwiseDepthwise");
  if (rows.empty()) return 0;
  const passes::Uses uses = passes::count_uses(g);
  std::vector<bool> dead(g.nodes.size(), false);
  std::vector<std::pair<int, Node>> fused;  // (position, node)
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& dw = g.nodes[k];
    if (!plain_conv(g, dw)) continue;
    const Dims& w2 = g.value(dw.inputs[1]).data->desc.shape;
    // Depthwise: one input channel a group, as many groups as output channels.
    if (w2[1] != 1 || w2[0] < 2 || group_of(dw) != w2[0]) continue;
    const int mid = dw.inputs[0];
    const Node* pw = passes::producer_of(g, mid);
    if (!pw || !uses.internal_single(mid) || !plain_conv(g, *pw) || group_of(*pw) != 1) continue;
    const Dims& w1 = g.value(pw->inputs[1]).data->desc.shape;
    if (w1[0] != w2[0] || w1[2] != 1 || w1[3] != 1) continue;
    const int pw_at = static_cast<int>(pw - g.nodes.data());
    if (dead[pw_at] || dead[k]) continue;

    Node f;
    f.op = "FusedPointwiseDepthwise";
    f.domain = "geon";
    f.opset = 1;
    f.inputs = {pw->inputs[0], pw->inputs[1], bias_of(*pw), dw.inputs[1], bias_of(dw)};
    f.outputs = dw.outputs;
    for (const auto& [name, a] : pw->attrs)
      if (name != "members") f.attrs[name] = a;
    for (const auto& [name, a] : dw.attrs)
      if (name != "members") f.attrs[std::string(kPrefix) + name] = a;
    const Node* members[] = {pw, &dw};
    f.name = passes::fused_name(members);
    f.attrs["members"] = passes::strings_attr(passes::members_of(members));
    if (!passes::any_supports(g, rows, f)) continue;
    dead[pw_at] = true;
    dead[k] = true;
    fused.emplace_back(static_cast<int>(k), std::move(f));
  }
  return passes::place_fused(g, dead, fused);
}

}  // namespace geon
