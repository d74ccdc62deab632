// The fault tests' shared helpers (see fault_harness.h).
#include "tests/faults/fault_harness.h"

#include <dlfcn.h>

#include <algorithm>

namespace geon::faults {
namespace {

size_t dtype_size(GeonDType t) {
  switch (t) {
    case 1:
    case 6:
      return 4;  // float, int32
    case 7:
    case 11:
      return 8;  // int64, double
    case 9:
    case 2:
    case 3:
      return 1;  // bool, uint8, int8
    case 10:
    case 16:
    case 4:
    case 5:
      return 2;  // float16, bfloat16, uint16, int16
    default:
      return 0;
  }
}

size_t elements(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

void copy_message(const GeonStatus* s, Attempt& a) {
  const char* m = c_api().status_message(s);
  std::strncpy(a.message, m, sizeof(a.message) - 1);
  a.message[sizeof(a.message) - 1] = '\0';
}

// The provider's outputs in `r` equal `want`, compared in place (nothing allocated).
bool result_matches(const GeonResult* r, const Outputs& want) {
  if (c_api().result_count(r) != want.bytes.size()) return false;
  for (size_t i = 0; i < want.bytes.size(); ++i) {
    GeonTensor t{};
    GeonStatus* s = c_api().result_tensor(r, i, &t);
    if (s) {
      c_api().release_status(s);
      return false;
    }
    if (t.dtype != want.dtypes[i] || t.bytes != want.bytes[i].size() ||
        !std::equal(t.shape, t.shape + t.rank, want.shapes[i].begin(), want.shapes[i].end()) ||
        std::memcmp(t.data, want.bytes[i].data(), t.bytes) != 0)
      return false;
  }
  return true;
}

void* dnnl_symbol(const char* name) {
  static void* const dnnl = dlopen("libdnnl.so.2", RTLD_NOLOAD | RTLD_LAZY);
  void* f = dnnl ? dlsym(dnnl, name) : nullptr;
  if (!f) ADD_FAILURE() << "cannot find " << name << " in the provider's libdnnl.so.2";
  return f;
}

}  // namespace

int dnnl_cache_capacity() {
  auto* get = reinterpret_cast<int (*)(int*)>(dnnl_symbol("dnnl_get_primitive_cache_capacity"));
  int capacity = -1;
  if (get) get(&capacity);
  return capacity;
}

void set_dnnl_cache_capacity(int capacity) {
  auto* set = reinterpret_cast<int (*)(int)>(dnnl_symbol("dnnl_set_primitive_cache_capacity"));
  if (set) set(capacity);
}

void warm_up_handle_tables(const GeonApi& api) {
  const float x[64] = {};
  const int64_t shape[2] = {1, 64};
  const char* name = "x";
  const GeonTensor in{1, 2, shape, const_cast<float*>(x), sizeof(x)};
  // Each turn takes three handle values (options, session, result): 16 turns reach every one of
  // the 16 shards of each table.
  for (int i = 0; i < 20; ++i) {
    GeonOptions* o = nullptr;
    GeonSession* s = nullptr;
    GeonResult* r = nullptr;
    api.release_status(api.create_options(&o));
    api.release_status(api.create_session(GEON_SOURCE_DIR "/models/mlp.onnx", o, &s));
    api.release_status(api.run(s, &name, &in, 1, nullptr, 0, nullptr, &r));
    api.release_result(r);
    api.release_session(s);
    api.release_options(o);
  }
}

void evict_dnnl_cache() {
  const int capacity = dnnl_cache_capacity();
  set_dnnl_cache_capacity(0);
  set_dnnl_cache_capacity(capacity);
}

GeonOptions* make_options(int intra_op_threads) {
  GeonOptions* o = nullptr;
  EXPECT_EQ(c_api().create_options(&o), nullptr);
  const std::string threads = std::to_string(intra_op_threads);
  GeonStatus* s = c_api().set_option(o, "intra_op_threads", threads.c_str());
  EXPECT_EQ(s, nullptr) << c_api().status_message(s);
  c_api().release_status(s);
  return o;
}

GeonSession* create_session(const ModelCase& m, const GeonOptions* options) {
  GeonSession* session = nullptr;
  GeonStatus* s = c_api().create_session(m.path, options, &session);
  EXPECT_EQ(s, nullptr) << m.name << ": " << c_api().status_message(s);
  c_api().release_status(s);
  return session;
}

Inputs make_inputs(GeonSession* s, int64_t batch) {
  Inputs in;
  const size_t n = c_api().session_input_count(s);
  for (size_t i = 0; i < n; ++i) {
    if (c_api().session_input_has_default(s, i)) continue;
    GeonValueInfo info{};
    GeonStatus* st = c_api().session_input_info(s, i, &info);
    EXPECT_EQ(st, nullptr);
    c_api().release_status(st);
    EXPECT_EQ(info.dtype, 1) << "input '" << info.name << "': the fault tests feed float only";
    std::vector<int64_t> shape;
    for (int32_t d = 0; d < info.rank; ++d)
      shape.push_back(info.dims[d] < 0 ? batch : info.dims[d]);
    std::vector<float> data(elements(shape));
    for (size_t e = 0; e < data.size(); ++e)
      data[e] = static_cast<float>(static_cast<int>((e * 7 + i * 5) % 23) - 11) / 7.0f;
    in.names.push_back(info.name);
    in.shapes.push_back(std::move(shape));
    in.data.push_back(std::move(data));
  }
  for (size_t i = 0; i < in.names.size(); ++i) {
    in.name_ptrs.push_back(in.names[i].c_str());
    in.tensors.push_back(GeonTensor{1, static_cast<int32_t>(in.shapes[i].size()),
                                    in.shapes[i].data(), in.data[i].data(),
                                    in.data[i].size() * sizeof(float)});
  }
  return in;
}

Outputs run_unfaulted(GeonSession* s, const Inputs& in) {
  Outputs out;
  GeonResult* r = nullptr;
  GeonStatus* st = c_api().run(s, in.name_ptrs.data(), in.tensors.data(), in.tensors.size(),
                               nullptr, 0, nullptr, &r);
  EXPECT_EQ(st, nullptr) << c_api().status_message(st);
  c_api().release_status(st);
  if (!r) return out;
  for (size_t i = 0; i < c_api().result_count(r); ++i) {
    GeonTensor t{};
    EXPECT_EQ(c_api().result_tensor(r, i, &t), nullptr);
    out.names.push_back(c_api().result_name(r, i));
    out.dtypes.push_back(t.dtype);
    out.shapes.emplace_back(t.shape, t.shape + t.rank);
    const auto* b = static_cast<const std::byte*>(t.data);
    out.bytes.emplace_back(b, b + t.bytes);
  }
  c_api().release_result(r);
  return out;
}

CallerOutputs make_caller_outputs(const Outputs& like) {
  CallerOutputs c;
  for (size_t i = 0; i < like.bytes.size(); ++i) {
    EXPECT_EQ(like.bytes[i].size(), elements(like.shapes[i]) * dtype_size(like.dtypes[i]));
    c.memory.emplace_back(like.bytes[i].size());
  }
  for (size_t i = 0; i < like.bytes.size(); ++i)
    c.tensors.push_back(GeonTensor{like.dtypes[i], static_cast<int32_t>(like.shapes[i].size()),
                                   like.shapes[i].data(), c.memory[i].data(), c.memory[i].size()});
  return c;
}

void attempt_create(const ModelCase& m, const GeonOptions* options, uint64_t k, Attempt& a) {
  const int64_t before = live_blocks();
  GeonSession* session = nullptr;
  fail_kth_allocation(k);
  GeonStatus* s = c_api().create_session(m.path, options, &session);
  a.fired = disarm();
  a.fired_nothrow = a.fired && failed_nothrow();
  a.code = c_api().status_code(s);
  copy_message(s, a);
  c_api().release_status(s);
  if (session && s) a.outputs_match = false;  // a failed call must return no session
  c_api().release_session(session);
  a.leaked_blocks = live_blocks() - before;
}

void attempt_run(GeonSession* session, const Inputs& in, CallerOutputs* caller, const Outputs& want,
                 uint64_t k, Attempt& a) {
  if (caller)
    for (auto& mem : caller->memory) std::fill(mem.begin(), mem.end(), std::byte{0xA5});
  const int64_t before = live_blocks();
  GeonResult* r = nullptr;
  fail_kth_allocation(k);
  GeonStatus* s =
      c_api().run(session, in.name_ptrs.data(), in.tensors.data(), in.tensors.size(), nullptr, 0,
                  caller ? caller->tensors.data() : nullptr, caller ? nullptr : &r);
  a.fired = disarm();
  a.fired_nothrow = a.fired && failed_nothrow();
  a.code = c_api().status_code(s);
  copy_message(s, a);
  c_api().release_status(s);
  if (s && r) a.outputs_match = false;  // on failure nothing is returned in *result
  if (!s && caller) {
    for (size_t i = 0; i < want.bytes.size(); ++i)
      if (caller->memory[i] != want.bytes[i]) a.outputs_match = false;
  } else if (!s) {
    a.outputs_match = r && result_matches(r, want);
  }
  c_api().release_result(r);
  a.leaked_blocks = live_blocks() - before;
}

bool names_what_was_allocated(const char* message) {
  const std::string m = message;
  const bool says_memory =
      m.find("out of memory") != std::string::npos || m.find("allocat") != std::string::npos;
  const bool says_where =
      m.find("node '") != std::string::npos || m.find("value '") != std::string::npos ||
      m.find("initializer '") != std::string::npos || m.find(" while ") != std::string::npos;
  return says_memory && says_where;
}

}  // namespace geon::faults
