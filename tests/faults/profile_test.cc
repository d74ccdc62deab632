// Profiling costs a run no heap allocation per node: each node run records plain numbers, and
// the names and shapes are made when the profile is taken. Strings and shape vectors kept from
// every run, between a run's large outputs, fragmented the heap until each run's outputs took
// fresh pages (core/runtime/executor_impl.h), so the profile slowed what it measured.
#include <string>

#include "tests/faults/counting_allocator.h"
#include "tests/faults/fault_harness.h"

namespace geon::faults {
namespace {

GeonSession* session_for(const ModelCase& m, bool profiling) {
  GeonOptions* o = make_options(1);
  GeonStatus* st = c_api().set_option(o, "profiling", profiling ? "1" : "0");
  EXPECT_EQ(st, nullptr) << c_api().status_message(st);
  c_api().release_status(st);
  GeonSession* s = create_session(m, o);
  c_api().release_options(o);
  return s;
}

// Allocations made by `runs` runs (run_unfaulted's own copies of the outputs included, which
// are the same with and without profiling).
uint64_t allocations_of(GeonSession* s, const Inputs& in, int runs) {
  const uint64_t before = allocations();
  for (int i = 0; i < runs; ++i) run_unfaulted(s, in);
  return allocations() - before;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ProfiledRuns, AllocateNoMorePerNodeThanUnprofiledRuns) {
  const ModelCase m = fault_models()[2];  // the cnn: 23 nodes
  GeonSession* plain = session_for(m, false);
  GeonSession* profiled = session_for(m, true);
  ASSERT_NE(plain, nullptr);
  ASSERT_NE(profiled, nullptr);
  const Inputs in = make_inputs(plain, m.batch);
  for (int i = 0; i < 2; ++i) run_unfaulted(plain, in), run_unfaulted(profiled, in);
  char* json = nullptr;  // the warm-up runs' events
  ASSERT_EQ(c_api().end_profiling(profiled, &json), nullptr);
  c_api().release_string(json);

  constexpr int kRuns = 20;
  const uint64_t without = allocations_of(plain, in, kRuns);
  const uint64_t with = allocations_of(profiled, in, kRuns);
  // A few a run (its records and their shapes, reserved once and grown where a node has many
  // inputs) and the session's store of records growing by doubling; three or more per node
  // (a name, a shape list and a shape per input) would be over a thousand more.
  EXPECT_LE(with, without + 4 * kRuns + 32) << "without profiling " << without;

  // And the profile still names every node run with its input shapes.
  ASSERT_EQ(c_api().end_profiling(profiled, &json), nullptr);
  const std::string trace = json;
  c_api().release_string(json);
  const size_t events = count(trace, "\"ph\": \"X\"");
  EXPECT_GE(events, static_cast<size_t>(kRuns) * 10) << trace.substr(0, 400);
  EXPECT_EQ(count(trace, "\"input_shapes\""), events);
  EXPECT_EQ(count(trace, "\"op\": \"GlobalAveragePool\""), static_cast<size_t>(kRuns));
  c_api().release_session(plain);
  c_api().release_session(profiled);
}

}  // namespace
}  // namespace geon::faults
