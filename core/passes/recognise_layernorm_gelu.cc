// Matching spelled-out LayerNorm and GELU subgraphs (see the header for the patterns).
#include "core/passes/recognise_layernorm_gelu.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include "core/onnx/reduce.h"
#include "core/passes/graph_edit.h"

namespace geon {
namespace {

using passes::Uses;

constexpr double kTolerance = 1e-4;

struct Ctx {
  Graph& g;
  const Uses& uses;
  std::span<const KernelSet* const> sets;
  std::vector<bool>& taken;
};

// The node producing v when it is an ONNX-domain `op` with one output and not yet taken.
const Node* made_by(const Ctx& c, int v, std::string_view op) {
  if (v < 0) return nullptr;
  const int p = c.g.value(v).producer;
  if (p < 0 || c.taken[p]) return nullptr;
  const Node& n = c.g.nodes[p];
  if (!passes::onnx_domain(n) || n.op != op || n.outputs.size() != 1) return nullptr;
  return &n;
}
int index_of(const Ctx& c, const Node* n) { return static_cast<int>(n - c.g.nodes.data()); }

// The single reader of v when it is an untaken ONNX-domain `op`, else null.
const Node* read_by(const Ctx& c, int v, std::string_view op) {
  const int r = c.uses.only_reader(v);
  if (r < 0 || c.taken[r]) return nullptr;
  const Node& n = c.g.nodes[r];
  if (!passes::onnx_domain(n) || n.op != op || n.outputs.size() != 1) return nullptr;
  return &n;
}

bool is_scalar(const Graph& g, int v, double want) {
  double x = 0;
  return passes::scalar_value(g, v, x) && std::abs(x - want) <= kTolerance;
}

// For a binary node reading `v`: its other operand, or -1.
int other(const Node& n, int v) {
  if (n.inputs.size() != 2) return -1;
  if (n.inputs[0] == v) return n.inputs[1];
  if (n.inputs[1] == v) return n.inputs[0];
  return -1;
}

bool supported(const Ctx& c, const Node& n) {
  for (const KernelSet* s : c.sets) {
    if (!s) continue;
    const KernelEntry* e = find_kernel(*s, n);
    if (e && !e->supports(c.g, n)) return true;
  }
  return false;
}

// Marks `members` taken and puts `made` in place of the last of them.
void replace(Ctx& c, std::vector<int> members, Node made, std::vector<std::pair<int, Node>>& out) {
  std::sort(members.begin(), members.end());
  std::vector<const Node*> nodes;
  for (int m : members) nodes.push_back(&c.g.nodes[m]);
  made.name = passes::fused_name(nodes);
  made.attrs["members"] = passes::strings_attr(passes::members_of(nodes));
  for (int m : members) c.taken[m] = true;
  out.emplace_back(members.back(), std::move(made));
}

// ---- LayerNorm ----

// The single reduced position of a keepdims ReduceMean over the last axis of its input.
bool mean_over_last(const Ctx& c, const Node& n) {
  const int rank = c.g.value(n.inputs[0]).rank_known ? c.g.value(n.inputs[0]).rank() : -1;
  if (rank < 1) return false;
  const bool from_input = n.opset >= 18;
  if (from_input && (n.inputs.size() < 2 || !passes::fixed_constant(c.g, n.inputs[1])))
    return false;
  const onnx::ReduceParams p = onnx::reduce_params(c.g, n, from_input);
  if (!p.keepdims || p.axes.size() != 1) return false;
  const int64_t a = p.axes[0] < 0 ? p.axes[0] + rank : p.axes[0];
  return a == rank - 1;
}

// gamma / beta as a constant of shape (C), or -1 when v is not a fixed constant of C values
// laid along the last axis only.
int per_last_axis(Ctx& c, int v, int64_t len, const std::string& name) {
  if (!passes::fixed_constant(c.g, v)) return -1;
  const TensorData& d = *c.g.value(v).data;
  if (d.desc.dtype != DType::kFloat || d.elements() != len) return -1;
  for (int k = 0; k + 1 < d.desc.rank(); ++k)
    if (d.desc.shape[k] != 1) return -1;
  if (d.desc.rank() == 1) return v;
  auto flat = make_tensor_data(DType::kFloat, Dims{len});
  std::memcpy(flat->storage->data(), d.bytes(), static_cast<size_t>(len) * sizeof(float));
  return passes::add_constant(c.g, name, flat);
}

int filled(Ctx& c, int64_t len, float value, const std::string& name) {
  auto d = make_tensor_data(DType::kFloat, Dims{len});
  std::vector<float> v(static_cast<size_t>(len), value);
  std::memcpy(d->storage->data(), v.data(), v.size() * sizeof(float));
  return passes::add_constant(c.g, name, d);
}

// LayerNorm with its first ReduceMean at node k.
void match_layernorm(Ctx& c, int k, std::vector<std::pair<int, Node>>& out) {
  const Node& m = c.g.nodes[k];
  if (!passes::onnx_domain(m) || m.op != "ReduceMean" || m.outputs.size() != 1) return;
  const int x = m.inputs[0];
  if (x < 0 || c.g.value(x).dtype() != DType::kFloat || !mean_over_last(c, m)) return;
  const Value& xv = c.g.value(x);
  const Length len = xv.axes[xv.rank() - 1].length;
  if (!len.is_static()) return;
  // d = x - m, read by exactly the squaring node and the Div.
  const Node* sub = read_by(c, m.outputs[0], "Sub");
  if (!sub || sub->inputs[0] != x || sub->inputs[1] != m.outputs[0]) return;
  const int d = sub->outputs[0];
  if (c.uses.readers[d] != 2 || c.uses.output[d]) return;
  const Node *sq = nullptr, *div = nullptr;
  for (size_t r = 0; r < c.g.nodes.size(); ++r) {
    const Node& n = c.g.nodes[r];
    if (c.taken[r] || std::find(n.inputs.begin(), n.inputs.end(), d) == n.inputs.end()) continue;
    // d / std, or d * Reciprocal(std).
    if (passes::onnx_domain(n) && n.inputs.size() == 2 &&
        ((n.op == "Div" && n.inputs[0] == d) || (n.op == "Mul" && other(n, d) != d)))
      div = &n;
    if (passes::onnx_domain(n) &&
        ((n.op == "Pow" && n.inputs.size() == 2 && n.inputs[0] == d &&
          is_scalar(c.g, n.inputs[1], 2.0)) ||
         (n.op == "Mul" && n.inputs.size() == 2 && n.inputs[0] == d && n.inputs[1] == d)))
      sq = &n;
  }
  if (!sq || !div) return;
  const Node* var = read_by(c, sq->outputs[0], "ReduceMean");
  if (!var || !mean_over_last(c, *var)) return;
  // The same axis as the first mean's: d keeps x's axes, so the last one is x's.
  const Value& sv = c.g.value(sq->outputs[0]);
  if (!sv.rank_known || sv.rank() != xv.rank() || !(sv.axes[sv.rank() - 1].length == len)) return;
  const Node* add = read_by(c, var->outputs[0], "Add");
  if (!add) return;
  double eps = 0;
  if (!passes::scalar_value(c.g, other(*add, var->outputs[0]), eps) || eps < 0) return;
  const Node* sqrt = read_by(c, add->outputs[0], "Sqrt");
  if (!sqrt) return;
  std::vector<int> members = {k,
                              index_of(c, sub),
                              index_of(c, sq),
                              index_of(c, var),
                              index_of(c, add),
                              index_of(c, sqrt),
                              index_of(c, div)};
  if (div->op == "Div") {
    if (div->inputs[1] != sqrt->outputs[0]) return;
  } else {
    const Node* rec = read_by(c, sqrt->outputs[0], "Reciprocal");
    if (!rec || other(*div, d) != rec->outputs[0] || !c.uses.internal_single(rec->outputs[0]))
      return;
    members.push_back(index_of(c, rec));
  }
  // std (or its reciprocal) has no reader outside the pattern.
  if (c.uses.only_reader(sqrt->outputs[0]) < 0) return;
  int y = div->outputs[0];
  int gamma = -1, beta = -1;
  const std::string base = m.name.empty() ? "layernorm" : m.name;
  if (const Node* mul = read_by(c, y, "Mul")) {
    gamma = per_last_axis(c, other(*mul, y), len.value, base + "/scale");
    if (gamma >= 0) {
      members.push_back(index_of(c, mul));
      y = mul->outputs[0];
      if (const Node* bias = read_by(c, y, "Add")) {
        beta = per_last_axis(c, other(*bias, y), len.value, base + "/bias");
        if (beta >= 0) {
          members.push_back(index_of(c, bias));
          y = bias->outputs[0];
        }
      }
    }
  }
  if (c.g.value(y).dtype() != DType::kFloat) return;
  if (gamma < 0) gamma = filled(c, len.value, 1.0f, base + "/scale");
  Node ln;
  ln.op = "LayerNormalization";
  ln.opset = 17;
  ln.inputs = {x, gamma};
  if (beta >= 0) ln.inputs.push_back(beta);
  ln.outputs = {y};
  ln.attrs["axis"] = passes::int_attr(-1);
  ln.attrs["epsilon"] = passes::float_attr(static_cast<float>(eps));
  if (!supported(c, ln)) return;
  replace(c, members, std::move(ln), out);
}

// ---- GELU ----

// x * 0.5 * t in any order, starting from t's single reader; the product's value and the Muls
// taken, or -1.
int half_product(const Ctx& c, int x, int t, std::vector<int>& members) {
  const Node* r = read_by(c, t, "Mul");
  if (!r) return -1;
  const int o = other(*r, t);
  if (o == x) {  // (x * t) * 0.5
    const Node* h = read_by(c, r->outputs[0], "Mul");
    if (!h || !is_scalar(c.g, other(*h, r->outputs[0]), 0.5)) return -1;
    members.insert(members.end(), {index_of(c, r), index_of(c, h)});
    return h->outputs[0];
  }
  if (is_scalar(c.g, o, 0.5)) {  // x * (t * 0.5)
    const Node* h = read_by(c, r->outputs[0], "Mul");
    if (!h || other(*h, r->outputs[0]) != x) return -1;
    members.insert(members.end(), {index_of(c, r), index_of(c, h)});
    return h->outputs[0];
  }
  const Node* h = made_by(c, o, "Mul");  // (x * 0.5) * t
  if (!h || c.uses.only_reader(o) != index_of(c, r)) return -1;
  if (!((h->inputs[0] == x && is_scalar(c.g, h->inputs[1], 0.5)) ||
        (h->inputs[1] == x && is_scalar(c.g, h->inputs[0], 0.5))))
    return -1;
  members.insert(members.end(), {index_of(c, h), index_of(c, r)});
  return r->outputs[0];
}

// 1 + f at f's single reader: the sum's value, or -1.
int plus_one(const Ctx& c, int f, std::vector<int>& members) {
  const Node* a = read_by(c, f, "Add");
  if (!a) a = read_by(c, f, "Sum");  // ONNX's own Gelu function body writes Sum(One, Erf)
  if (!a || !is_scalar(c.g, other(*a, f), 1.0)) return -1;
  members.push_back(index_of(c, a));
  return a->outputs[0];
}

void make_gelu(Ctx& c, int x, int y, const char* approximate, std::vector<int>& members,
               std::vector<std::pair<int, Node>>& out) {
  if (c.g.value(x).dtype() != c.g.value(y).dtype()) return;
  Node gelu;
  gelu.op = "Gelu";
  gelu.opset = 20;
  gelu.inputs = {x};
  gelu.outputs = {y};
  gelu.attrs["approximate"] = passes::string_attr(approximate);
  if (!supported(c, gelu)) return;
  replace(c, members, std::move(gelu), out);
}

// Erf form, from the Erf node at k.
void match_gelu_erf(Ctx& c, int k, std::vector<std::pair<int, Node>>& out) {
  const Node& erf = c.g.nodes[k];
  if (!passes::onnx_domain(erf) || erf.op != "Erf" || erf.inputs.size() != 1) return;
  const int u = erf.inputs[0];
  if (!c.uses.internal_single(u)) return;
  const Node* scale = made_by(c, u, "Div");
  int x = -1;
  if (scale && is_scalar(c.g, scale->inputs[1], std::sqrt(2.0))) {
    x = scale->inputs[0];
  } else if ((scale = made_by(c, u, "Mul"))) {
    if (is_scalar(c.g, scale->inputs[1], std::sqrt(0.5)))
      x = scale->inputs[0];
    else if (is_scalar(c.g, scale->inputs[0], std::sqrt(0.5)))
      x = scale->inputs[1];
  }
  if (x < 0) return;
  std::vector<int> members = {index_of(c, scale), k};
  const int t = plus_one(c, erf.outputs[0], members);
  if (t < 0) return;
  const int y = half_product(c, x, t, members);
  if (y >= 0) make_gelu(c, x, y, "none", members, out);
}

// Tanh form, from the Tanh node at k: Tanh(Mul(sqrt(2/pi), Add(x, Mul(0.044715, x^3)))).
void match_gelu_tanh(Ctx& c, int k, std::vector<std::pair<int, Node>>& out) {
  const Node& th = c.g.nodes[k];
  if (!passes::onnx_domain(th) || th.op != "Tanh" || th.inputs.size() != 1) return;
  const int u = th.inputs[0];
  if (!c.uses.internal_single(u)) return;
  const Node* outer = made_by(c, u, "Mul");
  if (!outer) return;
  const double k0 = 0.7978845608028654;  // sqrt(2 / pi)
  int inner = -1;
  if (is_scalar(c.g, outer->inputs[0], k0))
    inner = outer->inputs[1];
  else if (is_scalar(c.g, outer->inputs[1], k0))
    inner = outer->inputs[0];
  const Node* sum = nullptr;
  if (c.uses.internal_single(inner)) {
    sum = made_by(c, inner, "Add");
    if (!sum) sum = made_by(c, inner, "Sum");
  }
  if (!sum || sum->inputs.size() != 2) return;
  // One addend is x, the other 0.044715 * x^3.
  for (int side = 0; side < 2; ++side) {
    const int x = sum->inputs[side], cube_term = sum->inputs[1 - side];
    const Node* mul = c.uses.internal_single(cube_term) ? made_by(c, cube_term, "Mul") : nullptr;
    if (!mul) continue;
    int cube = -1;
    if (is_scalar(c.g, mul->inputs[0], 0.044715))
      cube = mul->inputs[1];
    else if (is_scalar(c.g, mul->inputs[1], 0.044715))
      cube = mul->inputs[0];
    if (!c.uses.internal_single(cube)) continue;
    std::vector<int> members;
    if (const Node* pw = made_by(c, cube, "Pow");
        pw && pw->inputs[0] == x && is_scalar(c.g, pw->inputs[1], 3.0)) {
      members.push_back(index_of(c, pw));
    } else if (const Node* m3 = made_by(c, cube, "Mul")) {
      // x * (x * x) or (x * x) * x.
      const int sq = other(*m3, x);
      const Node* m2 = c.uses.internal_single(sq) ? made_by(c, sq, "Mul") : nullptr;
      if (!m2 || m2->inputs[0] != x || m2->inputs[1] != x) continue;
      members.insert(members.end(), {index_of(c, m2), index_of(c, m3)});
    } else {
      continue;
    }
    members.insert(members.end(), {index_of(c, mul), index_of(c, sum), index_of(c, outer), k});
    const int t = plus_one(c, th.outputs[0], members);
    if (t < 0) return;
    const int y = half_product(c, x, t, members);
    if (y >= 0) make_gelu(c, x, y, "tanh", members, out);
    return;
  }
}

}  // namespace

int recognise_layernorm_gelu(Graph& g, std::span<const KernelSet* const> sets) {
  const bool ln = passes::has_row(sets, "", "LayerNormalization", 17);
  const bool gelu = passes::has_row(sets, "", "Gelu", 20);
  if (!ln && !gelu) return 0;
  const Uses uses = passes::count_uses(g);
  std::vector<bool> taken(g.nodes.size(), false);
  Ctx c{g, uses, sets, taken};
  std::vector<std::pair<int, Node>> made;
  const size_t count = g.nodes.size();
  for (size_t k = 0; k < count; ++k) {
    if (taken[k]) continue;
    if (ln) match_layernorm(c, static_cast<int>(k), made);
    if (gelu && !taken[k]) match_gelu_erf(c, static_cast<int>(k), made);
    if (gelu && !taken[k]) match_gelu_tanh(c, static_cast<int>(k), made);
  }
  if (made.empty()) return 0;
  std::vector<bool> dead = taken;
  for (auto& [at, node] : made) {
    g.nodes[at] = std::move(node);
    dead[at] = false;
    g.value(g.nodes[at].outputs[0]).producer = at;
  }
  passes::erase_nodes(g, dead);
  return static_cast<int>(made.size());
}

}  // namespace geon
