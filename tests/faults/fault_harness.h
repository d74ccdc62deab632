// Shared by the fault tests: the provider loaded by path, the models, inputs made from the
// session's own input infos, reference outputs of an unfaulted run, and one faulted call
// measured without allocating inside the measured window (the status message is copied into a
// fixed buffer, outputs are compared in place), so that the test's own allocations never
// count as geon's.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "geon/geon.hpp"
#include "tests/faults/counting_allocator.h"

namespace geon::faults {

// oneDNN's primitive cache capacity (the library's libdnnl, looked up once it is loaded).
int dnnl_cache_capacity();
void set_dnnl_cache_capacity(int capacity);
// Empties the cache, keeping its capacity.
void evict_dnnl_cache();

// Creates and releases enough sessions and results that every shard of the provider's handle
// tables has had an entry: a shard's first entry allocates its buckets, which stay.
void warm_up_handle_tables(const GeonApi& api);

// The provider, loaded with oneDNN's primitive cache emptied and off: cached primitives outlive
// the call that made them, so counting live blocks needs the cache empty (the cache itself is
// exercised by OneDnnCache in create_session_test.cc).
inline const api::Library& library() {
  static const api::Library lib = [] {
    api::Library l(GEON_PROVIDER_PATH);
    set_dnnl_cache_capacity(0);
    warm_up_handle_tables(l.api());
    return l;
  }();
  return lib;
}
inline const GeonApi& c_api() { return library().api(); }

struct ModelCase {
  const char* name;
  const char* path;
  int64_t batch;  // the length given to every symbolic dim
};

// Test names show the model.
inline void PrintTo(const ModelCase& m, std::ostream* os) { *os << m.name; }

// The committed models, and one with Loop and If bodies (models/make_models.py here).
inline std::vector<ModelCase> fault_models() {
  return {{"mlp", GEON_SOURCE_DIR "/models/mlp.onnx", 2},
          {"control_flow", GEON_FAULT_MODELS "/control_flow.onnx", 1},
          {"cnn", GEON_SOURCE_DIR "/models/cnn.onnx", 1}};
}

// Options with the given engine threads (0: the process-wide pool).
GeonOptions* make_options(int intra_op_threads);
// A session made without faults; fails the test (fatally) when creation fails.
GeonSession* create_session(const ModelCase& m, const GeonOptions* options);

// The inputs of a session: every input without a default, float data with negative values,
// symbolic dims set to the case's batch.
struct Inputs {
  std::vector<std::string> names;
  std::vector<const char*> name_ptrs;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::vector<float>> data;
  std::vector<GeonTensor> tensors;
};
Inputs make_inputs(GeonSession* s, int64_t batch);

// The outputs of one run, copied out.
struct Outputs {
  std::vector<std::string> names;
  std::vector<GeonDType> dtypes;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::vector<std::byte>> bytes;
};
// An unfaulted run with provider-allocated outputs; fails the test when the run fails.
Outputs run_unfaulted(GeonSession* s, const Inputs& in);

// Caller memory for every output of `like`, the tensors pointing into it.
struct CallerOutputs {
  std::vector<std::vector<std::byte>> memory;
  std::vector<GeonTensor> tensors;
};
CallerOutputs make_caller_outputs(const Outputs& like);

// What one call with the k-th allocation failing did.
struct Attempt {
  bool fired = false;          // the k-th allocation was reached
  bool fired_nothrow = false;  // ... by a nothrow form (a fallback may absorb it)
  GeonErrorCode code = GEON_OK;
  char message[2048] = {};    // the status message (truncated to fit)
  int64_t leaked_blocks = 0;  // live blocks afterwards (results released) minus before
  bool outputs_match = true;  // on success: the outputs equal the reference bit for bit
};

// create_session with the k-th allocation failing; a session it makes is released at once.
void attempt_create(const ModelCase& m, const GeonOptions* options, uint64_t k, Attempt& a);
// run with the k-th allocation failing; on success the outputs are compared with `want`
// (in the result, or in `caller` when given) and the result released.
void attempt_run(GeonSession* s, const Inputs& in, CallerOutputs* caller, const Outputs& want,
                 uint64_t k, Attempt& a);

// Whether a status message names what could not be allocated: it must say memory ran out and
// where (a node, value or initializer by name, or the phase that was allocating).
bool names_what_was_allocated(const char* message);

// Calls attempt(k, a) for k = 1, 2, ... until the fault is no longer reached, checking every
// failed attempt (RESOURCE_EXHAUSTED, a message naming what, nothing leaked unless
// check_leaks is false) and the final success. Returns the number of k that failed.
template <typename F>
uint64_t every_k(const std::string& what, F&& attempt, bool check_leaks = true) {
  constexpr uint64_t kCap = 200000;  // far above any model here: a runaway loop fails instead
  uint64_t k = 1;
  int shown = 0;
  const uint64_t spared = spared_allocations();
  uint64_t absorbed = 0;
  for (; k < kCap; ++k) {
    Attempt a;
    attempt(k, a);
    if (check_leaks) {
      EXPECT_EQ(a.leaked_blocks, 0) << what << ", k = " << k << ": " << a.leaked_blocks
                                    << " blocks leaked (" << a.message << ")";
      if (a.leaked_blocks > 0 && std::getenv("GEON_FAULT_TRACE")) {
        trace_blocks(true);
        Attempt again;
        attempt(k, again);
        trace_blocks(false);
        print_traced_blocks();
      }
    }
    if (!a.fired) {
      EXPECT_EQ(a.code, GEON_OK) << what << ", k = " << k
                                 << ": failed without a fault: " << a.message;
      EXPECT_TRUE(a.outputs_match) << what << ": the unfaulted outputs differ";
      break;
    }
    // A nothrow allocation failing may be absorbed by a fallback (std::stable_sort sorts in
    // place without its buffer): then the call must succeed with the same outputs.
    if (a.code == GEON_OK && a.fired_nothrow && a.outputs_match) {
      ++absorbed;
      continue;
    }
    const bool ok = a.code == GEON_RESOURCE_EXHAUSTED && names_what_was_allocated(a.message);
    if (!ok && std::getenv("GEON_FAULT_TRACE")) {
      trace_blocks(true);
      Attempt again;
      attempt(k, again);
      trace_blocks(false);
    }
    if (!ok && shown++ < 10)
      ADD_FAILURE() << what << ", k = " << k << ": code " << a.code << ", message \"" << a.message
                    << "\" (want RESOURCE_EXHAUSTED naming what could not be allocated)";
    if (::testing::Test::HasFatalFailure()) break;
  }
  EXPECT_LT(k, kCap) << what << ": never got through";
  std::printf(
      "[ faults ] %s: k = 1..%llu each failed in turn, %llu of them (nothrow) absorbed by a "
      "fallback; %llu allocations of oneDNN's spared\n",
      what.c_str(), static_cast<unsigned long long>(k - 1),
      static_cast<unsigned long long>(absorbed),
      static_cast<unsigned long long>(spared_allocations() - spared));
  std::fflush(stdout);
  return k - 1;
}

}  // namespace geon::faults
