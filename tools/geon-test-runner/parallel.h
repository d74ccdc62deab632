// Running backend tests in forked children, up to --jobs at once, each with the time limit:
// a crash or a hang fails that test and the run goes on, and results come back in test order
// whatever order the children finish in.
#pragma once

#include <functional>
#include <vector>

#include "geon/geon.hpp"
#include "tools/geon-test-runner/discover.h"
#include "tools/geon-test-runner/run_test.h"
#include "tools/geon-test-runner/runner_args.h"

namespace geon::tools {

// Called with each test's index and result, in index order.
using ResultSink = std::function<void(size_t index, TestResult&& result)>;
// Called about once a second while tests run (a progress line redraws its ETA).
using Tick = std::function<void()>;

void run_tests_forked(const geon::api::Library& lib, const std::vector<TestCase>& tests,
                      const RunnerArgs& args, const ResultSink& sink, const Tick& tick);

}  // namespace geon::tools
