// Runs an ONNX model from C++ through geon.hpp: load libgeon_provider.so by path (no link to
// it), create a session, feed every input, print every output. Errors are exceptions.
// Usage: run_model_cpp MODEL.onnx [PROVIDER.so]   (e.g. models/cnn.onnx). Symbolic dims are
// set to 2, and input element i is ((i % 17) - 8) / 8, as in run_model.c.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "geon/geon.hpp"

namespace {

void print_shape(const char* kind, const std::string& name, const std::vector<int64_t>& shape) {
  std::printf("%s %s: [", kind, name.c_str());
  for (size_t d = 0; d < shape.size(); ++d)
    std::printf(d ? ", %lld" : "%lld", static_cast<long long>(shape[d]));
  std::printf("]\n");
}

void run_model(const std::string& model_path, const std::string& provider_path) {
  // 1. Load the provider by path; the Library checks that it implements this header's version.
  geon::api::Library lib(provider_path);
  std::printf("geon %s\n", lib.version().c_str());

  // 2. A session with two options: kernel sets in priority order, and two engine threads.
  geon::api::Options options(lib);
  options.set("devices", "cpu.dnnl,cpu.generic").set("intra_op_threads", "2");
  geon::api::Session session(lib, model_path, &options);

  // 3. One float tensor per input: the declared shape, with 2 for every symbolic dim. The
  // vectors must outlive the run: feeds are read in place.
  std::vector<std::vector<float>> data;
  std::vector<geon::api::Feed> feeds;
  for (const geon::api::ValueInfo& info : session.inputs()) {
    if (info.dtype != 1) throw std::runtime_error("input " + info.name + " is not float");
    std::vector<int64_t> shape;
    for (int64_t d : info.dims) shape.push_back(d < 0 ? 2 : d);
    std::vector<float>& values = data.emplace_back(geon::api::element_count(shape));
    for (size_t k = 0; k < values.size(); ++k)
      values[k] = static_cast<float>(static_cast<int>(k % 17) - 8) / 8.0f;
    feeds.push_back({info.name, 1, shape, values.data(), values.size() * sizeof(float)});
    print_shape("input", info.name, shape);
  }

  // 4. Run; run() returns owned copies of every output, in model order.
  for (const geon::api::Tensor& out : session.run(feeds)) {
    // 5. Print each output: a header line, then the values (float outputs only).
    print_shape("output", out.name, out.shape);
    if (out.dtype != 1) continue;
    const char* sep = "";
    for (float v : out.as<float>()) std::printf("%s%.9g", std::exchange(sep, " "), v);
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s MODEL.onnx [PROVIDER.so]\n", argv[0]);
    return 2;
  }
  try {
    // The installed library by default (GEON_PROVIDER_LIBRARY, from examples/CMakeLists.txt).
    run_model(argv[1], argc == 3 ? argv[2] : GEON_PROVIDER_LIBRARY);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
