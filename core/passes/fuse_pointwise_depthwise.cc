// 1x1 Conv / FusedConv -> depthwise Conv / FusedConv (-> 1x1 Conv / FusedConv) =>
// geon.FusedPointwiseDepthwise.
#include "core/passes/fuse_pointwise_depthwise.h"

#include <string>
#include <string_view>
#include <vector>

#include "core/passes/graph_edit.h"
#include "core/passes/post_ops.h"

namespace geon {
namespace {

constexpr std::string_view kDepthwise = "dw_", kProjection = "pj_";

bool is_conv(const Node& n) {
  return (passes::onnx_domain(n) && n.op == "Conv") || (n.domain == "geon" && n.op == "FusedConv");
}

bool has_residual(const Node& n) { return n.inputs.size() > 3 && n.inputs[3] >= 0; }

// A convolution with one output and a fixed float weight of rank 4.
bool plain_conv(const Graph& g, const Node& n) {
  if (!is_conv(n) || n.outputs.size() != 1 || n.outputs[0] < 0 || n.inputs.size() < 2 ||
      n.inputs[0] < 0)
    return false;
  const int w = n.inputs[1];
  return passes::fixed_constant(g, w) && g.value(w).dtype() == DType::kFloat &&
         g.value(w).data->desc.rank() == 4;
}

const Dims& weight_shape(const Graph& g, const Node& n) {
  return g.value(n.inputs[1]).data->desc.shape;
}

int64_t group_of(const Node& n) {
  const Attribute* a = n.attr("group");
  return a && a->kind == Attribute::Kind::kInt ? a->i : 1;
}

// A 1x1 convolution of one group reading `from` (when >= 0) as its X.
bool pointwise(const Graph& g, const Node& n, int from = -1) {
  if (!plain_conv(g, n) || group_of(n) != 1 || (from >= 0 && n.inputs[0] != from)) return false;
  const Dims& w = weight_shape(g, n);
  return w[2] == 1 && w[3] == 1;
}

int input(const Node& n, size_t i) { return i < n.inputs.size() ? n.inputs[i] : -1; }

bool prefixed(const std::string& name, std::string_view prefix) {
  return name.compare(0, prefix.size(), prefix) == 0;
}

// The side whose attributes carry `prefix` ("" for the first side: neither prefix).
Node side(const Node& fused, std::string_view prefix, std::vector<int> inputs) {
  Node s;
  s.name = fused.name;
  s.op = "FusedConv";
  s.domain = "geon";
  s.opset = 1;
  s.inputs = std::move(inputs);
  for (const auto& [name, a] : fused.attrs) {
    if (name == "members") continue;
    if (prefix.empty() ? !prefixed(name, kDepthwise) && !prefixed(name, kProjection)
                       : prefixed(name, prefix))
      s.attrs[name.substr(prefix.size())] = a;
  }
  return s;
}

void copy_attrs(const Node& from, std::string_view prefix, Node& to) {
  for (const auto& [name, a] : from.attrs)
    if (name != "members") to.attrs[std::string(prefix) + name] = a;
}

}  // namespace

Node pointwise_side(const Node& fused) {
  return side(fused, "", {input(fused, 0), input(fused, 1), input(fused, 2)});
}
Node depthwise_side(const Node& fused) {
  return side(fused, kDepthwise, {-1, input(fused, 3), input(fused, 4)});
}
Node projection_side(const Node& fused) {
  return side(fused, kProjection, {-1, input(fused, 5), input(fused, 6), input(fused, 7)});
}

int fuse_pointwise_depthwise(Graph& g, std::span<const KernelSet* const> sets) {
  const std::vector<const KernelEntry*> rows = passes::fused_rows(sets, "FusedPointwiseDepthwise");
  if (rows.empty()) return 0;
  const passes::Uses uses = passes::count_uses(g);
  std::vector<bool> dead(g.nodes.size(), false);
  std::vector<std::pair<int, Node>> fused;  // (position, node)
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& dw = g.nodes[k];
    if (!plain_conv(g, dw) || has_residual(dw)) continue;
    const Dims& w2 = weight_shape(g, dw);
    // Depthwise: one input channel a group, as many groups as output channels.
    if (w2[1] != 1 || w2[0] < 2 || group_of(dw) != w2[0]) continue;
    const int mid = dw.inputs[0];
    const Node* pw = passes::producer_of(g, mid);
    if (!pw || !uses.internal_single(mid) || !pointwise(g, *pw) || has_residual(*pw) ||
        weight_shape(g, *pw)[0] != w2[0])
      continue;
    const int pw_at = static_cast<int>(pw - g.nodes.data());
    if (dead[pw_at] || dead[k]) continue;
    // The projection: the one reader of the depthwise output, when a 1x1 convolution.
    const int pj_at = uses.only_reader(dw.outputs[0]);
    const Node* pj = pj_at >= 0 && !dead[pj_at] && pointwise(g, g.nodes[pj_at], dw.outputs[0])
                         ? &g.nodes[pj_at]
                         : nullptr;
    if (pj && input(*pj, 3) == dw.outputs[0]) pj = nullptr;  // Z would be fused away

    const auto make = [&](const Node* projection) {
      Node f;
      f.op = "FusedPointwiseDepthwise";
      f.domain = "geon";
      f.opset = 1;
      f.inputs = {pw->inputs[0], pw->inputs[1], input(*pw, 2), dw.inputs[1], input(dw, 2)};
      if (projection)
        for (size_t i : {1, 2, 3}) f.inputs.push_back(input(*projection, i));
      f.outputs = projection ? projection->outputs : dw.outputs;
      copy_attrs(*pw, "", f);
      copy_attrs(dw, kDepthwise, f);
      if (projection) copy_attrs(*projection, kProjection, f);
      std::vector<const Node*> members = {pw, &dw};
      if (projection) members.push_back(projection);
      f.name = passes::fused_name(members);
      f.attrs["members"] = passes::strings_attr(passes::members_of(members));
      return f;
    };
    Node f = make(pj);
    if (pj && !passes::any_supports(g, rows, f)) {
      pj = nullptr;
      f = make(nullptr);
    }
    if (!passes::any_supports(g, rows, f)) continue;
    dead[pw_at] = true;
    dead[k] = true;
    // The node takes the place of its last side, after whatever Z's producer is.
    int at = static_cast<int>(k);
    if (pj) {
      dead[pj_at] = true;
      at = pj_at;
    }
    fused.emplace_back(at, std::move(f));
  }
  return passes::place_fused(g, dead, fused);
}

}  // namespace geon
