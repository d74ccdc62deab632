// geon against ONNX Runtime through their C APIs, side by side in one process: the run cost a
// host program pays per call, and per node, with no Python in between (the performance issue's
// small-model target). Both libraries are opened by path with dlopen; both sessions get the same
// random float inputs and intra-op thread count (ONNX Runtime: one inter-op thread, all graph
// optimizations), and run in alternating blocks of about 100 ms, so machine noise hits both;
// outputs are checked to agree first. It prints each runtime's p50 and p99 per run and the p50
// over the model's node count (what a node costs a small model), and the ratio of the p50s.
//
//   geon_capi_compare MODEL.onnx --ort PATH/libonnxruntime.so.1.x [--provider PATH]
//       [--threads 2] [--seconds 4] [--dim N]
//
// ONNX Runtime's wheel ships its library but not its C header, so the few OrtApi entries used
// here are declared below by their slot in that append-only table of function pointers (slots
// and signatures from the header's documentation of the C API).
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "geon/geon.hpp"
#include "tools/common/random_tensor.h"
#include "tools/common/tensor_file.h"

namespace {

using geon::tools::HostTensor;
using geon::tools::kFloat;
using geon::tools::random_tensor;
using geon::tools::to_feed;

// --- the part of ONNX Runtime's C API used here ------------------------------------------------

struct OrtStatus;
struct OrtEnv;
struct OrtSession;
struct OrtSessionOptions;
struct OrtMemoryInfo;
struct OrtValue;
struct OrtRunOptions;
struct OrtTensorTypeAndShapeInfo;

struct OrtApiBase {
  const void* const* (*GetApi)(uint32_t version);  // the OrtApi table, or null
  const char* (*GetVersionString)();
};

// The API version asked for: its table holds every slot below (they all date from the first
// versions), and a newer library serves the tables of older versions.
constexpr uint32_t kOrtApiVersion = 13;

enum OrtSlot : int {
  kGetErrorMessage = 2,
  kCreateEnv = 3,
  kCreateSession = 7,
  kRun = 9,
  kCreateSessionOptions = 10,
  kSetSessionGraphOptimizationLevel = 23,
  kSetIntraOpNumThreads = 24,
  kSetInterOpNumThreads = 25,
  kCreateTensorWithDataAsOrtValue = 49,
  kGetTensorMutableData = 51,
  kGetTensorShapeElementCount = 64,
  kGetTensorTypeAndShape = 65,
  kCreateCpuMemoryInfo = 69,
  kReleaseEnv = 92,
  kReleaseStatus = 93,
  kReleaseMemoryInfo = 94,
  kReleaseSession = 95,
  kReleaseValue = 96,
  kReleaseTensorTypeAndShapeInfo = 99,
  kReleaseSessionOptions = 100,
};

constexpr int kOrtLoggingWarning = 2;
constexpr int kOrtArenaAllocator = 1;
constexpr int kOrtMemTypeDefault = 0;
constexpr int kOrtFloat = 1;
constexpr int kOrtEnableAll = 99;

class Ort {
 public:
  explicit Ort(const std::string& path) {
    lib_ = dlopen(path.c_str(), RTLD_LOCAL | RTLD_NOW);
    if (!lib_) throw std::runtime_error("cannot load ONNX Runtime '" + path + "': " + dlerror());
    using GetBase = const OrtApiBase* (*)();
    const auto base = reinterpret_cast<GetBase>(dlsym(lib_, "OrtGetApiBase"));
    if (!base) throw std::runtime_error("'" + path + "' does not export OrtGetApiBase");
    version_ = base()->GetVersionString();
    api_ = base()->GetApi(kOrtApiVersion);
    if (!api_) throw std::runtime_error("ONNX Runtime " + version_ + " refused API version 13");
  }
  ~Ort() = default;  // not closed: its sessions' threads may outlive main's locals
  Ort(const Ort&) = delete;
  Ort& operator=(const Ort&) = delete;

  template <typename Fn>
  Fn fn(OrtSlot slot) const {
    return reinterpret_cast<Fn>(api_[slot]);
  }
  // Throws with ONNX Runtime's message for a failed call.
  void check(OrtStatus* s, const char* what) const {
    if (!s) return;
    const std::string msg = fn<const char* (*)(const OrtStatus*)>(kGetErrorMessage)(s);
    fn<void (*)(OrtStatus*)>(kReleaseStatus)(s);
    throw std::runtime_error(std::string("ONNX Runtime ") + what + ": " + msg);
  }
  const std::string& version() const { return version_; }

 private:
  void* lib_ = nullptr;
  const void* const* api_ = nullptr;
  std::string version_;
};

// --- the two sessions, each as a run function over prepared inputs ---------------------------

// geon's session, run through the C ABI with inputs prepared once.
class GeonRunner {
 public:
  GeonRunner(const geon::api::Library& lib, const std::string& model, int threads)
      : api_(lib.api()), options_(lib) {
    options_.set("intra_op_threads", std::to_string(threads));
    session_.emplace(lib, model, &options_);
  }
  const geon::api::Session& session() const { return *session_; }
  void set_inputs(const std::vector<HostTensor>& inputs) {
    feeds_.clear();
    for (const HostTensor& in : inputs) feeds_.push_back(to_feed(in));
    names_.clear();
    tensors_.clear();
    for (const geon::api::Feed& f : feeds_) {
      names_.push_back(f.name.c_str());
      tensors_.push_back(GeonTensor{f.dtype, static_cast<int32_t>(f.shape.size()), f.shape.data(),
                                    const_cast<void*>(f.data), f.bytes});
    }
  }
  // One run through the C ABI, its outputs left in the provider's memory and released.
  void run() const {
    GeonResult* result = nullptr;
    GeonStatus* s = api_.run(session_->get(), names_.data(), tensors_.data(), tensors_.size(),
                             nullptr, 0, nullptr, &result);
    if (s) {
      const std::string msg = api_.status_message(s);
      api_.release_status(s);
      throw std::runtime_error("geon run: " + msg);
    }
    api_.release_result(result);
  }
  // The first output's floats, from one more run.
  std::vector<float> first_output() const {
    const geon::api::Tensor t = session_->run_result(feeds_).copy(0);
    const float* p = reinterpret_cast<const float*>(t.data.data());
    return std::vector<float>(p, p + t.data.size() / sizeof(float));
  }

 private:
  const GeonApi& api_;
  geon::api::Options options_;
  std::optional<geon::api::Session> session_;  // made after options_ is set
  std::vector<geon::api::Feed> feeds_;
  std::vector<const char*> names_;  // feeds_ as the C ABI takes them
  std::vector<GeonTensor> tensors_;
};

class OrtRunner {
 public:
  OrtRunner(const Ort& ort, const std::string& model, int threads,
            const std::vector<HostTensor>& inputs, const std::vector<std::string>& outputs)
      : ort_(ort), output_names_(outputs) {
    ort.check(ort.fn<OrtStatus* (*)(int, const char*, OrtEnv**)>(kCreateEnv)(kOrtLoggingWarning,
                                                                             "geon-bench", &env_),
              "CreateEnv");
    OrtSessionOptions* so = nullptr;
    ort.check(ort.fn<OrtStatus* (*)(OrtSessionOptions**)>(kCreateSessionOptions)(&so),
              "CreateSessionOptions");
    using SetInt = OrtStatus* (*)(OrtSessionOptions*, int);
    ort.check(ort.fn<SetInt>(kSetIntraOpNumThreads)(so, threads), "SetIntraOpNumThreads");
    ort.check(ort.fn<SetInt>(kSetInterOpNumThreads)(so, 1), "SetInterOpNumThreads");
    ort.check(ort.fn<SetInt>(kSetSessionGraphOptimizationLevel)(so, kOrtEnableAll),
              "SetSessionGraphOptimizationLevel");
    using Create =
        OrtStatus* (*)(const OrtEnv*, const char*, const OrtSessionOptions*, OrtSession**);
    ort.check(ort.fn<Create>(kCreateSession)(env_, model.c_str(), so, &session_), "CreateSession");
    ort.fn<void (*)(OrtSessionOptions*)>(kReleaseSessionOptions)(so);
    ort.check(ort.fn<OrtStatus* (*)(int, int, OrtMemoryInfo**)>(kCreateCpuMemoryInfo)(
                  kOrtArenaAllocator, kOrtMemTypeDefault, &memory_),
              "CreateCpuMemoryInfo");
    using Wrap = OrtStatus* (*)(const OrtMemoryInfo*, void*, size_t, const int64_t*, size_t, int,
                                OrtValue**);
    for (const HostTensor& in : inputs) {
      OrtValue* v = nullptr;
      ort.check(ort.fn<Wrap>(kCreateTensorWithDataAsOrtValue)(
                    memory_, const_cast<std::byte*>(in.data.data()), in.data.size(),
                    in.shape.data(), in.shape.size(), kOrtFloat, &v),
                "CreateTensorWithDataAsOrtValue");
      inputs_.push_back(v);
      input_names_.push_back(in.name.c_str());
    }
    for (const std::string& n : output_names_) output_ptrs_.push_back(n.c_str());
    outputs_.assign(output_names_.size(), nullptr);
  }
  ~OrtRunner() {
    for (OrtValue* v : inputs_) ort_.fn<void (*)(OrtValue*)>(kReleaseValue)(v);
    ort_.fn<void (*)(OrtMemoryInfo*)>(kReleaseMemoryInfo)(memory_);
    ort_.fn<void (*)(OrtSession*)>(kReleaseSession)(session_);
    ort_.fn<void (*)(OrtEnv*)>(kReleaseEnv)(env_);
  }
  OrtRunner(const OrtRunner&) = delete;
  OrtRunner& operator=(const OrtRunner&) = delete;

  // One run, its outputs allocated by ONNX Runtime and released.
  void run() { release(run_keep()); }
  // The first output's floats, from one more run.
  std::vector<float> first_output() {
    std::vector<OrtValue*>& outs = run_keep();
    OrtTensorTypeAndShapeInfo* info = nullptr;
    size_t count = 0;
    ort_.check(ort_.fn<OrtStatus* (*)(const OrtValue*, OrtTensorTypeAndShapeInfo**)>(
                   kGetTensorTypeAndShape)(outs[0], &info),
               "GetTensorTypeAndShape");
    OrtStatus* counted = ort_.fn<OrtStatus* (*)(const OrtTensorTypeAndShapeInfo*, size_t*)>(
        kGetTensorShapeElementCount)(info, &count);
    ort_.fn<void (*)(OrtTensorTypeAndShapeInfo*)>(kReleaseTensorTypeAndShapeInfo)(info);
    ort_.check(counted, "GetTensorShapeElementCount");  // after the release: it may throw
    void* data = nullptr;
    ort_.check(ort_.fn<OrtStatus* (*)(OrtValue*, void**)>(kGetTensorMutableData)(outs[0], &data),
               "GetTensorMutableData");
    std::vector<float> out(static_cast<const float*>(data),
                           static_cast<const float*>(data) + count);
    release(outs);
    return out;
  }

 private:
  std::vector<OrtValue*>& run_keep() {
    using Run =
        OrtStatus* (*)(OrtSession*, const OrtRunOptions*, const char* const*,
                       const OrtValue* const*, size_t, const char* const*, size_t, OrtValue**);
    ort_.check(
        ort_.fn<Run>(kRun)(session_, nullptr, input_names_.data(), inputs_.data(), inputs_.size(),
                           output_ptrs_.data(), output_ptrs_.size(), outputs_.data()),
        "Run");
    return outputs_;
  }
  void release(std::vector<OrtValue*>& outs) {
    for (OrtValue*& v : outs) {
      ort_.fn<void (*)(OrtValue*)>(kReleaseValue)(v);
      v = nullptr;
    }
  }

  const Ort& ort_;
  OrtEnv* env_ = nullptr;
  OrtSession* session_ = nullptr;
  OrtMemoryInfo* memory_ = nullptr;
  std::vector<OrtValue*> inputs_;
  std::vector<const char*> input_names_;
  std::vector<std::string> output_names_;
  std::vector<const char*> output_ptrs_;
  std::vector<OrtValue*> outputs_;
};

// --- the measurement ---------------------------------------------------------------------------

using Clock = std::chrono::steady_clock;

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(std::lround(p / 100.0 * static_cast<double>(v.size() - 1)))];
}

struct Args {
  std::string model, ort, provider;
  int threads = 2;
  double seconds = 4;
  int64_t dim = 1;  // the length of every dimension the model leaves symbolic
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(k + " needs a value");
      return argv[++i];
    };
    if (k == "--ort") {
      a.ort = value();
    } else if (k == "--provider") {
      a.provider = value();
    } else if (k == "--threads") {
      a.threads = std::stoi(value());
    } else if (k == "--seconds") {
      a.seconds = std::stod(value());
    } else if (k == "--dim") {
      a.dim = std::stoll(value());
    } else if (!k.empty() && k[0] != '-' && a.model.empty()) {
      a.model = k;
    } else {
      throw std::runtime_error("unknown argument '" + k + "'");
    }
  }
  if (a.model.empty() || a.ort.empty())
    throw std::runtime_error(
        "usage: geon_capi_compare MODEL.onnx --ort PATH/libonnxruntime.so.1.x [--provider PATH] "
        "[--threads 2] [--seconds 4] [--dim N]");
  if (a.provider.empty()) {
    const char* env = std::getenv("GEON_PROVIDER");
    if (!env) throw std::runtime_error("give --provider or set GEON_PROVIDER");
    a.provider = env;
  }
  return a;
}

int run_main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  geon::api::Library lib(args.provider);
  const Ort ort(args.ort);
  const geon::api::Model model(lib, args.model);

  GeonRunner g(lib, args.model, args.threads);
  // Seeded random inputs (tools/common, as geon-run's), one set for both runtimes; float only.
  std::vector<HostTensor> inputs;
  for (const geon::api::ValueInfo& v : g.session().inputs()) {
    if (v.has_default) continue;
    if (v.dtype != kFloat) throw std::runtime_error("input '" + v.name + "' is not float");
    std::vector<int64_t> shape;
    for (int64_t d : v.dims) shape.push_back(d < 0 ? args.dim : d);
    inputs.push_back(random_tensor(v.name, kFloat, shape, 0));
  }
  g.set_inputs(inputs);
  std::vector<std::string> outputs;
  for (const geon::api::ValueInfo& v : g.session().outputs()) outputs.push_back(v.name);
  OrtRunner o(ort, args.model, args.threads, inputs, outputs);

  // Same first output: within 1e-3 of ONNX Runtime's largest magnitude, as compare.py's agree().
  const std::vector<float> want = g.first_output();
  const std::vector<float> got = o.first_output();
  double worst = want.size() == got.size() ? 0 : INFINITY, scale = 1e-6;
  for (size_t i = 0; i < std::min(want.size(), got.size()); ++i) {
    worst = std::max(worst, std::abs(double(want[i]) - got[i]));
    scale = std::max(scale, std::abs(double(got[i])));
  }
  const bool agree = worst <= 1e-3 * scale;

  std::vector<double> tg, to;
  for (int i = 0; i < 20; ++i) g.run(), o.run();
  const auto end = Clock::now() + std::chrono::duration<double>(args.seconds);
  int block_g = 1, block_o = 1;
  const auto time_block = [](auto&& run, int n, std::vector<double>& into) {
    // As bench/compare.py: a pause for the other runtime's pool threads to stop spinning (ONNX
    // Runtime's spin for milliseconds after a run), and an untimed first run, which finds the
    // caches holding the other runtime's data.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    run();
    const auto b0 = Clock::now();
    for (int k = 0; k < n; ++k) {
      const auto t0 = Clock::now();
      run();
      into.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
    return std::chrono::duration<double>(Clock::now() - b0).count() / n;
  };
  while (Clock::now() < end) {
    block_g = std::max(1, static_cast<int>(0.1 / time_block([&] { g.run(); }, block_g, tg)));
    block_o = std::max(1, static_cast<int>(0.1 / time_block([&] { o.run(); }, block_o, to)));
  }

  const size_t nodes = model.node_count();
  const double g50 = percentile(tg, 50), o50 = percentile(to, 50);
  std::printf("model: %s (%zu nodes), %d threads; ONNX Runtime %s\n", args.model.c_str(), nodes,
              args.threads, ort.version().c_str());
  std::printf("%-14s %10s %10s %10s %12s\n", "runtime", "runs", "p50 us", "p99 us", "ns/node");
  std::printf("%-14s %10zu %10.2f %10.2f %12.0f\n", "geon", tg.size(), g50, percentile(tg, 99),
              1e3 * g50 / static_cast<double>(std::max<size_t>(nodes, 1)));
  std::printf("%-14s %10zu %10.2f %10.2f %12.0f\n", "onnxruntime", to.size(), o50,
              percentile(to, 99), 1e3 * o50 / static_cast<double>(std::max<size_t>(nodes, 1)));
  std::printf("ratio (ONNX Runtime p50 / geon p50): %.2f\n", o50 / g50);
  std::printf("outputs agree: %s (largest difference %.3g)\n", agree ? "yes" : "NO", worst);
  return agree ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "geon_capi_compare: %s\n", e.what());
    return 2;
  }
}
