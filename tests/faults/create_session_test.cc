// Session creation with its k-th allocation failing, for every k until creation gets through:
// each attempt fails with RESOURCE_EXHAUSTED naming what could not be allocated, leaks nothing,
// and a session created afterwards runs and gives the reference outputs.
#include "tests/faults/fault_harness.h"

namespace geon::faults {
namespace {

// kOff: oneDNN's primitive cache off, live blocks compared after every attempt. kOn: the cache
// on (so oneDNN's JIT runs once, not per attempt, and its cache is exercised); cached
// primitives outlive the attempts that made them, so live blocks are compared once, over all
// attempts, with the cache emptied before and after.
// kOnLeaksUnchecked: the cache on, and oneDNN's own allocations failed too; oneDNN leaks then
// (see counting_allocator.h), so live blocks are not compared at all.
enum class Cache { kOff, kOn, kOnLeaksUnchecked };

void every_creation_fault(const ModelCase& m, int threads, Cache cache) {
  c_api();  // loads the provider (and turns the cache off)
  if (cache != Cache::kOff) set_dnnl_cache_capacity(1024);
  GeonOptions* o = make_options(threads);
  // The reference, from a session made before any fault; it also makes the library's lazy
  // statics (kernel registries, oneDNN's engine), so that the attempts count only their own.
  GeonSession* first = create_session(m, o);
  ASSERT_NE(first, nullptr);
  const Inputs in = make_inputs(first, m.batch);
  const Outputs want = run_unfaulted(first, in);
  ASSERT_FALSE(want.bytes.empty());
  c_api().release_session(first);

  const std::string what =
      std::string(m.name) + " create_session (intra_op_threads " + std::to_string(threads) +
      (cache != Cache::kOff ? ", oneDNN cache on" : "") +
      (cache == Cache::kOnLeaksUnchecked ? ", oneDNN's allocations too" : "") + ")";
  // Measured once everything the test keeps (`what` included) is made.
  evict_dnnl_cache();
  const int64_t live = live_blocks();
  EXPECT_GT(
      every_k(
          what, [&](uint64_t k, Attempt& a) { attempt_create(m, o, k, a); }, cache == Cache::kOff),
      0u);
  evict_dnnl_cache();
  if (cache != Cache::kOnLeaksUnchecked) {
    EXPECT_EQ(live_blocks(), live) << what << ": blocks leaked over all the attempts";
  }

  GeonSession* after = create_session(m, o);
  ASSERT_NE(after, nullptr);
  const Outputs got = run_unfaulted(after, in);
  EXPECT_EQ(got.shapes, want.shapes);
  EXPECT_EQ(got.bytes, want.bytes) << m.name << ": a session made after the faults differs";
  c_api().release_session(after);
  c_api().release_options(o);
  set_dnnl_cache_capacity(0);
}

TEST(SessionCreationFaults, MlpFailsCleanlyAtEveryAllocation) {
  every_creation_fault(fault_models()[0], 1, Cache::kOff);
}

TEST(SessionCreationFaults, ControlFlowBodiesFailCleanlyAtEveryAllocation) {
  every_creation_fault(fault_models()[1], 1, Cache::kOff);
}

// The cnn's oneDNN kernels take a JIT compile each: with the cache off, its ~8000 attempts
// would take minutes.
TEST(SessionCreationFaults, CnnFailsCleanlyAtEveryAllocation) {
  every_creation_fault(fault_models()[2], 1, Cache::kOn);
}

// A session with a pool of its own (3 intra-op threads) fails cleanly at every allocation too.
TEST(SessionCreationFaults, SessionThreadPoolFailsCleanlyAtEveryAllocation) {
  every_creation_fault(fault_models()[0], 3, Cache::kOff);
}

// An allocation failing while oneDNN makes a primitive must not break its primitive cache for
// later sessions: oneDNN 2.6 keeps a broken promise there, and every later creation of that
// primitive in the process threw std::future_error (kernels/cpu/dnnl/runtime.cc).
TEST(OneDnnCache, SurvivesAllocationFailuresWhileMakingPrimitives) {
  spare_dnnl_allocations(false);
  every_creation_fault(fault_models()[0], 1, Cache::kOnLeaksUnchecked);
  spare_dnnl_allocations(true);
}

}  // namespace
}  // namespace geon::faults
