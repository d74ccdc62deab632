// geon-inspect: what the provider makes of a model: the imported graph (values with dtypes and
// axes, nodes) and the placement report (each node's kernel set and why, subgraphs, memory),
// as text or drawn as a Graphviz picture.
#include <iostream>

#include "geon/geon.hpp"
#include "tools/common/command_line.h"
#include "tools/common/file_bytes.h"
#include "tools/common/host_tensor.h"
#include "tools/common/json_value.h"
#include "tools/common/provider_path.h"
#include "tools/common/tool_main.h"
#include "tools/geon-inspect/dot.h"
#include "tools/geon-inspect/graphviz.h"

namespace geon::tools {
namespace {

const std::string kUsage =
    std::string(
        "usage: geon-inspect MODEL [options]\n"
        "Prints the model's inputs and outputs, the imported graph and the placement report;\n"
        "with --dot or --svg, draws the placed graph instead: one box per node coloured by\n"
        "kernel set (legend), fused nodes with their members, constants listed in their\n"
        "consumer's box, edges labelled with shapes, transfers between devices in red.\n"
        "  --dot FILE             write the graph as Graphviz DOT text\n"
        "  --svg FILE             draw it as SVG (runs Graphviz's `dot`, $GEON_DOT or on PATH)\n"
        "  --png FILE             draw it as PNG (likewise)\n"
        "  --max-nodes N          draw at most N boxes (default 400, 0 = all); the picture and\n"
        "                         stderr say when it was cut\n"
        "  --no-collapse          draw every copy of a repeated block (default: a run of\n"
        "                         identical blocks, e.g. transformer layers, is drawn once, "
        "\"xN\")\n"
        "  --hide-constants       leave constant inputs (weights) out of the boxes\n") +
    kProviderArgsUsage;

struct InspectArgs {
  std::string model;
  std::string dot_path, svg_path, png_path;
  DotOptions dot;
  bool drawing() const { return !dot_path.empty() || !svg_path.empty() || !png_path.empty(); }
};

std::string dims_string(const geon::api::ValueInfo& v) {
  if (v.rank < 0) return "[?]";
  std::string s = "[";
  for (int32_t i = 0; i < v.rank; ++i) {
    if (i) s += ", ";
    s += v.dims[i] >= 0 ? std::to_string(v.dims[i])
                        : (v.dim_names[i].empty() ? "?" : v.dim_names[i]);
  }
  return s + "]";
}

void draw(const geon::api::Session& session, const InspectArgs& args) {
  DotOptions options = args.dot;
  options.title = args.model;
  DotSummary summary;
  const std::string dot = placement_dot(parse_json(session.placement_report()), options, summary);
  if (!args.dot_path.empty()) write_file_text(args.dot_path, dot);
  if (!args.svg_path.empty()) render_dot(dot, "svg", args.svg_path);
  if (!args.png_path.empty()) render_dot(dot, "png", args.png_path);
  for (const auto* path : {&args.dot_path, &args.svg_path, &args.png_path})
    if (!path->empty()) std::cout << "graph: " << *path << "\n";
  std::cout << summary.nodes << " nodes, " << summary.drawn << " boxes drawn\n";
  for (const RepeatRun& r : summary.collapsed)
    std::cout << "collapsed: nodes " << r.start << ".." << r.start + r.period * r.count - 1
              << ", a block of " << r.period << " nodes x" << r.count << "\n";
  if (summary.truncated)
    std::cerr << "geon-inspect: warning: the picture is truncated: the first " << summary.drawn
              << " of " << summary.boxes << " boxes drawn (" << summary.nodes
              << " nodes; --max-nodes " << options.max_nodes << ")\n";
}

int inspect_main(int argc, char** argv) {
  InspectArgs args;
  ProviderArgs reach;
  const auto take = [&args](const std::string& arg, ArgCursor& cursor) {
    if (arg == "--dot") {
      args.dot_path = cursor.value(arg);
    } else if (arg == "--svg") {
      args.svg_path = cursor.value(arg);
    } else if (arg == "--png") {
      args.png_path = cursor.value(arg);
    } else if (arg == "--max-nodes") {
      args.dot.max_nodes = static_cast<size_t>(parse_int(cursor.value(arg), arg, 0, 1 << 30));
    } else if (arg == "--no-collapse") {
      args.dot.collapse = false;
    } else if (arg == "--hide-constants") {
      args.dot.constants = false;
    } else {
      set_model(args.model, arg);
    }
  };
  if (!walk_command_line(argc, argv, kUsage, reach, take)) return 0;
  require_model(args.model);
  // Before loading anything: a picture that cannot be drawn fails at once.
  if ((!args.svg_path.empty() || !args.png_path.empty()) && find_dot().empty())
    render_dot("", args.svg_path.empty() ? "png" : "svg", "");
  const geon::api::Library lib(provider_path(reach.provider));
  const geon::api::Options options = provider_options(lib, reach);
  const geon::api::Session session(lib, args.model, &options);
  if (args.drawing()) {
    draw(session, args);
    return 0;
  }
  std::cout << "== model " << args.model << " (provider " << lib.version() << ")\n";
  for (const auto& v : session.inputs())
    std::cout << "input  " << v.name << ": " << dtype_name(v.dtype) << " " << dims_string(v)
              << "\n";
  for (const auto& v : session.outputs())
    std::cout << "output " << v.name << ": " << dtype_name(v.dtype) << " " << dims_string(v)
              << "\n";
  std::cout << "== graph\n" << session.graph_dump();
  std::cout << "\n== placement\n" << session.placement_report() << "\n";
  return 0;
}

}  // namespace
}  // namespace geon::tools

int main(int argc, char** argv) {
  return geon::tools::tool_main("geon-inspect", argc, argv, geon::tools::inspect_main, 1);
}
