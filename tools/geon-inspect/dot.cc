#include "tools/geon-inspect/dot.h"

#include <map>
#include <set>
#include <unordered_map>

#include "tools/common/host_tensor.h"

namespace geon::tools {
namespace {

struct NodeInfo {
  std::string name, op, set, device;
  std::vector<std::string> inputs, outputs, members;
};

std::vector<std::string> strings_of(const JsonValue* list) {
  std::vector<std::string> out;
  if (list && list->is_array())
    for (const JsonValue& s : list->items) out.push_back(s.str());
  return out;
}

std::vector<NodeInfo> read_nodes(const JsonValue& report) {
  const JsonValue* nodes = report.find("nodes");
  if (!nodes || !nodes->is_array()) throw ToolError("the placement report has no \"nodes\" list");
  std::vector<NodeInfo> out;
  for (const JsonValue& n : nodes->items) {
    if (!n.find("inputs") || !n.find("outputs"))
      throw ToolError(
          "the placement report's nodes lack \"inputs\"/\"outputs\" (a provider "
          "older than this geon-inspect?)");
    const auto text = [&n](const char* key, const char* fallback) {
      const JsonValue* v = n.find(key);
      return v && v->is_string() ? v->string : std::string(fallback);
    };
    out.push_back({text("name", ""), text("op", "?"), text("set", "unplaced"), text("device", ""),
                   strings_of(n.find("inputs")), strings_of(n.find("outputs")),
                   strings_of(n.find("members"))});
  }
  return out;
}

// Text inside a DOT double-quoted string; "\n" stays a line break.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out + "\"";
}

// Long ONNX names ("/stages/stages.1/project/project.0/Conv") keep their tail, which says most.
std::string shortened(const std::string& s, size_t max = 48) {
  return s.size() <= max ? s : "…" + s.substr(s.size() - (max - 1));
}

std::string op_without_domain(const std::string& op) {
  return op.rfind("geon.", 0) == 0 ? op.substr(5) : op;
}

class Values {
 public:
  explicit Values(const JsonValue* values) : values_(values) {}
  const JsonValue* find(const std::string& name) const {
    return values_ ? values_->find(name) : nullptr;
  }
  std::string kind(const std::string& name) const {
    const JsonValue* v = find(name);
    return v && v->find("kind") ? v->find("kind")->str() : "";
  }
  // "[8, 64, batch] float": the shape, and the dtype when it is short.
  std::string label(const std::string& name) const {
    const JsonValue* v = find(name);
    if (!v) return "";
    std::string shape = "[?]";
    if (const JsonValue* s = v->find("shape"); s && s->is_array()) {
      shape = "[";
      for (size_t i = 0; i < s->items.size(); ++i) {
        const JsonValue& d = s->items[i];
        shape += (i ? ", " : "") + (d.is_number()   ? std::to_string(static_cast<int64_t>(d.number))
                                    : d.is_string() ? d.string
                                                    : std::string("?"));
      }
      shape += "]";
    }
    const std::string dtype = v->find("dtype") ? v->find("dtype")->str() : "";
    if (dtype.size() <= 8 && !dtype.empty()) shape += " " + dtype;
    if (const JsonValue* layout = v->find("layout")) shape += " (layout " + layout->str() + ")";
    return shape;
  }

 private:
  const JsonValue* values_;
};

// Fill colours per kernel set: the known sets fixed, others from a palette in order of use.
std::string set_colour(const std::string& set, std::map<std::string, std::string>& used) {
  static const std::map<std::string, std::string> known = {{"cpu.dnnl", "#9ecae1"},
                                                           {"cpu.generic", "#fdd49e"},
                                                           {"cuda", "#a1d99b"},
                                                           {"control", "#d9d9d9"},
                                                           {"unplaced", "#fcbba1"}};
  static const char* const palette[] = {"#dadaeb", "#c7e9c0", "#fee391", "#d4b9da", "#bcbddc"};
  if (auto it = used.find(set); it != used.end()) return it->second;
  const auto k = known.find(set);
  const std::string colour = k != known.end() ? k->second : palette[used.size() % 5];
  used[set] = colour;
  return colour;
}

// A node's signature for finding repeated blocks: what it does, on which set, and the shapes it
// reads and writes; not where its inputs come from, so that the first layer of a stack (which
// reads the graph input) still counts as a copy of the others.
std::vector<uint64_t> signatures(const std::vector<NodeInfo>& nodes, const Values& values) {
  std::unordered_map<std::string, uint64_t> ids;
  std::vector<uint64_t> out;
  for (const NodeInfo& n : nodes) {
    std::string sig = n.op + "|" + n.set + "|";
    for (const auto& m : n.members) sig += m.substr(0, m.find(':')) + ",";
    for (const auto& in : n.inputs)
      sig += (values.kind(in) == "constant" ? "|c" : "|v") + values.label(in);
    for (const auto& o : n.outputs) sig += "|" + values.label(o);
    out.push_back(ids.emplace(sig, ids.size()).first->second);
  }
  return out;
}

std::string node_label(const NodeInfo& n, const std::vector<std::string>& constants) {
  std::string label = op_without_domain(n.op);
  if (n.members.empty()) {
    label += "\n" + shortened(n.name);
  } else {
    for (const auto& m : n.members) label += "\n· " + m;
  }
  if (!constants.empty()) {
    for (size_t i = 0; i < constants.size() && i < 3; ++i) label += "\nconst " + constants[i];
    if (constants.size() > 3)
      label += "\n+" + std::to_string(constants.size() - 3) + " more constants";
  }
  return label;
}

// What a truncated picture says about itself, on the picture and in its caption.
std::string cut_note(const DotSummary& summary, size_t boxes, size_t max_nodes) {
  return "the first " + std::to_string(summary.drawn) + " of " + std::to_string(boxes) +
         " boxes drawn (" + std::to_string(summary.nodes) + " nodes; --max-nodes " +
         std::to_string(max_nodes) + ")";
}

// Which box stands for which node: a node of a later copy of a repeated block is drawn as the
// matching node of the first copy; past the limit, nodes are not drawn at all.
struct Boxes {
  std::vector<size_t> shown_as;  // the node whose box stands for this one
  std::vector<int> copy_of;      // 0 = drawn itself (or outside any run)
  std::vector<int> run_of;       // index into DotSummary::collapsed, -1 = none
  std::vector<bool> drawn;
  size_t count = 0;  // boxes after collapsing, before the limit
};

Boxes plan_boxes(const std::vector<NodeInfo>& nodes, const Values& values,
                 const DotOptions& options, DotSummary& summary) {
  const size_t n = nodes.size();
  Boxes b{std::vector<size_t>(n), std::vector<int>(n, 0), std::vector<int>(n, -1),
          std::vector<bool>(n, false), 0};
  for (size_t i = 0; i < n; ++i) b.shown_as[i] = i;
  if (options.collapse) summary.collapsed = find_repeats(signatures(nodes, values), 3);
  for (size_t r = 0; r < summary.collapsed.size(); ++r) {
    const RepeatRun& run = summary.collapsed[r];
    for (size_t j = run.start; j < run.start + run.period * run.count; ++j) {
      b.shown_as[j] = run.start + (j - run.start) % run.period;
      b.copy_of[j] = static_cast<int>((j - run.start) / run.period);
      b.run_of[j] = static_cast<int>(r);
    }
  }
  for (size_t i = 0; i < n; ++i) b.count += b.copy_of[i] == 0 ? 1 : 0;
  for (size_t i = 0; i < n; ++i) {
    if (b.copy_of[i] != 0) continue;
    if (options.max_nodes && summary.drawn >= options.max_nodes) {
      summary.truncated = true;
      break;
    }
    b.drawn[i] = true;
    ++summary.drawn;
  }
  return b;
}

// The graph's inputs and outputs as ellipses; `io_id` gets each one's DOT id.
std::string io_ellipses(const JsonValue& report, const Values& values,
                        std::map<std::string, std::string>& io_id) {
  std::string out;
  if (const JsonValue* vs = report.find("values"))
    for (const auto& [name, v] : vs->members) {
      const std::string kind = v.find("kind") ? v.find("kind")->str() : "";
      if (kind != "input" && kind != "output") continue;
      const std::string id = (kind == "input" ? "in_" : "out_") + std::to_string(io_id.size());
      io_id[name] = id;
      out += "  " + id + " [shape=ellipse, fillcolor=\"" +
             (kind == "input" ? "#ffffff" : "#f0f0f0") +
             "\", label=" + quoted(kind + " " + name + "\n" + values.label(name)) + "];\n";
    }
  return out;
}

// One swatch per kernel set in use, and the transfer edge's colour when there are transfers.
std::string legend(const std::map<std::string, std::string>& colours, bool transfers) {
  std::string out = "  subgraph cluster_legend {\n    label=\"kernel sets\";\n    fontsize=10;\n";
  size_t k = 0;
  for (const auto& [set, colour] : colours)
    out += "    legend_" + std::to_string(k++) + " [label=" + quoted(set) + ", fillcolor=\"" +
           colour + "\"];\n";
  if (transfers)
    out +=
        "    legend_transfer [label=\"transfer between devices\", fillcolor=\"#ffffff\", "
        "color=\"#d62728\", penwidth=2];\n";
  return out + "  }\n";
}

}  // namespace

std::string placement_dot(const JsonValue& report, const DotOptions& options, DotSummary& summary) {
  const std::vector<NodeInfo> nodes = read_nodes(report);
  if (!report.find("values")) throw ToolError("the placement report has no \"values\" table");
  const Values values(report.find("values"));
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const auto& o : nodes[i].outputs)
      if (!o.empty()) producer[o] = i;
  std::map<std::string, std::string> transfers;  // value -> "host → cuda:0"
  if (const JsonValue* t = report.find("transfers"); t && t->is_array())
    for (const JsonValue& e : t->items)
      if (e.find("value") && e.find("from") && e.find("to"))
        transfers[e.find("value")->str()] = e.find("from")->str() + " → " + e.find("to")->str();
  summary = DotSummary{nodes.size(), 0, 0, {}, false};
  const Boxes boxes = plan_boxes(nodes, values, options, summary);
  summary.boxes = boxes.count;

  std::string caption = options.title + "\n" + std::to_string(nodes.size()) + " nodes";
  if (!summary.collapsed.empty())
    caption +=
        ", " + std::to_string(summary.collapsed.size()) + " run(s) of repeated blocks drawn once";
  if (summary.truncated)
    caption += "\nTRUNCATED: " + cut_note(summary, boxes.count, options.max_nodes);
  std::string out = "digraph geon {\n  rankdir=TB;\n  labelloc=t;\n  fontname=\"Helvetica\";\n";
  out += "  label=" + quoted(caption) + ";\n";
  out += "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n";
  out += "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\"];\n";
  std::map<std::string, std::string> io_id;  // value -> DOT id
  out += io_ellipses(report, values, io_id);

  std::map<std::string, std::string> colours;
  std::vector<std::string> clusters(summary.collapsed.size());
  std::set<std::string> edges;
  std::set<int> chained;  // runs whose "next copy" edge is drawn
  std::string edge_text;
  const auto add_edge = [&](const std::string& from, const std::string& to,
                            const std::string& value, std::string extra) {
    if (!edges.insert(from + ">" + to + ">" + value).second) return;
    std::string label = values.label(value);
    if (auto t = transfers.find(value); t != transfers.end()) {
      label += "\ntransfer " + t->second;
      extra += ", color=\"#d62728\", fontcolor=\"#d62728\", penwidth=2";
    }
    edge_text += "  " + from + " -> " + to + " [label=" + quoted(label) +
                 ", tooltip=" + quoted(value) + extra + "];\n";
  };
  const auto box = [](size_t i) { return "n" + std::to_string(i); };
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeInfo& n = nodes[i];
    // Edges into this node: from its producer's box, or from a graph input; constants are
    // listed in the box instead.
    std::vector<std::string> constants;
    for (const auto& in : n.inputs) {
      if (in.empty()) continue;
      const auto p = producer.find(in);
      if (p == producer.end()) {
        if (auto io = io_id.find(in); io != io_id.end()) {
          if (boxes.drawn[i]) add_edge(io->second, box(i), in, "");
        } else if (options.constants) {
          constants.push_back(shortened(in, 24) + " " + values.label(in));
        }
        continue;
      }
      const size_t from = boxes.shown_as[p->second], to = boxes.shown_as[i];
      if (!boxes.drawn[from] || !boxes.drawn[to]) continue;
      const int copy = boxes.copy_of[i], run = boxes.run_of[i];
      if (copy == 0) {
        add_edge(box(from), box(to), in, "");
      } else if (run != boxes.run_of[p->second]) {
        add_edge(box(from), box(to), in, "");  // into a later copy from outside the run
      } else if (copy == 1 && boxes.copy_of[p->second] == 0 && chained.insert(run).second) {
        // The first copy feeding the second: one edge says the blocks follow one another.
        add_edge(box(from), box(to), in, ", style=dashed, constraint=false, xlabel=\"next copy\"");
      }
    }
    if (!boxes.drawn[i]) continue;
    const std::string line = box(i) + " [label=" + quoted(node_label(n, constants)) +
                             ", fillcolor=\"" + set_colour(n.set, colours) +
                             "\", tooltip=" + quoted(n.name + " (" + n.set + ")") + "];\n";
    if (boxes.run_of[i] >= 0)
      clusters[boxes.run_of[i]] += "    " + line;
    else
      out += "  " + line;
  }
  for (const auto& [name, id] : io_id) {  // graph outputs, from their producers' boxes
    const auto p = producer.find(name);
    if (p != producer.end() && boxes.drawn[boxes.shown_as[p->second]])
      add_edge(box(boxes.shown_as[p->second]), id, name, "");
  }
  for (size_t r = 0; r < clusters.size(); ++r) {
    const RepeatRun& run = summary.collapsed[r];
    if (clusters[r].empty()) continue;
    out += "  subgraph cluster_repeat_" + std::to_string(r) + " {\n    label=" +
           quoted("×" + std::to_string(run.count) + "  (nodes " + std::to_string(run.start) + "–" +
                  std::to_string(run.start + run.period * run.count - 1) + ", drawn once)") +
           ";\n    style=\"dashed,rounded\";\n    color=\"#444444\";\n" + clusters[r] + "  }\n";
  }
  out += edge_text;
  if (summary.truncated)
    out += "  truncated [shape=note, fillcolor=\"#ffdddd\", label=" +
           quoted("graph truncated:\n" + cut_note(summary, boxes.count, options.max_nodes)) +
           "];\n";
  return out + legend(colours, !transfers.empty()) + "}\n";
}

}  // namespace geon::tools
