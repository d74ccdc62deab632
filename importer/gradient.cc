// Gradient as nodes: the forward steps that lead from the differentiated values to `y`, walked
// backwards, each op contributing its derivative rule (a few ONNX nodes). Contributions to a
// value are summed; a broadcast operand's contribution is summed back to its own shape.
#include "importer/gradient.h"

#include <cstring>
#include <unordered_map>

#include "core/base/error.h"
#include "core/passes/graph_edit.h"

namespace geon::importer {

namespace {

constexpr std::string_view kTraining = "ai.onnx.preview.training";
// The opset of the nodes made here: ReduceSum takes its axes as an input from 13 on.
constexpr int kOpset = 13;

// One forward node as the derivative sees it: its op and attributes, and the values it reads
// and writes after the Gradient's inputs were substituted for xs and zs.
struct Step {
  Node node;  // a copy: g.nodes grows (and moves) while the derivative is built
  std::vector<int> in, out;
};

class Builder {
 public:
  Builder(Graph& g, BuildState& st, std::string where, std::string prefix)
      : g_(g), st_(st), where_(std::move(where)), prefix_(std::move(prefix)) {}

  [[noreturn]] void unsupported(const std::string& why) const {
    fail(ErrorCode::kNotSupported, where_ + ": " + why);
  }

  // Appends a node reading `in` and returns its output: `out` when given (an existing value it
  // now produces), else a new value.
  int node(const std::string& op, std::vector<int> in, std::map<std::string, Attribute> attrs = {},
           int out = -1, const Node* like = nullptr) {
    Node n;
    const int index = static_cast<int>(g_.nodes.size());
    n.name = prefix_ + op + "#" + std::to_string(count_++);
    n.op = op;
    n.domain = like ? like->domain : std::string();
    n.opset = like ? like->opset : kOpset;
    n.inputs = std::move(in);
    n.attrs = std::move(attrs);
    if (out < 0) {
      Value v;
      v.name = passes::unique_name(g_, n.name);
      out = g_.add_value(std::move(v));
    }
    g_.value(out).producer = index;
    n.outputs.push_back(out);
    g_.nodes.push_back(std::move(n));
    apply_rule(g_, index, st_, where_ + " (building node '" + g_.nodes.back().name + "')");
    return out;
  }

  // A scalar constant of x's dtype.
  int scalar(double v, int x) {
    auto t = make_tensor_data(DType::kFloat, Dims{});
    const float f = static_cast<float>(v);
    std::memcpy(t->storage->data(), &f, sizeof f);
    const int c = passes::add_constant(g_, prefix_ + "const", std::move(t));
    const DType dt = g_.value(x).dtype();
    if (dt == DType::kFloat) return c;
    return node("Cast", {c}, {{"to", passes::int_attr(static_cast<int64_t>(dt))}});
  }
  // A tensor of x's shape and dtype, every entry v.
  int filled_like(double v, int x) { return node("Expand", {scalar(v, x), node("Shape", {x})}); }

  int un(const char* op, int a) { return node(op, {a}); }
  int bin(const char* op, int a, int b) { return node(op, {a, b}); }

  // grad (the shape of the step's output) summed over the dims that broadcasting stretched
  // for operand x, then shaped as x.
  int reduce_to(int grad, int x) {
    const Value& gv = g_.value(grad);
    const Value& xv = g_.value(x);
    if (!gv.rank_known || !xv.rank_known)
      unsupported("the derivative needs the ranks of '" + xv.name + "' and of its consumer");
    const int lead = gv.rank() - xv.rank();
    if (lead < 0) unsupported("'" + xv.name + "' has a higher rank than the value it feeds");
    std::vector<int64_t> axes;
    for (int i = 0; i < gv.rank(); ++i) {
      if (i < lead) {
        axes.push_back(i);
        continue;
      }
      const Length& lx = xv.axes[i - lead].length;
      const Length& lg = gv.axes[i].length;
      // The engine stretches static 1s only (core/axes/broadcast.h).
      if (lx.is_static() && lx.value == 1 && !(lg.is_static() && lg.value == 1)) axes.push_back(i);
    }
    if (axes.empty()) return grad;
    auto t = make_tensor_data(DType::kInt64, Dims{static_cast<int64_t>(axes.size())});
    std::memcpy(t->storage->data(), axes.data(), axes.size() * sizeof(int64_t));
    const int axes_value = passes::add_constant(g_, prefix_ + "axes", std::move(t));
    int r = node("ReduceSum", {grad, axes_value}, {{"keepdims", passes::int_attr(1)}});
    if (lead > 0) r = node("Reshape", {r, node("Shape", {x})});
    return r;
  }

  // Last two dims swapped.
  int transpose_last(int x) {
    const Value& v = g_.value(x);
    std::vector<int64_t> perm(v.rank());
    for (int i = 0; i < v.rank(); ++i) perm[i] = i;
    std::swap(perm[v.rank() - 2], perm[v.rank() - 1]);
    return node("Transpose", {x}, {{"perm", passes::ints_attr(perm)}});
  }

  Graph& graph() { return g_; }

 private:
  Graph& g_;
  BuildState& st_;
  std::string where_, prefix_;
  int count_ = 0;
};

// The contribution of step s to the gradient of its input i, given dy (the gradient of its
// output).
int input_gradient(Builder& b, const Step& s, int i, int dy) {
  const std::string& op = s.node.op;
  const int x = s.in[i];
  const int y = s.out[0];
  auto other = [&] { return s.in[1 - i]; };
  if (op == "Identity" || op == "Sum" || op == "Add") return b.reduce_to(dy, x);
  if (op == "Sub") return b.reduce_to(i == 0 ? dy : b.un("Neg", dy), x);
  if (op == "Mul") return b.reduce_to(b.bin("Mul", dy, other()), x);
  if (op == "Div") {
    if (i == 0) return b.reduce_to(b.bin("Div", dy, s.in[1]), x);
    // d(a/b)/db = -(a/b)/b
    return b.reduce_to(b.un("Neg", b.bin("Div", b.bin("Mul", dy, y), s.in[1])), x);
  }
  if (op == "Neg") return b.un("Neg", dy);
  if (op == "Relu") {
    const int zero = b.scalar(0, x);
    return b.node("Where", {b.bin("Greater", x, zero), dy, zero});
  }
  if (op == "Sigmoid")  // y (1 - y)
    return b.bin("Mul", dy, b.bin("Mul", y, b.bin("Sub", b.scalar(1, y), y)));
  if (op == "Tanh")  // 1 - y^2
    return b.bin("Mul", dy, b.bin("Sub", b.scalar(1, y), b.bin("Mul", y, y)));
  if (op == "Exp") return b.bin("Mul", dy, y);
  if (op == "Log") return b.bin("Div", dy, x);
  if (op == "Sqrt") return b.bin("Div", dy, b.bin("Add", y, y));
  if (op == "MatMul") {
    for (int v : s.in)
      if (!b.graph().value(v).rank_known || b.graph().value(v).rank() < 2)
        b.unsupported("Gradient differentiates MatMul on operands of rank 2 or more only (node '" +
                      s.node.name + "')");
    // y = a b: da = dy b^T, db = a^T dy, each summed over broadcast batch dims.
    if (i == 0) return b.reduce_to(b.bin("MatMul", dy, b.transpose_last(s.in[1])), x);
    return b.reduce_to(b.bin("MatMul", b.transpose_last(s.in[0]), dy), x);
  }
  if (op == "Transpose") {
    const Value& xv = b.graph().value(x);
    std::vector<int64_t> perm(xv.rank());
    const Attribute* p = s.node.attr("perm");
    for (int k = 0; k < xv.rank(); ++k) perm[k] = p ? p->ints[k] : xv.rank() - 1 - k;
    std::vector<int64_t> inverse(perm.size());
    for (size_t k = 0; k < perm.size(); ++k) inverse[perm[k]] = static_cast<int64_t>(k);
    return b.node("Transpose", {dy}, {{"perm", passes::ints_attr(inverse)}});
  }
  if (op == "Reshape") return b.node("Reshape", {dy, b.node("Shape", {x})});
  b.unsupported("Gradient cannot differentiate op " + op + " (node '" + s.node.name +
                "'): derivatives exist for Add, Sub, Mul, Div, Neg, Identity, Sum, Relu, "
                "Sigmoid, Tanh, Exp, Log, Sqrt, MatMul, Transpose and Reshape");
}

// Whether input i of the op carries a derivative (Reshape's shape input does not).
bool differentiable_input(const Node& n, int i) {
  if (n.op == "Reshape") return i == 0;
  return true;
}

}  // namespace

bool is_gradient_node(const std::string& domain, const std::string& op) {
  return domain == kTraining && op == "Gradient";
}

void expand_gradient(Graph& g, int node_index, BuildState& st, const std::string& where) {
  const Node grad_node = g.nodes[node_index];
  auto strings = [&](const char* name) {
    const Attribute* a = grad_node.attr(name);
    return a ? a->strings : std::vector<std::string>{};
  };
  const std::vector<std::string> xs = strings("xs"), zs = strings("zs");
  const std::string y_name = grad_node.attr("y")->s;
  auto defined = [&](const std::string& name, const char* what) {
    const int v = g.find(name);
    if (v < 0 || g.value(v).kind == ValueKind::kOuter)
      fail(ErrorCode::kNotSupported, where + ": attribute '" + what + "' names '" + name +
                                         "', which this graph does not define (Gradient "
                                         "differentiates within one graph)");
    return v;
  };
  // The named values, and what the Gradient feeds for each.
  std::unordered_map<int, int> fed;
  std::vector<int> x_values;
  for (size_t k = 0; k < xs.size() + zs.size(); ++k) {
    const bool is_x = k < xs.size();
    if (grad_node.inputs[k] < 0)
      fail(ErrorCode::kInvalidArgument, where + ": input " + std::to_string(k) +
                                            " is omitted; each name in 'xs' and 'zs' "
                                            "needs the value to differentiate at");
    const int v = defined(is_x ? xs[k] : zs[k - xs.size()], is_x ? "xs" : "zs");
    if (!fed.emplace(v, grad_node.inputs[k]).second)
      fail(ErrorCode::kInvalidArgument,
           where + ": '" + g.value(v).name + "' is named twice in 'xs' and 'zs'");
    if (is_x) x_values.push_back(v);
  }
  const int y = defined(y_name, "y");

  // The forward nodes y depends on, in order (the builder placed them before the Gradient).
  g.nodes.pop_back();
  std::vector<bool> needed(g.nodes.size());
  std::vector<int> stack{y};
  std::vector<bool> seen(g.values.size());
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    if (seen[v]) continue;
    seen[v] = true;
    const int p = g.value(v).producer;
    if (p < 0 || p >= node_index || fed.count(v)) continue;
    needed[p] = true;
    for (int in : g.nodes[p].inputs)
      if (in >= 0) stack.push_back(in);
  }

  Builder b(g, st, where, grad_node.name + "/");
  // Forward: a step depends on the differentiated values when an input does; it is rebuilt on
  // the Gradient's inputs when an input was substituted.
  std::unordered_map<int, int> sub;  // value -> its value at the Gradient's point
  for (auto [v, input] : fed)
    if (v != input) sub[v] = input;
  std::vector<bool> on_path(g.values.size());
  for (int v : x_values) on_path[v] = true;
  auto at = [&](int v) {
    auto it = sub.find(v);
    return it == sub.end() ? v : it->second;
  };
  std::vector<Step> steps;
  for (int p = 0; p < node_index; ++p) {
    if (!needed[p]) continue;
    Step s{g.nodes[p], {}, {}};
    const Node& n = s.node;
    bool substituted = false, differentiated = false;
    for (int in : n.inputs) {
      s.in.push_back(in < 0 ? in : at(in));
      substituted |= in >= 0 && sub.count(in);
      differentiated |= in >= 0 && on_path[in];
    }
    if (substituted) {
      bool has_graph = false;
      for (const auto& [name, a] : n.attrs)
        has_graph |= a.kind == Attribute::Kind::kGraph || a.kind == Attribute::Kind::kGraphs;
      if (n.outputs.size() != 1 || has_graph)
        b.unsupported("Gradient at values other than those named would rebuild node '" + n.name +
                      "' (" + n.op + "), which it cannot copy");
      const int out = b.node(n.op, s.in, n.attrs, -1, &n);
      sub[n.outputs[0]] = out;
    }
    for (int o : n.outputs) {
      s.out.push_back(o < 0 ? o : at(o));
      if (o >= 0 && differentiated) on_path[o] = true;
    }
    if (differentiated) steps.push_back(std::move(s));
  }
  // Backward.
  std::unordered_map<int, std::vector<int>> parts;
  auto total = [&](int v) {
    auto& p = parts[v];
    if (p.size() > 1) p = {b.node("Sum", p)};
    return p.empty() ? -1 : p[0];
  };
  if (on_path[y]) parts[at(y)].push_back(b.filled_like(1, at(y)));
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    const Step& s = *it;
    if (s.out.size() != 1 || s.out[0] < 0)
      b.unsupported("Gradient cannot differentiate op " + s.node.op + " (node '" + s.node.name +
                    "'): it has more than one output");
    const int dy = total(s.out[0]);
    if (dy < 0) continue;
    for (size_t i = 0; i < s.in.size(); ++i) {
      const int orig = s.node.inputs[i];
      if (orig < 0 || !on_path[orig] || !differentiable_input(s.node, static_cast<int>(i)))
        continue;
      parts[s.in[i]].push_back(input_gradient(b, s, static_cast<int>(i), dy));
    }
  }
  for (size_t k = 0; k < x_values.size(); ++k) {
    const int out = grad_node.outputs[k];
    if (out < 0) continue;
    const int x = at(x_values[k]);
    int d = total(x);
    if (d < 0) d = b.filled_like(0, x);  // y does not depend on x
    b.node("Identity", {d}, {}, out);
  }
}

}  // namespace geon::importer
