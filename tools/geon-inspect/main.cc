// geon-inspect: what the provider makes of a model: the imported graph (values with dtypes and
// axes, nodes) and the placement report (each node's kernel set and why, subgraphs, memory).
#include <iostream>

#include "geon/geon.hpp"
#include "tools/common/command_line.h"
#include "tools/common/host_tensor.h"
#include "tools/common/provider_path.h"
#include "tools/common/tool_main.h"

namespace geon::tools {
namespace {

const std::string kUsage =
    std::string(
        "usage: geon-inspect MODEL [options]\n"
        "Prints the model's inputs and outputs, the imported graph and the placement "
        "report.\n") +
    kProviderArgsUsage;

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

int inspect_main(int argc, char** argv) {
  std::string model;
  ProviderArgs reach;
  const auto take = [&model](const std::string& arg, ArgCursor&) { set_model(model, arg); };
  if (!walk_command_line(argc, argv, kUsage, reach, take)) return 0;
  require_model(model);
  const geon::api::Library lib(provider_path(reach.provider));
  const geon::api::Options options = provider_options(lib, reach);
  const geon::api::Session session(lib, model, &options);
  std::cout << "== model " << model << " (provider " << lib.version() << ")\n";
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
