// MatMul(Q, Kᵀ) -> scale -> mask -> Softmax -> MatMul(., V) => one Attention node.
#include "core/passes/fuse_attention.h"

#include <optional>
#include <vector>

#include "core/onnx/node.h"
#include "core/passes/graph_edit.h"

namespace geon {
namespace {

struct Match {
  int q = -1, k = -1, v = -1, mask = -1;
  float scale = 1.0f;
  std::vector<int> members;  // node indices in chain order; the last is the second MatMul
  int transpose = -1;        // a Transpose kept, its perm turned into one that yields K
  std::vector<int64_t> k_perm;
};

bool is_op(const Node& n, std::string_view op) { return passes::onnx_domain(n) && n.op == op; }

bool rank4(const Graph& g, int v) {
  return v >= 0 && g.value(v).rank_known && g.value(v).rank() == 4;
}

bool float_kind(DType t) {
  return t == DType::kFloat || t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kDouble;
}

// Axes that are one axis, or provably of one length: the importer gives a product's operands
// their own axes for the contracted dim (and graph inputs their own batch axes), so paired
// dims are checked by length; the output's axes are the operands' very axes.
bool same_length(const Axis& a, const Axis& b) {
  return axes_match(a, b) || compare_lengths(a.length, b.length) == LengthRelation::kEqual;
}

// The node reading v when v has exactly one reader and is not a graph output, else -1.
int next_node(const passes::Uses& u, int v) { return u.only_reader(v); }

// The input of binary node n that is not `from`, or -1 when n does not read `from` once.
int other_input(const Node& n, int from) {
  if (n.inputs.size() != 2) return -1;
  if (n.inputs[0] == from && n.inputs[1] != from) return n.inputs[1];
  if (n.inputs[1] == from && n.inputs[0] != from) return n.inputs[0];
  return -1;
}

std::optional<Match> match_at(const Graph& g, const passes::Uses& u, int k1) {
  const Node& mm1 = g.nodes[k1];
  if (!is_op(mm1, "MatMul") || mm1.inputs.size() != 2 || mm1.outputs.size() != 1) return {};
  Match m;
  m.q = mm1.inputs[0];
  const int kt = mm1.inputs[1];
  if (!rank4(g, m.q) || !rank4(g, kt) || !rank4(g, mm1.outputs[0])) return {};
  const Value &q = g.value(m.q), &ktv = g.value(kt);
  const DType t = q.dtype();
  if (!float_kind(t) || ktv.dtype() != t) return {};
  // The first product contracts Q's head axis with Kᵀ's.
  if (!same_length(q.axes[3], ktv.axes[2])) return {};
  // Kᵀ comes from a Transpose that only this product reads: its input is K when the perm
  // just swaps the last two dims, else the Transpose is kept with those two swapped back.
  const Node* tp = passes::producer_of(g, kt);
  if (!tp || !is_op(*tp, "Transpose") || !u.internal_single(kt) || tp->inputs.empty()) return {};
  std::vector<int64_t> perm =
      onnx::attr_ints(*tp, "perm").value_or(std::vector<int64_t>{3, 2, 1, 0});
  if (perm.size() != 4) return {};
  std::swap(perm[2], perm[3]);
  const int tp_index = g.value(kt).producer;
  if (perm == std::vector<int64_t>{0, 1, 2, 3}) {
    m.k = tp->inputs[0];
    m.members.push_back(tp_index);
  } else {
    m.k = kt;
    m.transpose = tp_index;
    m.k_perm = perm;
  }
  m.members.push_back(k1);
  const Axis key_axis = ktv.axes[3];  // the key sequence: scores' last axis
  int cur = mm1.outputs[0];
  int n = next_node(u, cur);
  if (n < 0) return {};
  // Optional scale: Div or Mul by a constant scalar.
  double c = 0;
  if ((is_op(g.nodes[n], "Div") && g.nodes[n].inputs.size() == 2 && g.nodes[n].inputs[0] == cur &&
       passes::scalar_value(g, g.nodes[n].inputs[1], c) && c != 0) ||
      (is_op(g.nodes[n], "Mul") && other_input(g.nodes[n], cur) >= 0 &&
       passes::scalar_value(g, other_input(g.nodes[n], cur), c))) {
    m.scale = static_cast<float>(g.nodes[n].op == "Div" ? 1.0 / c : c);
    m.members.push_back(n);
    cur = g.nodes[n].outputs.at(0);
    if ((n = next_node(u, cur)) < 0) return {};
  } else if (is_op(g.nodes[n], "Div") || is_op(g.nodes[n], "Mul")) {
    return {};  // a scale that is not a constant scalar
  }
  // Optional additive mask covering the whole key axis (Attention pads a shorter one with -inf
  // where Add would broadcast it).
  if (is_op(g.nodes[n], "Add")) {
    const int mask = other_input(g.nodes[n], cur);
    if (mask < 0) return {};
    const Value& mv = g.value(mask);
    if (!mv.rank_known || mv.rank() < 1 || mv.rank() > 4 || mv.dtype() != t) return {};
    if (!same_length(mv.axes[mv.axes.size() - 1], key_axis)) return {};
    m.mask = mask;
    m.members.push_back(n);
    cur = g.nodes[n].outputs.at(0);
    if ((n = next_node(u, cur)) < 0) return {};
  }
  // Softmax over the key axis.
  const Node& sm = g.nodes[n];
  if (!is_op(sm, "Softmax") || sm.outputs.size() != 1 || !rank4(g, cur)) return {};
  int64_t axis = onnx::attr_int(sm, "axis", sm.opset >= 13 ? -1 : 1);
  if (axis < 0) axis += 4;
  if (axis != 3 || !same_length(g.value(cur).axes[3], key_axis)) return {};
  m.members.push_back(n);
  cur = sm.outputs[0];
  if ((n = next_node(u, cur)) < 0) return {};
  // The second product contracts the key axis with V's sequence axis.
  const Node& mm2 = g.nodes[n];
  if (!is_op(mm2, "MatMul") || mm2.inputs.size() != 2 || mm2.inputs[0] != cur ||
      mm2.outputs.size() != 1)
    return {};
  m.v = mm2.inputs[1];
  if (!rank4(g, m.v) || g.value(m.v).dtype() != t) return {};
  const Value& v = g.value(m.v);
  if (!same_length(g.value(cur).axes[3], v.axes[2])) return {};
  // Attention broadcasts no batch or head dims: Q, K and V must agree on both.
  for (int d = 0; d < 2; ++d)
    if (!same_length(q.axes[d], ktv.axes[d]) || !same_length(q.axes[d], v.axes[d])) return {};
  m.members.push_back(n);
  return m;
}

Node attention_node(const Graph& g, const Match& m) {
  const Node& last = g.nodes[m.members.back()];
  Node a;
  a.name = passes::unique_name(g, last.name + "_attention");
  a.op = "Attention";
  a.opset = 23;
  a.inputs = {m.q, m.k, m.v, m.mask};
  a.outputs = {last.outputs[0]};
  a.attrs["scale"] = passes::float_attr(m.scale);
  std::vector<const Node*> members;
  for (int i : m.members) members.push_back(&g.nodes[i]);
  a.attrs["members"] = passes::strings_attr(passes::members_of(members));
  return a;
}

bool supported(std::span<const KernelSet* const> sets, const Graph& g, const Node& a) {
  for (const KernelSet* s : sets)
    if (s)
      if (const KernelEntry* e = find_kernel(*s, a); e && !e->supports(g, a)) return true;
  return false;
}

}  // namespace

int fuse_attention(Graph& g, std::span<const KernelSet* const> sets) {
  if (!passes::has_row(sets, "", "Attention", 23)) return 0;
  const passes::Uses uses = passes::count_uses(g);
  std::vector<bool> dead(g.nodes.size(), false), taken(g.nodes.size(), false);
  int made = 0;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    if (taken[k]) continue;
    const std::optional<Match> m = match_at(g, uses, static_cast<int>(k));
    if (!m) continue;
    bool clash = m->transpose >= 0 && taken[m->transpose];
    for (int i : m->members) clash = clash || taken[i];
    if (clash) continue;
    Node a = attention_node(g, *m);
    if (!supported(sets, g, a)) continue;
    if (m->transpose >= 0) {  // the kept Transpose now yields K itself
      Node& tp = g.nodes[m->transpose];
      tp.attrs["perm"] = passes::ints_attr(m->k_perm);
      Value& kv = g.value(tp.outputs[0]);
      std::vector<Axis> axes = kv.axes.list();
      std::swap(axes[2], axes[3]);
      kv.axes = Axes(std::move(axes));
      taken[m->transpose] = true;
    }
    for (int i : m->members) {
      taken[i] = true;
      dead[i] = true;
    }
    const int at = m->members.back();
    dead[at] = false;
    g.nodes[at] = std::move(a);
    ++made;
  }
  if (made) passes::erase_nodes(g, dead);
  return made;
}

}  // namespace geon
