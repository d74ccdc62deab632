// geon-test-runner: runs ONNX backend test directories through the provider library (loaded
// by path through the C ABI) and reports pass / fail / unsupported per test, as the ONNX
// backend harness would judge them.
#include <iostream>
#include <sstream>

#include "geon/geon.hpp"
#include "tools/common/file_bytes.h"
#include "tools/common/json.h"
#include "tools/common/provider_path.h"
#include "tools/common/tool_main.h"
#include "tools/geon-test-runner/discover.h"
#include "tools/geon-test-runner/run_test.h"
#include "tools/geon-test-runner/runner_args.h"

namespace geon::tools {
namespace {

std::string json_report(const std::vector<TestResult>& results) {
  std::ostringstream o;
  o << "[";
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    o << (i ? ",\n " : "\n ") << "{\"name\": " << json_quote(r.name)
      << ", \"status\": " << json_quote(status_name(r.status))
      << ", \"message\": " << json_quote(r.message) << ", \"seconds\": " << json_number(r.seconds)
      << "}";
  }
  o << "\n]\n";
  return o.str();
}

int runner_main(int argc, char** argv) {
  const std::optional<RunnerArgs> parsed = parse_runner_args(argc, argv);
  if (!parsed) return 0;  // --help
  const RunnerArgs& args = *parsed;
  const auto tests = discover_tests(args.dirs, args.filter);
  const geon::api::Library lib(provider_path(args.provider));
  std::vector<TestResult> results;
  size_t passed = 0, failed = 0, skipped = 0;
  for (const auto& test : tests) {
    std::cout.flush();  // a forked child must not inherit unflushed output
    TestResult r = args.fork_each ? run_test_isolated(lib, test, args) : run_test(lib, test, args);
    switch (r.status) {
      case TestStatus::kPass:
        ++passed;
        std::cout << "PASS " << r.name << "\n";
        break;
      case TestStatus::kFail:
        ++failed;
        std::cout << "FAIL " << r.name << ": " << r.message << "\n";
        break;
      case TestStatus::kUnsupported:
        ++skipped;
        std::cout << "SKIP " << r.name << ": unsupported: " << r.message << "\n";
        break;
    }
    results.push_back(std::move(r));
  }
  std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped" << std::endl;
  if (!args.json_path.empty()) write_file_text(args.json_path, json_report(results));
  return (args.fail_on_failure && failed > 0) ? 1 : 0;
}

}  // namespace
}  // namespace geon::tools

int main(int argc, char** argv) {
  return geon::tools::tool_main("geon-test-runner", argc, argv, geon::tools::runner_main, 2);
}
