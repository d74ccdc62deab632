// Running one backend test: create a session, feed each data set's inputs, compare outputs as
// the ONNX harness does. Optionally in a child process, so that a crash or a hang in the
// provider fails that test and the run goes on.
#pragma once

#include <string>

#include "geon/geon.hpp"
#include "tools/geon-test-runner/discover.h"
#include "tools/geon-test-runner/runner_args.h"

namespace geon::tools {

enum class TestStatus { kPass, kFail, kUnsupported };

struct TestResult {
  std::string name;
  TestStatus status = TestStatus::kFail;
  std::string message;  // first mismatch, or the error's first line
  double seconds = 0;
};

const char* status_name(TestStatus s);  // "pass", "fail", "unsupported"

TestResult run_test(const geon::api::Library& lib, const TestCase& test, const RunnerArgs& args);
// run_test in a forked child, with args.timeout_s as the limit.
TestResult run_test_isolated(const geon::api::Library& lib, const TestCase& test,
                             const RunnerArgs& args);

}  // namespace geon::tools
