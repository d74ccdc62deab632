// Elementwise fusion: groups grow from a root (the last node) up through producers whose
// output only the group reads, and become one geon.Elementwise node at the root's place.
#include "core/passes/fuse_elementwise.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/engine/loop_plan.h"
#include "core/engine/ops.h"
#include "core/onnx/elementwise.h"
#include "core/passes/graph_edit.h"

namespace geon {
namespace {

using passes::Uses;

// The engines take at most this many inputs in one pass (see core/onnx/elementwise.cc).
constexpr int kMaxInputs = kMaxLoopOperands - 2;

struct Encoded {
  std::vector<std::string> ops;
  std::vector<int64_t> args;
  std::vector<float> scales, alphas, betas;
};

void push(Encoded& e, const std::string& op, std::vector<int64_t> args,
          std::vector<double> scale = {}, OpParams params = {}) {
  e.ops.push_back(op);
  args.resize(3, 0);
  e.args.insert(e.args.end(), args.begin(), args.end());
  scale.resize(3, 1.0);
  for (double s : scale) e.scales.push_back(static_cast<float>(s));
  e.alphas.push_back(static_cast<float>(params.alpha));
  e.betas.push_back(static_cast<float>(params.beta));
}
int64_t node_ref(const Encoded& e) { return -static_cast<int64_t>(e.ops.size()); }

// The sets able to run geon.Elementwise; members must be supported by one of them.
struct Context {
  const Graph& g;
  const Uses& uses;
  std::vector<const KernelSet*> sets;
};

bool supported_by(const Context& c, const Node& n) {
  for (const KernelSet* s : c.sets) {
    const KernelEntry* e = find_kernel(*s, n);
    if (e && !e->supports(c.g, n)) return true;
  }
  return false;
}

bool elementwise_member(const Context& c, const Node& n) {
  if (!passes::onnx_domain(n) || n.outputs.size() != 1 || n.outputs[0] < 0) return false;
  const onnx::ElementwiseOp* e = onnx::find_elementwise(n.op);
  // Opset < 7 binary ops align B by their own rule, not the fused expression's numpy one.
  return e && n.opset >= e->since && !onnx::legacy_broadcast(n).on && supported_by(c, n);
}

// Whether a value may live only inside an expression: its dtype is the one the engine computes
// in, so keeping it unrounded changes nothing (float16 intermediates are not fused).
bool exact_intermediate(const Graph& g, int v) {
  const DType t = g.value(v).dtype();
  if (t == DType::kUndefined || t == DType::kString) return false;
  try {
    return compute_dtype(t) == t;
  } catch (const Error&) {
    return false;
  }
}

bool axes_from_input(const Node& n) { return n.opset >= (n.op == "ReduceSum" ? 13 : 18); }

bool fusable_reduce(const Context& c, const Node& n) {
  if (!passes::onnx_domain(n) || !onnx::reduction_of(n.op) || n.outputs.size() != 1) return false;
  if (!onnx::has_input(n, 0)) return false;
  if (axes_from_input(n) && onnx::has_input(n, 1) && !passes::fixed_constant(c.g, n.inputs[1]))
    return false;
  return supported_by(c, n);
}

struct Group {
  std::vector<int> members;  // node indices
  int reduce = -1;           // the reduction node, also in members
};

// The external inputs of the group (inputs not produced inside it), in first-use order.
std::vector<int> external_inputs(const Graph& g, const std::vector<int>& members, int reduce) {
  std::vector<int> sorted = members;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> out;
  for (int k : sorted) {
    const Node& n = g.nodes[k];
    const size_t count = k == reduce ? 1 : n.inputs.size();  // a reduction's axes are attributes
    for (size_t i = 0; i < count; ++i) {
      const int v = n.inputs[i];
      if (v < 0) continue;
      const int p = g.value(v).producer;
      if (p >= 0 && std::find(members.begin(), members.end(), p) != members.end()) continue;
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
  }
  return out;
}

// Grows the group up from its members through single-reader elementwise producers.
void grow(const Context& c, Group& grp, const std::vector<bool>& taken) {
  for (size_t at = 0; at < grp.members.size(); ++at) {
    const Node& n = c.g.nodes[grp.members[at]];
    const size_t count = grp.members[at] == grp.reduce ? 1 : n.inputs.size();
    for (size_t i = 0; i < count; ++i) {
      const int v = n.inputs[i];
      if (!c.uses.internal_single(v) || !exact_intermediate(c.g, v)) continue;
      const int p = c.g.value(v).producer;
      if (p < 0 || taken[p] || !elementwise_member(c, c.g.nodes[p])) continue;
      if (std::find(grp.members.begin(), grp.members.end(), p) != grp.members.end()) continue;
      grp.members.push_back(p);
      if (static_cast<int>(external_inputs(c.g, grp.members, grp.reduce).size()) > kMaxInputs)
        grp.members.pop_back();
    }
  }
}

// The fused node for a group, or nullopt when its expression does not check out.
std::optional<Node> fused_node(const Context& c, const Group& grp) {
  const Graph& g = c.g;
  std::vector<int> sorted = grp.members;
  std::sort(sorted.begin(), sorted.end());
  const std::vector<int> inputs = external_inputs(g, grp.members, grp.reduce);
  std::map<int, int64_t> ref;  // value -> encoded argument
  for (size_t i = 0; i < inputs.size(); ++i) ref[inputs[i]] = static_cast<int64_t>(i);
  Encoded e;
  std::vector<std::pair<int, size_t>> results;  // (value, its expression node) per member
  for (int k : sorted) {
    if (k == grp.reduce) continue;
    const Node& n = g.nodes[k];
    const onnx::ElementwiseSpec spec = onnx::elementwise_spec(n);
    std::vector<int64_t> args;
    for (int v : n.inputs)
      if (v >= 0) args.push_back(ref.at(v));
    if (spec.shape != onnx::EwShape::kVariadic) {
      push(e, spec.engine_op, args, {}, spec.params);
    } else {
      int64_t acc = args[0];
      if (args.size() == 1) {
        push(e, "identity", {acc});
        acc = node_ref(e);
      }
      for (size_t i = 1; i < args.size(); ++i) {
        push(e, spec.engine_op, {acc, args[i]});
        acc = node_ref(e);
      }
      if (spec.mean) push(e, "identity", {acc}, {1.0 / static_cast<double>(args.size())});
    }
    ref[n.outputs[0]] = node_ref(e);
    results.emplace_back(n.outputs[0], e.ops.size() - 1);
  }
  const Node& root = g.nodes[sorted.back()];
  std::vector<const Node*> member_nodes;
  for (int k : sorted) member_nodes.push_back(&g.nodes[k]);
  Node f;
  f.name = passes::fused_name(member_nodes);
  f.op = "Elementwise";
  f.domain = "geon";
  f.opset = 1;
  f.inputs = inputs;
  f.outputs = root.outputs;
  f.attrs["ops"] = passes::strings_attr(e.ops);
  f.attrs["args"] = passes::ints_attr(e.args);
  f.attrs["scales"] = passes::floats_attr(e.scales);
  f.attrs["alphas"] = passes::floats_attr(e.alphas);
  f.attrs["betas"] = passes::floats_attr(e.betas);
  f.attrs["members"] = passes::strings_attr(passes::members_of(member_nodes));
  if (grp.reduce >= 0) {
    const Node& r = g.nodes[grp.reduce];
    const onnx::ReduceParams p = onnx::reduce_params(g, r, axes_from_input(r));
    f.attrs["reduce"] = passes::string_attr(r.op);
    f.attrs["axes"] = passes::ints_attr(p.axes);
    f.attrs["keepdims"] = passes::int_attr(p.keepdims ? 1 : 0);
    f.attrs["noop_with_empty_axes"] = passes::int_attr(p.noop_with_empty_axes ? 1 : 0);
  } else {
    f.attrs["reduce"] = passes::string_attr("");
  }
  // The expression must build for the declared dtypes and give each member its declared dtype.
  std::vector<DType> dtypes;
  for (int v : inputs) dtypes.push_back(g.value(v).dtype());
  try {
    const Expr x = fused_elementwise_expr(f, dtypes);
    for (const auto& [v, node] : results)
      if (x.nodes[node].result != g.value(v).dtype()) return std::nullopt;
  } catch (const Error&) {
    return std::nullopt;
  }
  return f;
}

}  // namespace

Expr fused_elementwise_expr(const Node& n, std::span<const DType> inputs) {
  const Attribute* ops = n.attr("ops");
  const Attribute* args = n.attr("args");
  const Attribute* scales = n.attr("scales");
  const Attribute* alphas = n.attr("alphas");
  const Attribute* betas = n.attr("betas");
  const auto bad = [&](const std::string& why) {
    fail(ErrorCode::kInvalidArgument, "geon.Elementwise '" + n.name + "': " + why);
  };
  if (!ops || !args || !scales || !alphas) bad("ops, args, scales and alphas are required");
  const size_t k = ops->strings.size();
  if (k == 0 || args->ints.size() != 3 * k || scales->floats.size() != 3 * k ||
      alphas->floats.size() != k)
    bad("args and scales need 3 entries per op, alphas 1");
  if (betas && betas->floats.size() != k) bad("betas needs 1 entry per op");
  ExprBuilder b(inputs);
  for (size_t i = 0; i < k; ++i) {
    const OpDef* op = find_op(ops->strings[i]);
    if (!op) bad("no engine op '" + ops->strings[i] + "'");
    ExprArg a[3];
    double s[3];
    for (int j = 0; j < 3; ++j) {
      const int64_t x = args->ints[3 * i + j];
      s[j] = scales->floats[3 * i + j];
      if (j >= op->arity) continue;
      if (x >= 0) {
        a[j] = b.input(static_cast<int>(x));
      } else {
        if (-x - 1 >= static_cast<int64_t>(i)) bad("an argument refers to a later op");
        a[j] = ExprArg{static_cast<int>(-x - 1), true};
      }
    }
    OpParams p;
    p.alpha = alphas->floats[i];
    if (betas) p.beta = betas->floats[i];
    switch (op->arity) {
      case 1:
        b.apply(op->name, {a[0]}, {s[0]}, p);
        break;
      case 2:
        b.apply(op->name, {a[0], a[1]}, {s[0], s[1]}, p);
        break;
      default:
        b.apply(op->name, {a[0], a[1], a[2]}, {s[0], s[1], s[2]}, p);
        break;
    }
  }
  return b.build();
}

std::optional<onnx::ReduceParams> fused_elementwise_reduce(const Node& n) {
  const std::string op = onnx::attr_string(n, "reduce", "");
  if (op.empty()) return std::nullopt;
  const std::optional<Reduce> r = onnx::reduction_of(op);
  if (!r)
    fail(ErrorCode::kInvalidArgument,
         "geon.Elementwise '" + n.name + "': '" + op + "' is not a reduction");
  onnx::ReduceParams p;
  p.reduce = *r;
  p.axes = onnx::attr_ints(n, "axes").value_or(std::vector<int64_t>{});
  p.keepdims = onnx::attr_int(n, "keepdims", 1) != 0;
  p.noop_with_empty_axes = onnx::attr_int(n, "noop_with_empty_axes", 0) != 0;
  return p;
}

int fuse_elementwise(Graph& g, std::span<const KernelSet* const> sets) {
  Node probe;
  probe.domain = "geon";
  probe.op = "Elementwise";
  probe.opset = 1;
  const Uses uses = passes::count_uses(g);
  Context c{g, uses, {}};
  for (const KernelSet* s : sets)
    if (s && find_kernel(*s, probe)) c.sets.push_back(s);
  if (c.sets.empty()) return 0;

  std::vector<bool> taken(g.nodes.size(), false);
  std::vector<std::pair<int, Node>> fused;  // (root index, node)
  for (int k = static_cast<int>(g.nodes.size()) - 1; k >= 0; --k) {
    if (taken[k]) continue;
    const Node& n = g.nodes[k];
    Group grp;
    if (fusable_reduce(c, n)) {
      grp.reduce = k;
    } else if (!elementwise_member(c, n)) {
      continue;
    }
    grp.members.push_back(k);
    grow(c, grp, taken);
    if (grp.members.size() < 2) continue;
    std::optional<Node> f = fused_node(c, grp);
    if (!f) continue;
    for (int m : grp.members) taken[m] = true;
    fused.emplace_back(k, std::move(*f));
  }
  if (fused.empty()) return 0;
  std::vector<bool> dead = taken;
  for (auto& [root, node] : fused) {
    g.nodes[root] = std::move(node);
    dead[root] = false;
  }
  passes::erase_nodes(g, dead);
  return static_cast<int>(fused.size());
}

}  // namespace geon
