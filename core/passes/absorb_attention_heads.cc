// Matching the head split / merge chains around Attention (see the header).
#include "core/passes/absorb_attention_heads.h"

#include <optional>
#include <vector>

#include "core/onnx/node.h"
#include "core/passes/graph_edit.h"

namespace geon {
namespace {

const std::vector<int64_t> kSwapSeqHeads = {0, 2, 1, 3};

bool is_op(const Node& n, std::string_view op) {
  return passes::onnx_domain(n) && n.op == op && n.outputs.size() == 1;
}

// The static lengths of a value of this rank, or nullopt.
std::optional<Dims> lengths(const Graph& g, int v, int rank) {
  const Value& val = g.value(v);
  if (!val.rank_known || val.rank() != rank) return std::nullopt;
  return static_lengths(val.axes);
}

// A head split feeding Attention input `x`: x = Transpose(Reshape(p, (B, S, H, D)),
// (0, 2, 1, 3)) with p of (B, S, H·D), each step read once. Its nodes and p, H.
struct Split {
  int projection = -1;
  int64_t heads = 0;
  std::vector<int> nodes;
};

std::optional<Split> head_split(const Graph& g, const passes::Uses& u, int x) {
  const Node* tp = passes::producer_of(g, x);
  if (!tp || !is_op(*tp, "Transpose") || !u.internal_single(x) || tp->inputs.empty() ||
      onnx::attr_ints(*tp, "perm") != kSwapSeqHeads)
    return std::nullopt;
  const int r = tp->inputs[0];
  const Node* rs = passes::producer_of(g, r);
  if (!rs || !is_op(*rs, "Reshape") || !u.internal_single(r) || rs->inputs.empty()) return {};
  const int p = rs->inputs[0];
  const std::optional<Dims> split = lengths(g, r, 4), whole = lengths(g, p, 3);
  if (!split || !whole || (*split)[0] != (*whole)[0] || (*split)[1] != (*whole)[1] ||
      (*split)[2] * (*split)[3] != (*whole)[2] || (*split)[2] <= 0)
    return std::nullopt;
  return Split{p, (*split)[2], {g.value(r).producer, g.value(x).producer}};
}

// The head merge reading Attention's output y: Reshape(Transpose(y, (0, 2, 1, 3)), (B, S, H·Dv)).
// Its nodes and the merged value.
struct Merge {
  int merged = -1;
  std::vector<int> nodes;
};

std::optional<Merge> head_merge(const Graph& g, const passes::Uses& u, int y) {
  const int t = u.only_reader(y);
  if (t < 0 || !is_op(g.nodes[t], "Transpose") ||
      onnx::attr_ints(g.nodes[t], "perm") != kSwapSeqHeads)
    return std::nullopt;
  const int yt = g.nodes[t].outputs[0];
  const int r = u.only_reader(yt);
  if (r < 0 || !is_op(g.nodes[r], "Reshape") || g.nodes[r].inputs.empty() ||
      g.nodes[r].inputs[0] != yt)
    return std::nullopt;
  const int merged = g.nodes[r].outputs[0];
  const std::optional<Dims> heads = lengths(g, yt, 4), whole = lengths(g, merged, 3);
  if (!heads || !whole || (*heads)[0] != (*whole)[0] || (*heads)[1] != (*whole)[1] ||
      (*heads)[2] * (*heads)[3] != (*whole)[2])
    return std::nullopt;
  return Merge{merged, {t, r}};
}

bool supported(std::span<const KernelSet* const> sets, const Graph& g, const Node& n) {
  for (const KernelSet* s : sets)
    if (s)
      if (const KernelEntry* e = find_kernel(*s, n); e && !e->supports(g, n)) return true;
  return false;
}

}  // namespace

int absorb_attention_heads(Graph& g, std::span<const KernelSet* const> sets) {
  const passes::Uses uses = passes::count_uses(g);
  std::vector<bool> dead(g.nodes.size(), false);
  int made = 0;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& a = g.nodes[k];
    // 4-D Attention without past key/values, heads attributes or extra outputs.
    if (!passes::onnx_domain(a) || a.op != "Attention" || a.inputs.size() < 3 ||
        a.inputs.size() > 4 || a.outputs.size() != 1 || a.attr("q_num_heads") ||
        a.attr("kv_num_heads"))
      continue;
    std::optional<Split> q = head_split(g, uses, a.inputs[0]);
    std::optional<Split> kk = head_split(g, uses, a.inputs[1]);
    std::optional<Split> v = head_split(g, uses, a.inputs[2]);
    std::optional<Merge> y = head_merge(g, uses, a.outputs[0]);
    if (!q || !kk || !v || !y || kk->heads != v->heads) continue;
    Node n = a;
    n.inputs[0] = q->projection;
    n.inputs[1] = kk->projection;
    n.inputs[2] = v->projection;
    n.outputs = {y->merged};
    n.attrs["q_num_heads"] = passes::int_attr(q->heads);
    n.attrs["kv_num_heads"] = passes::int_attr(kk->heads);
    if (!supported(sets, g, n)) continue;
    // The members it absorbed, in graph order around its own, so the report lists them.
    std::vector<const Node*> members;
    for (const auto* part : {&q->nodes, &kk->nodes, &v->nodes})
      for (int m : *part) members.push_back(&g.nodes[m]);
    members.push_back(&a);
    for (int m : y->nodes) members.push_back(&g.nodes[m]);
    n.attrs["members"] = passes::strings_attr(passes::members_of(members));
    bool clash = false;
    for (const auto* part : {&q->nodes, &kk->nodes, &v->nodes, &y->nodes})
      for (int m : *part) clash = clash || dead[m];
    if (clash) continue;
    for (const auto* part : {&q->nodes, &kk->nodes, &v->nodes, &y->nodes})
      for (int m : *part) dead[m] = true;
    // The merged value is now made here: the node moves to the Reshape's place (after every
    // input it reads, before every reader of the merged value).
    const int at = y->nodes.back();
    dead[at] = false;
    dead[k] = true;
    g.nodes[at] = std::move(n);
    g.value(y->merged).producer = at;
    ++made;
  }
  if (made) passes::erase_nodes(g, dead);
  return made;
}

}  // namespace geon
