// Runs with their k-th allocation failing, for every k until the run gets through: each fails
// with RESOURCE_EXHAUSTED naming what could not be allocated, releasing it leaves nothing
// behind, and the next run of the same session is bit-identical to the reference. Outputs
// allocated by the provider and outputs in caller memory; one engine thread and two (an
// allocation failing on a worker thread comes back as the run's status).
#include "tests/faults/fault_harness.h"

namespace geon::faults {
namespace {

void every_run_fault(const ModelCase& m, int threads, bool caller_memory) {
  GeonOptions* o = make_options(threads);
  GeonSession* s = create_session(m, o);
  ASSERT_NE(s, nullptr);
  const Inputs in = make_inputs(s, m.batch);
  // Two unfaulted runs: the first caches the shape's plan and fills the arena pool, so the
  // attempts start from the state every later run starts from; the second is the reference.
  run_unfaulted(s, in);
  const Outputs want = run_unfaulted(s, in);
  ASSERT_FALSE(want.bytes.empty());
  CallerOutputs caller = make_caller_outputs(want);
  CallerOutputs* into = caller_memory ? &caller : nullptr;

  const std::string what = std::string(m.name) + " run (" +
                           (caller_memory ? "caller memory" : "provider outputs") +
                           ", intra_op_threads " + std::to_string(threads) + ")";
  EXPECT_GT(every_k(what, [&](uint64_t k, Attempt& a) { attempt_run(s, in, into, want, k, a); }),
            0u);

  // The same session, unfaulted, again.
  Attempt again;
  attempt_run(s, in, into, want, 0, again);
  EXPECT_EQ(again.code, GEON_OK) << again.message;
  EXPECT_TRUE(again.outputs_match) << what << ": the run after the faults differs";
  c_api().release_session(s);
  c_api().release_options(o);
}

class RunFaults : public ::testing::TestWithParam<ModelCase> {};
class RunFaultsTwoThreads : public ::testing::TestWithParam<ModelCase> {};

TEST_P(RunFaults, ProviderOutputs) { every_run_fault(GetParam(), 1, false); }
TEST_P(RunFaults, CallerMemory) { every_run_fault(GetParam(), 1, true); }
TEST_P(RunFaultsTwoThreads, ProviderOutputs) { every_run_fault(GetParam(), 2, false); }
TEST_P(RunFaultsTwoThreads, CallerMemory) { every_run_fault(GetParam(), 2, true); }

auto model_name = [](const auto& info) { return std::string(info.param.name); };
INSTANTIATE_TEST_SUITE_P(Models, RunFaults, ::testing::ValuesIn(fault_models()), model_name);
// Two engine threads: the mlp and the Loop/If model. The cnn, also on oneDNN's OpenMP team
// of two, takes ~15 s per variant alone and over a minute beside other tests on two cores.
INSTANTIATE_TEST_SUITE_P(Models, RunFaultsTwoThreads,
                         ::testing::Values(fault_models()[0], fault_models()[1]), model_name);

}  // namespace
}  // namespace geon::faults
