#include "tools/geon-run/inputs.h"

#include <set>

#include "tools/common/random_tensor.h"
#include "tools/common/tensor_file.h"

namespace geon::tools {

std::vector<HostTensor> prepare_inputs(const std::vector<geon::api::ValueInfo>& inputs,
                                       const RunArgs& args, std::vector<std::string>& notes) {
  std::set<std::string> known;
  for (const auto& in : inputs) known.insert(in.name);
  std::map<std::string, std::string> files;
  for (const auto& [name, path] : args.inputs) {
    if (!known.count(name)) {
      std::string list;
      for (const auto& in : inputs) list += (list.empty() ? "" : ", ") + in.name;
      throw ToolError("--input " + name + ": the model has no input '" + name +
                      "' (inputs: " + list + ")");
    }
    if (!files.emplace(name, path).second) throw ToolError("--input " + name + " given twice");
  }
  std::set<std::string> used_dims;
  std::vector<HostTensor> out;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const auto& in = inputs[k];
    if (auto f = files.find(in.name); f != files.end()) {
      HostTensor t = read_tensor_file(f->second);
      t.name = in.name;
      out.push_back(std::move(t));
      continue;
    }
    if (in.has_default) continue;  // an initializer: random data would replace the weights
    if (in.rank < 0) {
      throw ToolError("input '" + in.name + "' has no declared shape; give it with --input " +
                      in.name + "=FILE.npy");
    }
    std::vector<int64_t> shape;
    for (int32_t d = 0; d < in.rank; ++d) {
      if (in.dims[d] >= 0) {
        shape.push_back(in.dims[d]);
        continue;
      }
      const std::string& sym = in.dim_names[d];
      if (auto it = args.dims.find(sym); !sym.empty() && it != args.dims.end()) {
        shape.push_back(it->second);
        used_dims.insert(sym);
      } else {
        shape.push_back(1);
        notes.push_back("input '" + in.name + "' dim " + std::to_string(d) +
                        (sym.empty() ? " (unnamed)" : " '" + sym + "'") + " set to 1 (use --dim)");
      }
    }
    // Each input gets its own stream, so adding an input does not change the others.
    out.push_back(random_tensor(in.name, in.dtype, shape, args.seed * 1'000'003u + k));
  }
  for (const auto& [sym, len] : args.dims) {
    if (!used_dims.count(sym)) notes.push_back("--dim " + sym + " matches no symbolic input dim");
  }
  return out;
}

}  // namespace geon::tools
