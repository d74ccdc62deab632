// A header-only C++ wrapper over geon's C ABI (geon.h): loads libgeon_provider.so by path,
// turns every status into a geon::api::Error, and owns every handle with RAII. It uses only
// geon.h, the standard library and <dlfcn.h>, so hosts need nothing else of geon.
#pragma once

#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "geon/geon.h"

namespace geon::api {

// A failed call: the provider's status code and message.
class Error : public std::runtime_error {
 public:
  Error(GeonErrorCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  GeonErrorCode code() const { return code_; }

 private:
  GeonErrorCode code_;
};

// --- dtypes: ONNX TensorProto.DataType numbers ---------------------------------------------

// ONNX's lower-case spelling ("float", "int64", "float8e4m3fn"), or "dtype(N)" when unknown.
inline std::string dtype_name(GeonDType t) {
  static constexpr const char* kNames[] = {
      "undefined",      "float",    "uint8",        "int8",           "uint16",
      "int16",          "int32",    "int64",        "string",         "bool",
      "float16",        "double",   "uint32",       "uint64",         "complex64",
      "complex128",     "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
      "float8e5m2fnuz", "uint4",    "int4",         "float4e2m1",     "float8e8m0",
      "uint2",          "int2"};
  if (t >= 0 && static_cast<size_t>(t) < std::size(kNames)) return kNames[t];
  return "dtype(" + std::to_string(t) + ")";
}

// The dtype number for an ONNX name, or 0 (undefined) when there is none.
inline GeonDType dtype_from_name(std::string_view name) {
  for (GeonDType t = 1; t <= 26; ++t)
    if (dtype_name(t) == name) return t;
  return 0;
}

// Bits per element (4 for int4, 2 for int2, 64 for complex64); 0 for string and unknown.
inline int dtype_bits(GeonDType t) {
  // Indexed by the ONNX number: undefined, float, uint8, int8, uint16, int16, int32, int64,
  // string, bool, float16, double, uint32, uint64, complex64, complex128, bfloat16, the four
  // float8s, uint4, int4, float4e2m1, float8e8m0, uint2, int2.
  static constexpr int kBits[] = {0,  32,  8,  8, 16, 16, 32, 64, 0, 8, 16, 64, 32, 64,
                                  64, 128, 16, 8, 8,  8,  8,  4,  4, 4, 8,  2,  2};
  if (t >= 0 && static_cast<size_t>(t) < std::size(kBits)) return kBits[t];
  return 0;
}

// Handles over strings for a string Feed (dtype 8): data = handles.data(), bytes =
// handles.size() * sizeof(GeonString). The strings must outlive the run.
inline std::vector<GeonString> string_handles(std::span<const std::string> strings) {
  std::vector<GeonString> out;
  out.reserve(strings.size());
  for (const std::string& s : strings) out.push_back(GeonString{s.data(), s.size()});
  return out;
}

// Bytes of one element, 0 for packed (sub-byte) types, string and unknown.
inline size_t dtype_size(GeonDType t) {
  int bits = dtype_bits(t);
  return bits >= 8 ? static_cast<size_t>(bits / 8) : 0;
}

// Bytes for n elements, packed types rounded up to whole bytes as ONNX stores them.
inline uint64_t dtype_bytes_for(GeonDType t, uint64_t n) {
  return (n * static_cast<uint64_t>(dtype_bits(t)) + 7) / 8;
}

inline uint64_t element_count(std::span<const int64_t> shape) {
  uint64_t n = 1;
  for (int64_t d : shape) n *= d < 0 ? 0 : static_cast<uint64_t>(d);
  return n;
}

// --- the library -----------------------------------------------------------------------------

// Throws the status's error (and frees it); nothing for success.
inline void check(const GeonApi& api, GeonStatus* status) {
  if (!status) return;
  GeonErrorCode code = api.status_code(status);
  std::string message = api.status_message(status);
  api.release_status(status);
  throw Error(code, message);
}

// Takes a provider-allocated string.
inline std::string take_string(const GeonApi& api, char* s) {
  std::string out = s ? s : "";
  api.release_string(s);
  return out;
}

// libgeon_provider.so, opened by path. Every object below borrows its table, so the Library
// must outlive them.
class Library {
 public:
  explicit Library(const std::string& path, uint32_t version = GEON_API_VERSION) {
    handle_ = dlopen(path.c_str(), RTLD_LOCAL | RTLD_NOW);
    if (!handle_) {
      const char* why = dlerror();
      throw Error(GEON_NOT_FOUND,
                  "cannot load geon provider '" + path + "': " + (why ? why : "unknown reason"));
    }
    auto get = reinterpret_cast<GeonGetApiFn>(dlsym(handle_, "geon_get_api"));
    if (!get) {
      dlclose(handle_);
      throw Error(GEON_INVALID_ARGUMENT, "'" + path + "' does not export geon_get_api");
    }
    const char* refusal = nullptr;
    api_ = get(version, &refusal);
    if (!api_) {
      dlclose(handle_);
      throw Error(GEON_VERSION_MISMATCH, refusal ? refusal : "geon_get_api refused the version");
    }
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  Library(Library&& o) noexcept
      : handle_(std::exchange(o.handle_, nullptr)), api_(std::exchange(o.api_, nullptr)) {}
  Library& operator=(Library&& o) noexcept {
    if (this != &o) {
      if (handle_) dlclose(handle_);
      handle_ = std::exchange(o.handle_, nullptr);
      api_ = std::exchange(o.api_, nullptr);
    }
    return *this;
  }
  ~Library() {
    if (handle_) dlclose(handle_);
  }

  const GeonApi& api() const { return *api_; }
  std::string version() const { return api_->library_version(); }

 private:
  void* handle_ = nullptr;
  const GeonApi* api_ = nullptr;
};

// --- owned handles ---------------------------------------------------------------------------

class Options {
 public:
  explicit Options(const Library& lib) : api_(&lib.api()) {
    check(*api_, api_->create_options(&h_));
  }
  Options(const Options&) = delete;
  Options& operator=(const Options&) = delete;
  Options(Options&& o) noexcept : api_(o.api_), h_(std::exchange(o.h_, nullptr)) {}
  Options& operator=(Options&& o) noexcept {
    if (this != &o) {
      if (h_) api_->release_options(h_);
      api_ = o.api_;
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  ~Options() {
    if (h_) api_->release_options(h_);
  }

  Options& set(const std::string& key, const std::string& value) {
    check(*api_, api_->set_option(h_, key.c_str(), value.c_str()));
    return *this;
  }
  const GeonOptions* get() const { return h_; }

 private:
  const GeonApi* api_;
  GeonOptions* h_ = nullptr;
};

inline const GeonOptions* raw(const Options* o) { return o ? o->get() : nullptr; }

// An input or output as the model declares it (dims -1 where only known at run time).
struct ValueInfo {
  std::string name;
  GeonDType dtype = 0;
  int32_t rank = -1;  // -1: nothing known about the shape
  std::vector<int64_t> dims;
  std::vector<std::string> dim_names;  // "" where a dim has no symbol
  bool has_default = false;            // inputs only: an initializer a run may override
  // The type in ONNX's notation ("tensor(float)", "seq(tensor(int64))", "optional(...)");
  // "tensor(...)" from a library older than C API version 3.
  std::string type;
};

// A host tensor the caller feeds: read in place, never modified.
struct Feed {
  std::string name;
  GeonDType dtype = 0;
  std::vector<int64_t> shape;
  const void* data = nullptr;
  uint64_t bytes = 0;
};

// A host tensor in caller memory that a run writes (dtype and shape must equal the output's).
struct Sink {
  std::string name;
  GeonDType dtype = 0;
  std::vector<int64_t> shape;
  void* data = nullptr;
  uint64_t bytes = 0;
};

// An owned copy of an output.
struct Tensor {
  std::string name;
  GeonDType dtype = 0;
  std::vector<int64_t> shape;
  std::vector<std::byte> data;       // empty for strings
  std::vector<std::string> strings;  // the elements of a string tensor (dtype 8), row-major

  template <typename T>
  std::span<const T> as() const {
    return {reinterpret_cast<const T*>(data.data()), data.size() / sizeof(T)};
  }
};

// A sequence, optional or map value (C API version 3; maps from 4): a tensor, the elements of a
// sequence, none, or a map's keys and values (two tensors per map for a sequence of maps).
struct Value {
  GeonValueKind kind = GEON_VALUE_TENSOR;
  std::vector<Tensor> tensors;
};

// A value to feed to run_values: its tensors are read in place, never modified.
struct ValueFeed {
  std::string name;
  GeonValueKind kind = GEON_VALUE_TENSOR;
  std::vector<Feed> tensors;
};

// The outputs a run allocated, owned by the provider; views into it stay valid as long as
// the Result lives.
class Result {
 public:
  Result(const GeonApi* api, GeonResult* h) : api_(api), h_(h) {}
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result(Result&& o) noexcept : api_(o.api_), h_(std::exchange(o.h_, nullptr)) {}
  Result& operator=(Result&& o) noexcept {
    if (this != &o) {
      if (h_) api_->release_result(h_);
      api_ = o.api_;
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  ~Result() {
    if (h_) api_->release_result(h_);
  }

  size_t size() const { return h_ ? api_->result_count(h_) : 0; }
  std::string name(size_t i) const {
    const char* n = h_ ? api_->result_name(h_, i) : nullptr;
    return n ? n : "";
  }
  GeonTensor view(size_t i) const {
    GeonTensor t{};
    check(*api_, api_->result_tensor(h_, i, &t));
    return t;
  }
  Tensor copy(size_t i) const { return copy_tensor(view(i), name(i)); }
  // Output i as a value (any output; needed for sequences and optionals), viewed or copied.
  GeonValue value_view(size_t i) const {
    GeonValue v{};
    check(*api_, api_->result_value(h_, i, &v));
    return v;
  }
  Value copy_value(size_t i) const {
    const GeonValue v = value_view(i);
    Value out;
    out.kind = static_cast<GeonValueKind>(v.kind);
    for (uint64_t k = 0; k < v.count; ++k)
      out.tensors.push_back(copy_tensor(v.tensors[k], name(i)));
    return out;
  }
  // An owned copy of a tensor the provider returned.
  static Tensor copy_tensor(const GeonTensor& t, const std::string& name) {
    Tensor out;
    out.name = name;
    out.dtype = t.dtype;
    if (t.rank > 0) out.shape.assign(t.shape, t.shape + t.rank);
    if (t.dtype == 8) {  // string handles point into the result: copy the text
      const auto* e = static_cast<const GeonString*>(t.data);
      for (uint64_t k = 0, n = t.data ? t.bytes / sizeof(GeonString) : 0; k < n; ++k)
        out.strings.emplace_back(e[k].size ? std::string(e[k].data, e[k].size) : std::string());
      return out;
    }
    out.data.resize(static_cast<size_t>(t.bytes));
    if (t.bytes) std::memcpy(out.data.data(), t.data, static_cast<size_t>(t.bytes));
    return out;
  }
  GeonResult* get() const { return h_; }

 private:
  const GeonApi* api_;
  GeonResult* h_ = nullptr;
};

inline ValueInfo to_value_info(const GeonValueInfo& v) {
  ValueInfo out;
  out.name = v.name ? v.name : "";
  out.dtype = v.dtype;
  out.rank = v.rank;
  for (int32_t i = 0; i < v.rank; ++i) {
    out.dims.push_back(v.dims ? v.dims[i] : -1);
    out.dim_names.push_back(v.dim_names && v.dim_names[i] ? v.dim_names[i] : "");
  }
  return out;
}

class Session {
 public:
  Session(const Library& lib, const std::string& model_path, const Options* options = nullptr)
      : api_(&lib.api()) {
    check(*api_, api_->create_session(model_path.c_str(), raw(options), &h_));
  }
  // base_dir: where external data files are found ("" refuses models with external data).
  Session(const Library& lib, std::span<const std::byte> model_bytes, const std::string& base_dir,
          const Options* options = nullptr)
      : api_(&lib.api()) {
    check(*api_, api_->create_session_from_bytes(model_bytes.data(), model_bytes.size(),
                                                 base_dir.empty() ? nullptr : base_dir.c_str(),
                                                 raw(options), &h_));
  }
  // Adopts a handle (from compile()).
  Session(const GeonApi* api, GeonSession* h) : api_(api), h_(h) {}
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  Session(Session&& o) noexcept : api_(o.api_), h_(std::exchange(o.h_, nullptr)) {}
  Session& operator=(Session&& o) noexcept {
    if (this != &o) {
      if (h_) api_->release_session(h_);
      api_ = o.api_;
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  ~Session() {
    if (h_) api_->release_session(h_);
  }

  std::vector<ValueInfo> inputs() const {
    std::vector<ValueInfo> out;
    for (size_t i = 0, n = api_->session_input_count(h_); i < n; ++i) {
      GeonValueInfo v{};
      check(*api_, api_->session_input_info(h_, i, &v));
      out.push_back(to_value_info(v));
      out.back().has_default = api_->session_input_has_default(h_, i) != 0;
      out.back().type = value_type(i, true);
    }
    return out;
  }
  std::vector<ValueInfo> outputs() const {
    std::vector<ValueInfo> out;
    for (size_t i = 0, n = api_->session_output_count(h_); i < n; ++i) {
      GeonValueInfo v{};
      check(*api_, api_->session_output_info(h_, i, &v));
      out.push_back(to_value_info(v));
      out.back().type = value_type(i, false);
    }
    return out;
  }

  // Runs and leaves the outputs in the provider's memory (no copy). Empty output_names: all.
  Result run_result(std::span<const Feed> feeds,
                    const std::vector<std::string>& output_names = {}) const {
    return run_into(feeds, output_names, {});
  }

  // Runs and returns owned copies of the outputs named (empty: all, in model order).
  std::vector<Tensor> run(std::span<const Feed> feeds,
                          const std::vector<std::string>& output_names = {}) const {
    Result r = run_result(feeds, output_names);
    std::vector<Tensor> out;
    for (size_t i = 0; i < r.size(); ++i) out.push_back(r.copy(i));
    return out;
  }

  // Runs; each sink with data is written in place, every other output named goes into the
  // returned Result. sinks is empty or one per output name.
  Result run_into(std::span<const Feed> feeds, const std::vector<std::string>& output_names,
                  std::span<const Sink> sinks) const {
    std::vector<const char*> in_names;
    std::vector<GeonTensor> ins;
    for (const Feed& f : feeds) {
      in_names.push_back(f.name.c_str());
      ins.push_back(GeonTensor{f.dtype, static_cast<int32_t>(f.shape.size()), f.shape.data(),
                               const_cast<void*>(f.data), f.bytes});
    }
    std::vector<const char*> out_names;
    for (const std::string& n : output_names) out_names.push_back(n.c_str());
    const size_t n_requested =
        output_names.empty() ? api_->session_output_count(h_) : output_names.size();
    if (!sinks.empty() && sinks.size() != n_requested)
      throw Error(GEON_INVALID_ARGUMENT, "run: " + std::to_string(sinks.size()) + " sinks for " +
                                             std::to_string(n_requested) +
                                             " outputs; give none or one per output");
    std::vector<GeonTensor> outs;
    for (const Sink& s : sinks)
      outs.push_back(GeonTensor{s.dtype, static_cast<int32_t>(s.shape.size()), s.shape.data(),
                                s.data, s.bytes});
    GeonResult* result = nullptr;
    check(*api_, api_->run(h_, in_names.data(), ins.data(), ins.size(),
                           out_names.empty() ? nullptr : out_names.data(), out_names.size(),
                           outs.empty() ? nullptr : outs.data(), &result));
    return Result(api_, result);
  }

  // Runs a model whose inputs or outputs may be sequences or optionals (C API version 3);
  // every output named (empty: all) is allocated in the returned Result.
  Result run_values(std::span<const ValueFeed> feeds,
                    const std::vector<std::string>& output_names = {}) const {
    std::vector<const char*> in_names;
    std::vector<std::vector<GeonTensor>> tensors;
    for (const ValueFeed& f : feeds) {
      in_names.push_back(f.name.c_str());
      std::vector<GeonTensor> ts;
      for (const Feed& t : f.tensors)
        ts.push_back(GeonTensor{t.dtype, static_cast<int32_t>(t.shape.size()), t.shape.data(),
                                const_cast<void*>(t.data), t.bytes});
      tensors.push_back(std::move(ts));
    }
    std::vector<GeonValue> ins;
    for (size_t i = 0; i < feeds.size(); ++i)
      ins.push_back(GeonValue{feeds[i].kind, tensors[i].size(),
                              tensors[i].empty() ? nullptr : tensors[i].data()});
    std::vector<const char*> out_names;
    for (const std::string& n : output_names) out_names.push_back(n.c_str());
    GeonResult* result = nullptr;
    check(*api_, api_->run_values(h_, in_names.data(), ins.data(), ins.size(),
                                  out_names.empty() ? nullptr : out_names.data(), out_names.size(),
                                  &result));
    return Result(api_, result);
  }

  std::string placement_report() const {
    char* s = nullptr;
    check(*api_, api_->placement_report(h_, &s));
    return take_string(*api_, s);
  }
  std::string end_profiling() const {
    char* s = nullptr;
    check(*api_, api_->end_profiling(h_, &s));
    return take_string(*api_, s);
  }
  std::string graph_dump() const {
    char* s = nullptr;
    check(*api_, api_->session_graph_dump(h_, &s));
    return take_string(*api_, s);
  }
  // The model's producer, versions, doc strings, opset imports and metadata_props as JSON.
  std::string model_metadata() const {
    char* s = nullptr;
    check(*api_, api_->session_model_metadata(h_, &s));
    return take_string(*api_, s);
  }
  GeonSession* get() const { return h_; }

 private:
  std::string value_type(size_t i, bool input) const {
    if (api_->version < 3) return "tensor(...)";
    char* t = nullptr;
    check(*api_,
          input ? api_->session_input_type(h_, i, &t) : api_->session_output_type(h_, i, &t));
    return take_string(*api_, t);
  }

  const GeonApi* api_;
  GeonSession* h_ = nullptr;
};

// --- the provider contract: a model, what the provider claims of it, compiled subgraphs -----

class Model {
 public:
  Model(const Library& lib, const std::string& path) : api_(&lib.api()) {
    check(*api_, api_->load_model(path.c_str(), &h_));
  }
  Model(const Library& lib, std::span<const std::byte> bytes, const std::string& base_dir)
      : api_(&lib.api()) {
    check(*api_, api_->load_model_from_bytes(bytes.data(), bytes.size(),
                                             base_dir.empty() ? nullptr : base_dir.c_str(), &h_));
  }
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  Model(Model&& o) noexcept : api_(o.api_), h_(std::exchange(o.h_, nullptr)) {}
  Model& operator=(Model&& o) noexcept {
    if (this != &o) {
      if (h_) api_->release_model(h_);
      api_ = o.api_;
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  ~Model() {
    if (h_) api_->release_model(h_);
  }

  size_t node_count() const { return api_->model_node_count(h_); }
  std::string node_name(size_t i) const {
    const char* s = api_->model_node_name(h_, i);
    return s ? s : "";
  }
  std::string node_op(size_t i) const {
    const char* s = api_->model_node_op(h_, i);
    return s ? s : "";
  }
  const GeonApi* api() const { return api_; }
  const GeonModel* get() const { return h_; }

 private:
  const GeonApi* api_;
  GeonModel* h_ = nullptr;
};

// Which nodes of a model the provider claims. Borrows the model: it must outlive this.
class Capability {
 public:
  explicit Capability(const Model& m, const Options* options = nullptr)
      : api_(m.api()), model_(&m) {
    check(*api_, api_->get_capability(m.get(), raw(options), &h_));
  }
  Capability(const Capability&) = delete;
  Capability& operator=(const Capability&) = delete;
  Capability(Capability&& o) noexcept
      : api_(o.api_), model_(o.model_), h_(std::exchange(o.h_, nullptr)) {}
  Capability& operator=(Capability&& o) noexcept {
    if (this != &o) {
      if (h_) api_->release_capability(h_);
      api_ = o.api_;
      model_ = o.model_;
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  ~Capability() {
    if (h_) api_->release_capability(h_);
  }

  size_t subgraph_count() const { return api_->capability_subgraph_count(h_); }
  std::string subgraph_set(size_t s) const {
    const char* n = api_->capability_subgraph_set(h_, s);
    return n ? n : "";
  }
  std::vector<size_t> subgraph_nodes(size_t s) const {
    std::vector<size_t> out;
    for (size_t k = 0, n = api_->capability_subgraph_node_count(h_, s); k < n; ++k)
      out.push_back(api_->capability_subgraph_node(h_, s, k));
    return out;
  }
  // The subgraph claiming a node, or -1 (then reason() says why).
  int64_t node_subgraph(size_t node) const { return api_->capability_node_subgraph(h_, node); }
  std::string node_reason(size_t node) const {
    const char* r = api_->capability_node_reason(h_, node);
    return r ? r : "";
  }

  // A session over one claimed subgraph's boundary values.
  Session compile(size_t subgraph, const Options* options = nullptr) const {
    GeonSession* s = nullptr;
    check(*api_, api_->compile(model_->get(), h_, subgraph, raw(options), &s));
    return Session(api_, s);
  }
  const GeonCapability* get() const { return h_; }

 private:
  const GeonApi* api_;
  const Model* model_;
  GeonCapability* h_ = nullptr;
};

}  // namespace geon::api
