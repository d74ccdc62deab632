// geon-inspect: what the provider makes of a model: the imported graph (values with dtypes and
// axes, nodes) and the placement report (each node's kernel set and why, subgraphs, memory).
#include <iostream>

#include "geon/geon.hpp"
#include "tools/common/args.h"
#include "tools/common/host_tensor.h"
#include "tools/common/provider_path.h"

namespace geon::tools {
namespace {

constexpr const char* kUsage =
    "usage: geon-inspect MODEL [--devices LIST] [--provider PATH]\n"
    "Prints the model's inputs and outputs, the imported graph and the placement report.\n";

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
  std::string model, devices, provider;
  ArgCursor args(argc, argv);
  while (args.more()) {
    const std::string arg = args.next();
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (arg == "--devices") {
      devices = args.value(arg);
    } else if (arg == "--provider") {
      provider = args.value(arg);
    } else if (!arg.empty() && arg[0] == '-') {
      throw ToolError("unknown option " + arg + " (see --help)");
    } else if (model.empty()) {
      model = arg;
    } else {
      throw ToolError("more than one model given: '" + model + "' and '" + arg + "'");
    }
  }
  if (model.empty()) throw ToolError("no model given (see --help)");
  const geon::api::Library lib(provider_path(provider));
  geon::api::Options options(lib);
  if (!devices.empty()) options.set("devices", devices);
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
  try {
    return geon::tools::inspect_main(argc, argv);
  } catch (const std::exception& e) {
    std::cout.flush();  // stdout first, so the error comes after what was printed
    std::cerr << "geon-inspect: error: " << e.what() << "\n";
  }
  return 1;
}
