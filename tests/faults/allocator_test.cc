// The counting allocator sees the provider's allocations: the executable's operator new serves
// the dlopened library too. Without this the fault tests would inject nothing into geon.
#include "tests/faults/fault_harness.h"

namespace geon::faults {
namespace {

TEST(FaultAllocator, CountsTheProvidersAllocationsAndFailsTheArmedOne) {
  const ModelCase mlp = fault_models()[0];
  GeonOptions* o = make_options(1);
  // First creation: the library's lazily made statics are made here, outside the count.
  c_api().release_session(create_session(mlp, o));

  const int64_t live = live_blocks();
  const uint64_t before = allocations();
  GeonSession* s = create_session(mlp, o);
  ASSERT_NE(s, nullptr);
  const uint64_t made = allocations() - before;
  EXPECT_GT(made, 100u) << "creating a session should allocate through operator new";
  EXPECT_GT(live_blocks(), live) << "a live session holds memory";
  c_api().release_session(s);
  EXPECT_EQ(live_blocks(), live) << "releasing the session frees what creating it took";

  // The first allocation of a creation fails, and the call says so.
  Attempt a;
  attempt_create(mlp, o, 1, a);
  EXPECT_TRUE(a.fired);
  EXPECT_EQ(a.code, GEON_RESOURCE_EXHAUSTED) << a.message;
  c_api().release_options(o);
}

}  // namespace
}  // namespace geon::faults
