// QDQ groups => geon.QConv / geon.QGemm, and data-movement ops moved onto 8-bit data.
#include "core/passes/fuse_qdq.h"

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/desc/views.h"
#include "core/onnx/node.h"
#include "core/passes/graph_edit.h"
#include "core/passes/post_ops.h"

namespace geon {
namespace {

using passes::fixed_constant;

bool is_op(const Node& n, std::string_view op) { return passes::onnx_domain(n) && n.op == op; }
bool eight_bit(DType t) { return t == DType::kUInt8 || t == DType::kInt8; }
int input(const Node& n, size_t i) { return i < n.inputs.size() ? n.inputs[i] : -1; }
int64_t elements(const Graph& g, int v) { return g.value(v).data->elements(); }
double element(const Graph& g, int v, int64_t i) { return element_as_double(*g.value(v).data, i); }
// QuantizeLinear / DequantizeLinear with blocked parameters (opset 21's block_size).
bool blocked(const Node& n) { return n.opset >= 21 && onnx::attr_int(n, "block_size", 0) != 0; }

// A fixed float constant whose elements are all finite and positive.
bool scales_ok(const Graph& g, int v) {
  if (!fixed_constant(g, v) || g.value(v).dtype() != DType::kFloat) return false;
  for (int64_t i = 0; i < elements(g, v); ++i) {
    const double s = element(g, v, i);
    if (!std::isfinite(s) || s <= 0) return false;
  }
  return elements(g, v) > 0;
}
// Absent, or a fixed constant of dtype t with `count` elements.
bool zeros_ok(const Graph& g, int v, DType t, int64_t count) {
  return v < 0 || (fixed_constant(g, v) && g.value(v).dtype() == t && elements(g, v) == count);
}

// One per-tensor (de)quantization: its node, its 8-bit side and its parameters.
struct Step {
  int node = -1;
  int data = -1;  // the 8-bit value: DequantizeLinear's input, QuantizeLinear's output
  int scale = -1;
  int zero = -1;  // -1 when the model omits it
};

// The DequantizeLinear that makes float value v from 8-bit data, per tensor.
std::optional<Step> dequantized(const Graph& g, int v) {
  const int p = v >= 0 ? g.value(v).producer : -1;
  if (p < 0) return std::nullopt;
  const Node& n = g.nodes[p];
  if (!is_op(n, "DequantizeLinear") || n.outputs.size() != 1 || n.inputs.size() < 2 || blocked(n))
    return std::nullopt;
  const Step s{p, n.inputs[0], n.inputs[1], input(n, 2)};
  if (s.data < 0 || !eight_bit(g.value(s.data).dtype()) || g.value(v).dtype() != DType::kFloat)
    return std::nullopt;
  if (!scales_ok(g, s.scale) || elements(g, s.scale) != 1 ||
      !zeros_ok(g, s.zero, g.value(s.data).dtype(), 1))
    return std::nullopt;
  return s;
}

// Node k as a per-tensor QuantizeLinear of float data into 8 bits.
std::optional<Step> quantizing(const Graph& g, int k) {
  if (k < 0) return std::nullopt;
  const Node& n = g.nodes[k];
  if (!is_op(n, "QuantizeLinear") || n.outputs.size() != 1 || n.outputs[0] < 0 ||
      n.inputs.size() < 2 || n.inputs[0] < 0 || blocked(n))
    return std::nullopt;
  // A `precision` other than float would divide in another type.
  const int64_t precision = onnx::attr_int(n, "precision", 0);
  if (precision != 0 && dtype_from_onnx(static_cast<int32_t>(precision)) != DType::kFloat)
    return std::nullopt;
  const Step s{k, n.outputs[0], n.inputs[1], input(n, 2)};
  const DType t = g.value(s.data).dtype();
  if (g.value(n.inputs[0]).dtype() != DType::kFloat || !eight_bit(t)) return std::nullopt;
  if (!scales_ok(g, s.scale) || elements(g, s.scale) != 1 || !zeros_ok(g, s.zero, t, 1))
    return std::nullopt;
  return s;
}

double zero_of(const Graph& g, int v) { return v < 0 ? 0 : element(g, v, 0); }

// Whether two steps quantize alike: one 8-bit dtype, equal scales and zero points.
bool same_params(const Graph& g, const Step& a, const Step& b) {
  return g.value(a.data).dtype() == g.value(b.data).dtype() &&
         element(g, a.scale, 0) == element(g, b.scale, 0) &&
         zero_of(g, a.zero) == zero_of(g, b.zero);
}

// Per tensor (one element), or per element along `axis` of a tensor of `rank` whose dim there is
// `count` long (DequantizeLinear's `axis`, from opset 13).
bool along(const Graph& g, const Node& dq, int rank, int want, int64_t count) {
  const int64_t n = elements(g, dq.inputs[1]);
  if (n == 1) return true;
  if (n != count || g.value(dq.inputs[1]).rank() != 1 || dq.opset < 13) return false;
  const int64_t axis = onnx::attr_int(dq, "axis", 1);
  return axis >= -rank && axis < rank && normalize_axis(axis, rank) == want;
}

// W of a Conv (`rank` 0: 3 or more, output channels on axis 0) or of a Gemm (`rank` 2, output
// channels on `out_axis`): DequantizeLinear of a fixed int8 constant, its scale and zero point
// per tensor or per output channel.
std::optional<Step> weights(const Graph& g, int v, int rank, int out_axis) {
  const int p = v >= 0 ? g.value(v).producer : -1;
  if (p < 0) return std::nullopt;
  const Node& n = g.nodes[p];
  if (!is_op(n, "DequantizeLinear") || n.outputs.size() != 1 || n.inputs.size() < 2 || blocked(n))
    return std::nullopt;
  const Step s{p, n.inputs[0], n.inputs[1], input(n, 2)};
  if (!fixed_constant(g, s.data) || g.value(s.data).dtype() != DType::kInt8 ||
      g.value(v).dtype() != DType::kFloat)
    return std::nullopt;
  const Dims& shape = g.value(s.data).data->desc.shape;
  const int r = static_cast<int>(shape.size());
  if ((rank ? r != rank : r < 3) || !scales_ok(g, s.scale) ||
      !along(g, n, r, out_axis, shape[out_axis]) ||
      !zeros_ok(g, s.zero, DType::kInt8, elements(g, s.scale)))
    return std::nullopt;
  return s;
}

// B of a Conv or C of a Gemm with M output channels: absent (data -1); a fixed float constant of M
// elements (node -1); or DequantizeLinear of a fixed int32 constant of M elements, per tensor or
// per element. nullopt for anything else.
std::optional<Step> bias_of(const Graph& g, int v, int64_t M) {
  if (v < 0) return Step{};
  const Value& b = g.value(v);
  if (fixed_constant(g, v))
    return b.dtype() == DType::kFloat && b.rank() == 1 && elements(g, v) == M
               ? std::optional(Step{-1, v})
               : std::nullopt;
  const int p = b.producer;
  if (p < 0) return std::nullopt;
  const Node& n = g.nodes[p];
  if (!is_op(n, "DequantizeLinear") || n.outputs.size() != 1 || n.inputs.size() < 2 || blocked(n))
    return std::nullopt;
  const Step s{p, n.inputs[0], n.inputs[1], input(n, 2)};
  if (!fixed_constant(g, s.data) || g.value(s.data).dtype() != DType::kInt32 ||
      g.value(s.data).rank() != 1 || elements(g, s.data) != M || b.dtype() != DType::kFloat)
    return std::nullopt;
  if (!scales_ok(g, s.scale) || !along(g, n, 1, 0, M) ||
      !zeros_ok(g, s.zero, DType::kInt32, elements(g, s.scale)))
    return std::nullopt;
  return s;
}

// Node k as a Relu reading v.
bool relu_of(const Graph& g, int k, int v) {
  if (k < 0) return false;
  const Node& n = g.nodes[k];
  return is_op(n, "Relu") && n.inputs.size() == 1 && n.inputs[0] == v && n.outputs.size() == 1 &&
         n.outputs[0] >= 0 && g.value(n.outputs[0]).dtype() == DType::kFloat;
}

// The value itself, or a new zero constant of the step's 8-bit dtype when the model omits it.
int zero_point(Graph& g, const Step& s, const std::string& base) {
  if (s.zero >= 0) return s.zero;
  return passes::add_constant(g, base + "/zero_point",
                              make_tensor_data(g.value(s.data).dtype(), {}));
}

// A matched group: the nodes it replaces after its anchor (in chain order) and its parts.
struct Group {
  std::vector<int> chain;  // Relu, Q, then for a residual DQ, Add, Relu, Q (node indices)
  std::string activation, sum_activation;
  Step y;                         // the final QuantizeLinear
  std::optional<Step> conv_q, z;  // with a residual: the anchor's own Q, and DQ(Z)
};

// From the anchor's output: [Relu] -> Q, then (when `residual`) DQ of the same parameters ->
// Add with DQ(Z) -> [Relu] -> Q.
std::optional<Group> match_chain(const Graph& g, const passes::Uses& uses, int out, bool residual) {
  Group m;
  int v = out;
  int k = uses.only_reader(v);
  if (relu_of(g, k, v)) {
    m.activation = "Relu";
    m.chain.push_back(k);
    v = g.nodes[k].outputs[0];
    k = uses.only_reader(v);
  }
  const std::optional<Step> q = quantizing(g, k);
  if (!q || g.nodes[k].inputs[0] != v) return std::nullopt;
  m.chain.push_back(k);
  m.y = *q;
  if (!residual) return m;
  // Q -> DQ (same parameters) -> Add(·, DQ(Z)) -> [Relu] -> Q
  const int d = uses.only_reader(q->data);
  const std::optional<Step> back = d >= 0 ? dequantized(g, g.nodes[d].outputs[0]) : std::nullopt;
  if (!back || back->data != q->data || !same_params(g, *q, *back)) return std::nullopt;
  const int dq_out = g.nodes[d].outputs[0];
  const int a = uses.only_reader(dq_out);
  if (a < 0) return std::nullopt;
  const Node& add = g.nodes[a];
  if (!is_op(add, "Add") || add.inputs.size() != 2 || add.outputs.size() != 1 ||
      add.outputs[0] < 0 || add.inputs[0] == add.inputs[1])
    return std::nullopt;
  const int other = add.inputs[0] == dq_out ? add.inputs[1] : add.inputs[0];
  const std::optional<Step> z = dequantized(g, other);
  if (!z || !passes::same_shape(g, other, dq_out) || !passes::same_shape(g, add.outputs[0], dq_out))
    return std::nullopt;
  Group r = m;
  r.conv_q = *q;
  r.z = *z;
  r.chain.push_back(d);
  r.chain.push_back(a);
  v = add.outputs[0];
  k = uses.only_reader(v);
  if (relu_of(g, k, v)) {
    r.sum_activation = "Relu";
    r.chain.push_back(k);
    v = g.nodes[k].outputs[0];
    k = uses.only_reader(v);
  }
  const std::optional<Step> y = quantizing(g, k);
  if (!y || g.nodes[k].inputs[0] != v) return std::nullopt;
  r.chain.push_back(k);
  r.y = *y;
  return r;
}

// The node a group grows from: a Conv, or a Gemm / MatMul of 2-D data by a constant matrix.
struct Anchor {
  std::string op;  // of the fused node: QConv or QGemm
  Step x, w, b;
  bool trans_b = false;  // QGemm: W is (M, K)
};

std::optional<Anchor> conv_anchor(const Graph& g, const Node& conv) {
  if (!is_op(conv, "Conv") || conv.inputs.size() < 2) return std::nullopt;
  const std::optional<Step> x = dequantized(g, conv.inputs[0]);
  const std::optional<Step> w = weights(g, conv.inputs[1], 0, 0);
  if (!x || !w) return std::nullopt;
  const std::optional<Step> b = bias_of(g, input(conv, 2), g.value(w->data).data->desc.shape[0]);
  if (!b) return std::nullopt;
  return Anchor{"QConv", *x, *w, *b};
}

// Gemm (transA 0, alpha 1, beta 1 or no C, C a vector) or MatMul of a 2-D A.
std::optional<Anchor> gemm_anchor(const Graph& g, const Node& n) {
  const bool gemm = is_op(n, "Gemm");
  if ((!gemm && !is_op(n, "MatMul")) || n.inputs.size() < 2) return std::nullopt;
  const int c = gemm ? input(n, 2) : -1;
  if (gemm && (onnx::attr_int(n, "transA", 0) != 0 || onnx::attr_float(n, "alpha", 1) != 1 ||
               (c >= 0 && onnx::attr_float(n, "beta", 1) != 1)))
    return std::nullopt;
  const bool trans_b = gemm && onnx::attr_int(n, "transB", 0) != 0;
  const std::optional<Step> x = dequantized(g, n.inputs[0]);
  const std::optional<Step> w = weights(g, n.inputs[1], 2, trans_b ? 0 : 1);
  if (!x || !w || !g.value(x->data).rank_known || g.value(x->data).rank() != 2) return std::nullopt;
  const std::optional<Step> b = bias_of(g, c, g.value(w->data).data->desc.shape[trans_b ? 0 : 1]);
  if (!b) return std::nullopt;
  return Anchor{"QGemm", *x, *w, *b, trans_b};
}

Node make_fused(Graph& g, const Node& anchor, const Anchor& a, const Group& m,
                const std::vector<const Node*>& members) {
  const Step &x = a.x, &w = a.w, &b = a.b;
  const std::string base = anchor.name.empty() ? "qdq" : anchor.name;
  Node f;
  f.op = a.op;
  f.domain = "geon";
  f.opset = 1;
  f.inputs = {
      x.data, x.scale,   zero_point(g, x, base + "/x"),  w.data, w.scale, w.zero, b.data, b.scale,
      b.zero, m.y.scale, zero_point(g, m.y, base + "/y")};
  if (m.z) {
    f.inputs.insert(f.inputs.end(), {m.z->data, m.z->scale, zero_point(g, *m.z, base + "/z"),
                                     m.conv_q->scale, zero_point(g, *m.conv_q, base + "/c")});
  }
  f.outputs = {m.y.data};
  if (a.op == "QConv") {
    for (const auto& [name, attr] : anchor.attrs)
      if (name != "members") f.attrs[name] = attr;
  } else {
    f.attrs["trans_b"] = passes::int_attr(a.trans_b ? 1 : 0);
  }
  f.attrs["activation"] = passes::string_attr(m.activation);
  f.attrs["sum_activation"] = passes::string_attr(m.sum_activation);
  std::vector<const Node*> named;  // the name leaves out the DequantizeLinear nodes
  for (const Node* n : members)
    if (!is_op(*n, "DequantizeLinear")) named.push_back(n);
  f.name = passes::fused_name(named);
  f.attrs["members"] = passes::strings_attr(passes::members_of(members));
  return f;
}

// Phase 1: the Conv and Gemm groups. `touched` collects the DequantizeLinear outputs the fused
// nodes now bypass (they go when nothing else reads them).
void fuse_groups(Graph& g, std::span<const KernelSet* const> sets, QdqFusions& made,
                 std::vector<int>& touched) {
  const std::vector<const KernelEntry*> conv_rows = passes::fused_rows(sets, "QConv");
  const std::vector<const KernelEntry*> gemm_rows = passes::fused_rows(sets, "QGemm");
  if (conv_rows.empty() && gemm_rows.empty()) return;
  const passes::Uses uses = passes::count_uses(g);
  std::vector<bool> dead(g.nodes.size(), false);
  std::vector<std::pair<int, Node>> fused;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node anchor = g.nodes[k];  // a copy: constants added below may not disturb it
    if (anchor.outputs.size() != 1 || anchor.outputs[0] < 0 || dead[k]) continue;
    std::optional<Anchor> a = conv_anchor(g, anchor);
    if (!a) a = gemm_anchor(g, anchor);
    if (!a) continue;
    const std::vector<const KernelEntry*>& rows = a->op == "QConv" ? conv_rows : gemm_rows;
    if (rows.empty()) continue;
    const Step &x = a->x, &w = a->w, &b = a->b;
    // With the residual first; without it when that does not match or another group took it.
    for (bool residual : {true, false}) {
      const std::optional<Group> m = match_chain(g, uses, anchor.outputs[0], residual);
      if (!m) continue;
      bool overlap = false;
      for (int c : m->chain) overlap = overlap || dead[c];
      if (overlap) continue;
      std::vector<const Node*> members = {&g.nodes[x.node], &g.nodes[w.node]};
      if (b.node >= 0) members.push_back(&g.nodes[b.node]);
      if (m->z) members.push_back(&g.nodes[m->z->node]);
      members.push_back(&g.nodes[k]);
      for (int c : m->chain) members.push_back(&g.nodes[c]);
      Node f = make_fused(g, anchor, *a, *m, members);
      if (!passes::any_supports(g, rows, f)) continue;
      dead[k] = true;
      for (int c : m->chain) dead[c] = true;
      for (const Step* s : {&x, &w, &b})
        if (s->node >= 0) touched.push_back(g.nodes[s->node].outputs[0]);
      if (m->z) touched.push_back(g.nodes[m->z->node].outputs[0]);
      ++(a->op == "QConv" ? made.convs : made.gemms);
      made.residuals += m->z ? 1 : 0;
      fused.emplace_back(m->chain.back(), std::move(f));
      break;
    }
  }
  passes::place_fused(g, dead, fused);
}

// The ops of phase 2 and the first opset at which each takes 8-bit data.
int int8_since(const Node& n) {
  if (!passes::onnx_domain(n)) return -1;
  if (n.op == "MaxPool") return 12;
  if (n.op == "Flatten") return 9;
  if (n.op == "Reshape") return 5;
  if (n.op == "Transpose" || n.op == "Squeeze" || n.op == "Unsqueeze") return 1;
  return -1;
}

// Whether a set in `sets` runs node n.
bool runnable(const Graph& g, std::span<const KernelSet* const> sets, const Node& n) {
  for (const KernelSet* s : sets)
    if (s)
      if (const KernelEntry* e = find_kernel(*s, n); e && !e->supports(g, n)) return true;
  return false;
}

// Phase 2: DQ -> op -> Q of the same parameters becomes op on the 8-bit data.
void move_ops(Graph& g, std::span<const KernelSet* const> sets, QdqFusions& made,
              std::vector<int>& touched) {
  const passes::Uses uses = passes::count_uses(g);
  std::vector<bool> dead(g.nodes.size(), false);
  std::vector<std::pair<int, Node>> moved;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    const int since = int8_since(n);
    if (since < 0 || n.opset < since || n.inputs.empty() || n.outputs.empty() || n.outputs[0] < 0)
      continue;
    bool extra_output = false;
    for (size_t o = 1; o < n.outputs.size(); ++o) extra_output = extra_output || n.outputs[o] >= 0;
    if (extra_output) continue;
    const std::optional<Step> dq = dequantized(g, n.inputs[0]);
    const std::optional<Step> q = quantizing(g, uses.only_reader(n.outputs[0]));
    if (!dq || !q || dead[q->node] || !same_params(g, *dq, *q)) continue;
    Node m = n;
    m.inputs[0] = dq->data;
    m.outputs = {q->data};
    if (!runnable(g, sets, m)) continue;
    dead[q->node] = true;
    touched.push_back(n.inputs[0]);
    ++made.pass_through;
    moved.emplace_back(static_cast<int>(k), std::move(m));
  }
  passes::place_fused(g, dead, moved);
}

// DequantizeLinear nodes among `touched` that nothing reads any more.
void drop_unread(Graph& g, const std::vector<int>& touched) {
  const passes::Uses uses = passes::count_uses(g);
  std::vector<bool> dead(g.nodes.size(), false);
  bool any = false;
  for (int v : touched) {
    const int p = g.value(v).producer;
    if (p < 0 || uses.readers[v] > 0 || uses.output[v] || !is_op(g.nodes[p], "DequantizeLinear"))
      continue;
    dead[p] = true;
    any = true;
  }
  if (any) passes::erase_nodes(g, dead);
}

}  // namespace

QdqFusions fuse_qdq(Graph& g, std::span<const KernelSet* const> sets) {
  QdqFusions made;
  std::vector<int> touched;
  fuse_groups(g, sets, made, touched);
  move_ops(g, sets, made, touched);
  drop_unread(g, touched);
  return made;
}

}  // namespace geon
