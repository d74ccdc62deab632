// Lists a model's inputs and outputs as it declares them: name, element type and shape, with
// symbolic dims by name ("batch") and dims known only at run time as "?".
// Usage: list_inputs_outputs MODEL.onnx [PROVIDER.so]
#include <cstdio>
#include <string>

#include "geon/geon.hpp"

namespace {

// "[batch, 64]": a symbol where the dim has one, the length where it is static.
std::string shape_text(const geon::api::ValueInfo& v) {
  if (v.rank < 0) return "(unknown rank)";
  std::string s = "[";
  for (size_t d = 0; d < v.dims.size(); ++d) {
    if (d) s += ", ";
    if (v.dims[d] >= 0)
      s += std::to_string(v.dims[d]);
    else
      s += v.dim_names[d].empty() ? "?" : v.dim_names[d];
  }
  return s + "]";
}

void list_inputs_outputs(const std::string& model_path, const std::string& provider_path) {
  // 1. Load the provider and create a session (the model is imported, nothing runs yet).
  geon::api::Library lib(provider_path);
  geon::api::Session session(lib, model_path);

  // 2. Inputs: the ones a run must feed first, then those with a default (an initializer).
  for (const geon::api::ValueInfo& v : session.inputs())
    std::printf("input %s: %s %s%s\n", v.name.c_str(), geon::api::dtype_name(v.dtype).c_str(),
                shape_text(v).c_str(), v.has_default ? " (has a default)" : "");

  // 3. Outputs, in model order.
  for (const geon::api::ValueInfo& v : session.outputs())
    std::printf("output %s: %s %s\n", v.name.c_str(), geon::api::dtype_name(v.dtype).c_str(),
                shape_text(v).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s MODEL.onnx [PROVIDER.so]\n", argv[0]);
    return 2;
  }
  try {
    list_inputs_outputs(argv[1], argc == 3 ? argv[2] : GEON_PROVIDER_LIBRARY);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
