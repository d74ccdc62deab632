// geon_fuzz_run_inputs: valid models, hostile run inputs. At start-up it reads a list of model
// paths (GEON_FUZZ_MODEL_LIST, else run_inputs_models.txt beside the binary, which the build
// writes: the committed models and the ONNX backend node test models). Each input's first two
// bytes pick a model (its index in the list, modulo its length); the rest build the inputs
// (hostile_inputs.h) for one run of a fresh session. Models with an unbounded Loop are left
// out of the list (model_checks.h), as are those geon cannot open; trip-count inputs get small
// values.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz_session.h"
#include "hostile_inputs.h"
#include "model_checks.h"

namespace {

struct Model {
  std::string path;
  geon::fuzz::LoopBounds loops;
};

std::vector<Model>& models() {
  static std::vector<Model> list;
  return list;
}

std::string list_path() {
  if (const char* env = std::getenv("GEON_FUZZ_MODEL_LIST"); env && *env) return env;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (exe.parent_path() / "run_inputs_models.txt").string();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::string list = list_path();
  std::ifstream in(list);
  std::string path;
  size_t unbounded = 0, unsupported = 0;
  const GeonApi& api = geon::fuzz::api();
  while (std::getline(in, path)) {
    if (path.empty()) continue;
    std::ifstream f(path, std::ios::binary);
    onnx::ModelProto m;
    if (!f || !m.ParseFromIstream(&f)) {
      // Kept, so that the indices of the others do not move: it picks no model.
      models().push_back({"", {}});
      continue;
    }
    geon::fuzz::LoopBounds loops = geon::fuzz::loop_bounds(m);
    // Models geon cannot open (ops it lacks, sequence inputs) pick nothing either.
    GeonSession* s = nullptr;
    const bool opens =
        !geon::fuzz::failed(api.create_session(path.c_str(), geon::fuzz::capped_options(), &s));
    api.release_session(s);
    if (!loops.bounded) ++unbounded;
    if (!opens) ++unsupported;
    models().push_back({loops.bounded && opens ? path : "", std::move(loops)});
  }
  if (models().empty()) {
    std::fprintf(stderr, "geon_fuzz_run_inputs: no models in %s (set GEON_FUZZ_MODEL_LIST)\n",
                 list.c_str());
    std::exit(1);
  }
  std::fprintf(stderr,
               "geon_fuzz_run_inputs: %zu models from %s (not run: %zu with unbounded Loops, "
               "%zu that geon cannot open)\n",
               models().size(), list.c_str(), unbounded, unsupported);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t index = (size_t{data[0]} << 8 | data[1]) % models().size();
  const Model& model = models()[index];
  if (model.path.empty()) return 0;
  const GeonApi& a = geon::fuzz::api();
  GeonSession* s = nullptr;
  geon::fuzz::count(geon::fuzz::Event::kInput);
  if (geon::fuzz::failed(a.create_session(model.path.c_str(), geon::fuzz::capped_options(), &s)))
    return 0;
  geon::fuzz::count(geon::fuzz::Event::kSession);
  FuzzedDataProvider fdp(data + 2, size - 2);
  geon::fuzz::HostileInputs in;
  if (geon::fuzz::build_hostile_inputs(fdp, s, model.loops.trip_count_inputs, in)) {
    GeonResult* r = nullptr;
    geon::fuzz::count(geon::fuzz::Event::kRun);
    if (!geon::fuzz::failed(a.run(s, in.names.data(), in.tensors.data(), in.tensors.size(), nullptr,
                                  0, nullptr, &r))) {
      geon::fuzz::count(geon::fuzz::Event::kRunOk);
      geon::fuzz::consume_result(r);
    }
  } else {
    geon::fuzz::count(geon::fuzz::Event::kSkippedSize);
  }
  a.release_session(s);
  return 0;
}
