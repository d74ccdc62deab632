// Walking a producer's single-reader chain of bias, residual and activation nodes.
#include "core/passes/post_ops.h"

namespace geon::passes {
namespace {

// The other operand of a two-input Add reading v (once), or -1.
int other_addend(const Node& n, int v) {
  if (!onnx_domain(n) || n.op != "Add" || n.inputs.size() != 2 || n.outputs.size() != 1) return -1;
  if (n.inputs[0] == v && n.inputs[1] != v) return n.inputs[1];
  if (n.inputs[1] == v && n.inputs[0] != v) return n.inputs[0];
  return -1;
}

}  // namespace

bool same_shape(const Graph& g, int a, int b) {
  const Value& x = g.value(a);
  const Value& y = g.value(b);
  if (!x.rank_known || !y.rank_known || x.rank() != y.rank() || x.dtype() != y.dtype())
    return false;
  for (int d = 0; d < x.rank(); ++d) {
    const Length& p = x.axes[d].length;
    const Length& q = y.axes[d].length;
    // Unknown lengths are equal only as the same axis; numbers and symbols by value.
    const bool equal = (p.is_unknown() || q.is_unknown()) ? x.axes[d] == y.axes[d] : p == q;
    if (!equal) return false;
  }
  return true;
}

PostOps match_post_ops(const Graph& g, const Uses& uses, int out,
                       const std::function<bool(int)>& bias_ok, bool allow_bias) {
  PostOps p;
  p.out = out;
  const DType t = g.value(out).dtype();
  const auto next = [&](int v) -> const Node* {
    const int r = uses.only_reader(v);
    return r < 0 ? nullptr : &g.nodes[r];
  };
  const Node* n = next(p.out);
  if (n && allow_bias) {
    const int c = other_addend(*n, p.out);
    if (c >= 0 && fixed_constant(g, c) && g.value(c).dtype() == t && bias_ok(c) &&
        g.value(n->outputs[0]).dtype() == t) {
      p.bias = c;
      p.nodes.push_back(uses.reader[p.out]);
      p.out = n->outputs[0];
      n = next(p.out);
    }
  }
  if (n) {
    const int z = other_addend(*n, p.out);
    if (z >= 0 && same_shape(g, z, p.out) && same_shape(g, n->outputs[0], p.out)) {
      p.residual = z;
      p.nodes.push_back(uses.reader[p.out]);
      p.out = n->outputs[0];
      n = next(p.out);
    }
  }
  if (n && n->inputs[0] == p.out) {
    if (auto a = match_activation(g, *n); a && g.value(n->outputs[0]).dtype() == t) {
      p.act = *a;
      p.nodes.push_back(uses.reader[p.out]);
      p.out = n->outputs[0];
    }
  }
  return p;
}

bool drop_activation(const Graph& g, PostOps& p) {
  if (p.act.op.empty() || p.nodes.empty()) return false;
  p.out = g.nodes[p.nodes.back()].inputs[0];
  p.nodes.pop_back();
  p.act = Activation{};
  return true;
}

std::vector<const KernelEntry*> fused_rows(std::span<const KernelSet* const> sets,
                                           std::string_view op) {
  Node probe;
  probe.domain = "geon";
  probe.op = std::string(op);
  probe.opset = 1;
  std::vector<const KernelEntry*> rows;
  for (const KernelSet* s : sets)
    if (s)
      if (const KernelEntry* e = find_kernel(*s, probe)) rows.push_back(e);
  return rows;
}

bool any_supports(const Graph& g, std::span<const KernelEntry* const> rows, const Node& f) {
  for (const KernelEntry* e : rows)
    if (!e->supports(g, f)) return true;
  return false;
}

void name_after_members(const Graph& g, Node& f, const Node& anchor, const PostOps& p) {
  std::vector<const Node*> members = {&anchor};
  for (int m : p.nodes) members.push_back(&g.nodes[m]);
  f.name = fused_name(members);
  f.attrs["members"] = strings_attr(members_of(members));
}

int place_fused(Graph& g, std::vector<bool>& dead, std::vector<std::pair<int, Node>>& fused) {
  if (fused.empty()) return 0;
  for (auto& [at, node] : fused) {
    g.nodes[at] = std::move(node);
    dead[at] = false;
    g.value(g.nodes[at].outputs[0]).producer = at;
  }
  erase_nodes(g, dead);
  return static_cast<int>(fused.size());
}

}  // namespace geon::passes
