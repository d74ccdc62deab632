// Running one backend test: create a session, feed each data set's inputs, compare outputs as
// the ONNX harness does; in this process, or in a child (see parallel.h) whose answer and end
// become the test's result, so that a crash or a hang in the provider fails that test only.
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

// In a child: the test's result encoded for the parent (one status character, the message).
std::string run_test_for_parent(const geon::api::Library& lib, const TestCase& test,
                                const RunnerArgs& args);
// How a child ended: what it wrote, its wait status, whether it was killed for the time limit.
struct ChildEnd {
  std::string message;
  int wait_status = 0;
  bool timed_out = false;
  double seconds = 0;
};
// The result of test `name` from its child's end.
TestResult child_result(const std::string& name, const ChildEnd& end, double timeout_s);

}  // namespace geon::tools
