// Building one Graph: values first (initializers, inputs), then nodes in dependency order,
// each through its import rule, then outputs. Errors name the graph, node, op and value.
#include "importer/graph_builder.h"

#include <deque>
#include <functional>
#include <set>
#include <unordered_map>

#include "core/base/error.h"
#include "importer/attributes.h"
#include "importer/functions.h"
#include "importer/gradient.h"
#include "importer/initializer_reads.h"
#include "importer/nesting.h"
#include "importer/ops/subgraph.h"
#include "importer/rule.h"

namespace geon::importer {

namespace {

// The main graph is depth 1, so this admits kMaxSubgraphNesting levels below it
// (importer/nesting.h); import_proto refuses deeper models first, with their depth, and this
// bound remains for nesting that function expansion adds.
constexpr int kMaxDepth = kMaxSubgraphNesting + 1;

std::string node_label(const onnx::NodeProto& n, int index) {
  return "node '" + (n.name().empty() ? "#" + std::to_string(index) : n.name()) + "' (" +
         n.op_type() + ")";
}

// Kahn's order over the node list; names produced by no node must already be defined
// (initializer, input, outer scope) or the node's input is dangling.
std::vector<int> dependency_order(const ExpandedNodes& nodes, const Graph& g) {
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i)
    for (const auto& o : nodes[i].output())
      if (!o.empty()) {
        if (!producer.emplace(o, i).second || g.find(o) >= 0)
          fail(ErrorCode::kInvalidArgument, "graph '" + g.name + "': value '" + o +
                                                "' is produced twice (again by " +
                                                node_label(nodes[i], i) + ")");
      }
  // Nested graphs read outer names too; those count as dependencies of the node.
  std::vector<std::set<int>> deps(nodes.size());
  std::function<void(const onnx::GraphProto&, int)> scan_sub = [&](const onnx::GraphProto& sub,
                                                                   int i) {
    for (const auto& n : sub.node()) {
      for (const auto& in : n.input()) {
        auto it = producer.find(in);
        if (it != producer.end() && it->second != i) deps[i].insert(it->second);
      }
      for (const auto& a : n.attribute()) {
        if (a.has_g()) scan_sub(a.g(), i);
        for (const auto& gg : a.graphs()) scan_sub(gg, i);
      }
    }
  };
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    for (const auto& in : nodes[i].input()) {
      if (in.empty()) continue;
      auto it = producer.find(in);
      if (it != producer.end()) {
        deps[i].insert(it->second);
      } else if (!lookup_visible(g, in)) {
        fail(ErrorCode::kInvalidArgument, "graph '" + g.name + "': " + node_label(nodes[i], i) +
                                              " reads '" + in +
                                              "', which no node, initializer or input defines");
      }
    }
    for (const auto& a : nodes[i].attribute()) {
      if (a.has_g()) scan_sub(a.g(), i);
      for (const auto& gg : a.graphs()) scan_sub(gg, i);
      // Gradient differentiates the nodes that compute `y`: they come first.
      if (a.name() == "y" && is_gradient_node(normal_domain(nodes[i].domain()), nodes[i].op_type()))
        if (auto it = producer.find(a.s()); it != producer.end()) deps[i].insert(it->second);
    }
  }
  std::vector<int> indegree(nodes.size());
  std::vector<std::vector<int>> users(nodes.size());
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i)
    for (int d : deps[i]) {
      if (d == i)
        fail(ErrorCode::kInvalidArgument,
             "graph '" + g.name + "': " + node_label(nodes[i], i) + " reads its own output");
      ++indegree[i];
      users[d].push_back(i);
    }
  std::deque<int> ready;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i)
    if (indegree[i] == 0) ready.push_back(i);
  std::vector<int> order;
  while (!ready.empty()) {
    const int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (int u : users[i])
      if (--indegree[u] == 0) ready.push_back(u);
  }
  if (order.size() != nodes.size()) {
    // Nodes left over are on a cycle or downstream of one; walk back along unordered
    // dependencies until a node repeats, and name the cycle.
    int at = 0;
    while (indegree[at] == 0) ++at;
    std::vector<int> path, seen_at(nodes.size(), -1);
    while (seen_at[at] < 0) {
      seen_at[at] = static_cast<int>(path.size());
      path.push_back(at);
      for (int d : deps[at])
        if (indegree[d] > 0) {
          at = d;
          break;
        }
    }
    // path runs from consumers to producers: print it backwards, in data-flow order.
    std::string cycle = node_label(nodes[at], at) + " -> ";
    for (size_t k = path.size(); k-- > static_cast<size_t>(seen_at[at]) + 1;)
      cycle += node_label(nodes[path[k]], path[k]) + " -> ";
    fail(ErrorCode::kInvalidArgument,
         "graph '" + g.name + "': the nodes form a cycle: " + cycle + node_label(nodes[at], at));
  }
  return order;
}

Value constant_value(const std::string& name, std::shared_ptr<TensorData> data, Graph& g) {
  Value v;
  v.name = name;
  v.kind = ValueKind::kConstant;
  v.type = ValueType{TypeKind::kTensor, data->desc.dtype, TypeKind::kTensor};
  std::vector<Axis> axes;
  for (int64_t len : data->desc.shape)
    axes.push_back(make_axis(g.factory(), "", Length::known(len)));
  v.axes = Axes(std::move(axes));
  v.rank_known = true;
  v.data = std::move(data);
  return v;
}

// Makes an outer-scope value visible in g under the same name.
int capture_outer(Graph& g, const std::string& name) {
  const int here = g.find(name);
  if (here >= 0) return here;
  const Value* outer = g.parent ? lookup_visible(*g.parent, name) : nullptr;
  if (!outer) return -1;
  Value v = *outer;
  v.kind = ValueKind::kOuter;
  v.producer = -1;
  // `overridable` stays: a body must not fold an outer default that a run may replace.
  return g.add_value(std::move(v));
}

}  // namespace

void apply_rule(Graph& g, int node_index, BuildState& st, const std::string& where) {
  const Node& n = g.nodes[node_index];
  bool known = false;
  const RuleEntry* rule = find_rule(n.domain, n.op, n.opset, &known);
  if (!rule) {
    if (known)
      fail(ErrorCode::kNotSupported,
           where + ": op " + n.op + " has no import rule for opset " + std::to_string(n.opset));
    fail(ErrorCode::kNotSupported,
         where + ": unsupported op '" + (n.domain.empty() ? "" : n.domain + ".") + n.op + "'");
  }
  RuleContext ctx(g, node_index, *st.opt, st.folded_bytes);
  try {
    rule->fn(ctx);
  } catch (const Error& e) {
    // Errors from helpers below the rule (core's checks) may not say where they arose.
    const std::string msg = e.what();
    if (msg.find("node '" + g.nodes[node_index].name + "'") != std::string::npos) throw;
    fail(e.code(), where + ": " + msg);
  } catch (const std::bad_alloc&) {
    fail(ErrorCode::kResourceExhausted, where + ": out of memory in the import rule");
  } catch (const std::exception& e) {
    // A rule must only throw geon::Error; anything else is a bug in the rule.
    fail(ErrorCode::kInternal, where + ": internal error in the import rule: " + e.what());
  }
}

std::string normal_domain(const std::string& d) { return d == "ai.onnx" ? std::string() : d; }

void read_type(const onnx::TypeProto& tp, Graph& g, const std::string& where, Value& v) {
  switch (tp.value_case()) {
    case onnx::TypeProto::kTensorType: {
      const auto& t = tp.tensor_type();
      v.type = ValueType{TypeKind::kTensor,
                         t.has_elem_type() ? dtype_of(t.elem_type(), where) : DType::kUndefined,
                         TypeKind::kTensor};
      v.rank_known = t.has_shape();
      std::vector<Axis> axes;
      if (t.has_shape())
        for (const auto& d : t.shape().dim()) {
          if (d.has_dim_value()) {
            if (d.dim_value() < 0)
              fail(ErrorCode::kInvalidArgument,
                   where + ": negative dim " + std::to_string(d.dim_value()));
            axes.push_back(make_axis(g.factory(), "", Length::known(d.dim_value())));
          } else if (d.has_dim_param() && !d.dim_param().empty()) {
            axes.push_back(make_axis(g.factory(), d.dim_param(), Length::symbolic(d.dim_param())));
          } else {
            axes.push_back(make_axis(g.factory(), "", Length::unknown()));
          }
        }
      v.axes = Axes(std::move(axes));
      return;
    }
    case onnx::TypeProto::kSequenceType: {
      Value inner;
      read_type(tp.sequence_type().elem_type(), g, where, inner);
      v.type = ValueType{TypeKind::kSequence, inner.type.dtype, inner.type.kind, inner.type.key};
      // A sequence's axes describe its elements' shape (see importer/ops/subgraph.h).
      v.axes = inner.axes;
      v.rank_known = inner.rank_known;
      return;
    }
    case onnx::TypeProto::kOptionalType: {
      Value inner;
      read_type(tp.optional_type().elem_type(), g, where, inner);
      v.type = ValueType{TypeKind::kOptional, inner.type.dtype, inner.type.kind};
      v.axes = inner.axes;
      v.rank_known = inner.rank_known;
      return;
    }
    case onnx::TypeProto::kSparseTensorType:
      v.type = ValueType{TypeKind::kSparseTensor,
                         dtype_of(tp.sparse_tensor_type().elem_type(), where), TypeKind::kTensor};
      return;
    case onnx::TypeProto::kMapType: {
      // ai.onnx.ml's maps hold scalars: the value type is a tensor type (kUnknown otherwise).
      const auto& m = tp.map_type();
      const DType key = dtype_of(m.key_type(), where);
      if (!m.has_value_type() || !m.value_type().has_tensor_type()) {
        v.type = ValueType{TypeKind::kUnknown, DType::kUndefined, TypeKind::kTensor};
        return;
      }
      const auto& vt = m.value_type().tensor_type();
      v.type = ValueType{TypeKind::kMap,
                         vt.has_elem_type() ? dtype_of(vt.elem_type(), where) : DType::kUndefined,
                         TypeKind::kTensor, key};
      return;
    }
    default:
      v.type = ValueType{TypeKind::kUnknown, DType::kUndefined, TypeKind::kTensor};
  }
}

std::shared_ptr<Graph> build_graph(const onnx::GraphProto& gp, const Graph* parent, BuildState& st,
                                   std::shared_ptr<AxisFactory> factory) {
  if (++st.depth > kMaxDepth)
    fail(ErrorCode::kInvalidArgument, "graphs nested deeper than geon's limit of " +
                                          std::to_string(kMaxSubgraphNesting) +
                                          " levels below the main graph");
  auto g = std::make_shared<Graph>();
  g->name = gp.name();
  g->parent = parent;
  g->axis_factory = factory ? factory : std::make_shared<AxisFactory>();
  const std::string gwhere = "graph '" + gp.name() + "'";

  const bool cut =
      &gp == st.cut_graph && st.cut && st.cut->size() == static_cast<size_t>(gp.initializer_size());
  std::vector<DecodedInitializer> ahead;
  if (cut) ahead = decode_initializers_ahead(gp, st, gwhere);
  for (int i = 0; i < gp.initializer_size(); ++i) {
    const onnx::TensorProto& t = gp.initializer(i);
    if (t.name().empty())
      fail(ErrorCode::kInvalidArgument, gwhere + ": an initializer has no name");
    const std::string where = initializer_where(gwhere, t);
    try {
      std::shared_ptr<TensorData> data;
      if (!ahead.empty()) {
        if (ahead[i].error) std::rethrow_exception(ahead[i].error);
        data = std::move(ahead[i].data);
      }
      if (!data) data = decode_initializer(t, st, cut ? (*st.cut)[i] : std::nullopt, where);
      g->add_value(constant_value(t.name(), std::move(data), *g));
    } catch (const std::bad_alloc&) {
      fail(ErrorCode::kResourceExhausted, "out of memory while reading " + where);
    } catch (const Error& e) {
      // A failed buffer allocation does not know which initializer it was for.
      if (e.code() != ErrorCode::kResourceExhausted) throw;
      fail(e.code(), where + ": " + e.what());
    }
  }
  for (const auto& s : gp.sparse_initializer()) {
    const std::string name = s.values().name();
    if (name.empty())
      fail(ErrorCode::kInvalidArgument, gwhere + ": a sparse initializer has no name");
    g->add_value(constant_value(
        name,
        decode_sparse_tensor(s, st.opt->base_dir, gwhere + ": sparse initializer '" + name + "'"),
        *g));
  }
  // Hints from the node running this graph are for its own inputs, not for graphs nested in it.
  const std::vector<std::optional<BodyInputHint>> hints = std::move(st.input_hints);
  st.input_hints.clear();
  std::vector<std::pair<int, std::shared_ptr<const TensorData>>> defaults;
  for (int input_index = 0; input_index < gp.input_size(); ++input_index) {
    const auto& in = gp.input(input_index);
    const std::string where = gwhere + ": input '" + in.name() + "'";
    if (in.name().empty()) fail(ErrorCode::kInvalidArgument, gwhere + ": an input has no name");
    const int existing = g->find(in.name());
    if (existing >= 0) {
      // An input with an initializer: the initializer is its default, overridable per run.
      Value& v = g->value(existing);
      if (v.overridable || v.kind != ValueKind::kConstant)
        fail(ErrorCode::kInvalidArgument, where + " is listed twice");
      Value declared;
      if (in.has_type()) read_type(in.type(), *g, where, declared);
      if (in.has_type() && declared.type.dtype != DType::kUndefined &&
          declared.type.dtype != v.type.dtype)
        fail(ErrorCode::kInvalidArgument, where + " is declared " + to_string(declared.type) +
                                              " but its initializer is " + to_string(v.type));
      v.overridable = true;
      // Its value may change per run: rules must not fold it, so its data is hidden from them
      // while the nodes are built, and restored after.
      defaults.emplace_back(existing, std::move(v.data));
      v.data.reset();
      g->inputs.push_back(existing);
      continue;
    }
    Value v;
    v.name = in.name();
    v.kind = ValueKind::kInput;
    if (in.has_type()) read_type(in.type(), *g, where, v);
    if (static_cast<size_t>(input_index) < hints.size() && hints[input_index])
      apply_body_input_hint(*hints[input_index], g->factory(), v);
    g->inputs.push_back(g->add_value(std::move(v)));
  }
  std::unordered_map<std::string, const onnx::ValueInfoProto*> value_info;
  for (const auto& vi : gp.value_info()) value_info[vi.name()] = &vi;
  for (const auto& vi : gp.output()) value_info.emplace(vi.name(), &vi);

  ExpandedNodes nodes;
  expand_functions(gp.node(), st, gwhere, nodes);
  for (int i : dependency_order(nodes, *g)) {
    const onnx::NodeProto& np = nodes[i];
    const std::string where = gwhere + ": " + node_label(np, i);
    Node n;
    n.name = np.name().empty() ? np.op_type() + "#" + std::to_string(i) : np.name();
    n.op = np.op_type();
    n.domain = normal_domain(np.domain());
    auto os = st.opsets.find(n.domain);
    if (os == st.opsets.end())
      fail(ErrorCode::kInvalidArgument,
           where + ": domain '" + n.domain + "' is not in the model's opset_import");
    n.opset = os->second;
    for (const auto& in : np.input()) n.inputs.push_back(in.empty() ? -1 : capture_outer(*g, in));
    // Plain attributes first, so that bodies (graph attributes) can be built knowing what the
    // node feeds their inputs (Loop, Scan, SequenceMap: see body_input_hints).
    // An If whose condition is known now never runs its other branch: an error there (a Split
    // that only fits the other case) does not fail the model; the branch is dropped (a null
    // graph) and the If rule takes the live one.
    const std::string dead = dead_if_branch(n, *g);
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 1) st.input_hints = body_input_hints(n, *g);
      for (const auto& a : np.attribute()) {
        const bool is_graph =
            a.type() == onnx::AttributeProto::GRAPH || a.type() == onnx::AttributeProto::GRAPHS;
        if (is_graph != (pass == 1)) continue;
        if (a.name().empty())
          fail(ErrorCode::kInvalidArgument, where + ": an attribute has no name");
        Attribute attr;
        if (a.name() == dead && a.type() == onnx::AttributeProto::GRAPH) {
          const int depth = st.depth;
          try {
            attr = read_attribute(a, *g, st, where);
          } catch (const Error&) {
            st.depth = depth;
            attr.kind = Attribute::Kind::kGraph;
            attr.g = nullptr;
          }
        } else {
          attr = read_attribute(a, *g, st, where);
        }
        if (!n.attrs.emplace(a.name(), std::move(attr)).second)
          fail(ErrorCode::kInvalidArgument,
               where + ": attribute '" + a.name() + "' is given twice");
      }
      st.input_hints.clear();
    }
    const int node_index = static_cast<int>(g->nodes.size());
    for (const auto& out : np.output()) {
      if (out.empty()) {
        n.outputs.push_back(-1);
        continue;
      }
      Value v;
      v.name = out;
      v.producer = node_index;
      n.outputs.push_back(g->add_value(std::move(v)));
    }
    g->nodes.push_back(std::move(n));

    apply_rule(*g, node_index, st, where);
    if (is_gradient_node(g->nodes.back().domain, g->nodes.back().op)) {
      expand_gradient(*g, node_index, st, where);
      continue;
    }
    // Where a rule could not tell a shape, the model's value_info may.
    for (int o : g->nodes.back().outputs) {
      if (o < 0 || !st.opt->trust_value_info) continue;
      Value& v = g->value(o);
      auto vi = value_info.find(v.name);
      if (vi == value_info.end() || !vi->second->has_type()) continue;
      Value declared;
      read_type(vi->second->type(), *g, where + ": value_info '" + v.name + "'", declared);
      if (v.type.dtype == DType::kUndefined) v.type = declared.type;
      if (!v.rank_known && declared.rank_known && declared.type.kind == TypeKind::kTensor) {
        v.axes = declared.axes;
        v.rank_known = true;
      }
    }
  }
  for (auto& [index, data] : defaults) g->value(index).data = std::move(data);
  for (const auto& out : gp.output()) {
    int idx = g->find(out.name());
    if (idx < 0) idx = capture_outer(*g, out.name());
    if (idx < 0)
      fail(ErrorCode::kInvalidArgument, gwhere + ": output '" + out.name() +
                                            "' is not produced by any node, initializer or input");
    g->outputs.push_back(idx);
  }
  --st.depth;
  return g;
}

}  // namespace geon::importer
