// geon-test-runner: runs ONNX backend test directories through the provider library (loaded
// by path through the C ABI) and reports pass / fail / unsupported per test, as the ONNX
// backend harness would judge them, then which ops the failures and skips are about.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <sstream>

#include "geon/geon.hpp"
#include "tools/common/file_bytes.h"
#include "tools/common/json.h"
#include "tools/common/provider_path.h"
#include "tools/common/tool_main.h"
#include "tools/geon-test-runner/discover.h"
#include "tools/geon-test-runner/model_ops.h"
#include "tools/geon-test-runner/op_table.h"
#include "tools/geon-test-runner/parallel.h"
#include "tools/geon-test-runner/progress.h"
#include "tools/geon-test-runner/run_test.h"
#include "tools/geon-test-runner/runner_args.h"

namespace geon::tools {
namespace {

std::string json_report(const std::vector<TestResult>& results,
                        const std::vector<std::string>& ops) {
  std::ostringstream o;
  o << "[";
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    o << (i ? ",\n " : "\n ") << "{\"name\": " << json_quote(r.name)
      << ", \"status\": " << json_quote(status_name(r.status))
      << ", \"message\": " << json_quote(r.message) << ", \"seconds\": " << json_number(r.seconds);
    if (!ops[i].empty()) o << ", \"op\": " << json_quote(ops[i]);
    o << "}";
  }
  o << "\n]\n";
  return o.str();
}

int runner_main(int argc, char** argv) {
  const std::optional<RunnerArgs> parsed = parse_runner_args(argc, argv);
  if (!parsed) return 0;  // --help
  const RunnerArgs& args = *parsed;
  const auto tests = discover_tests(args.dirs, args.filters);
  const geon::api::Library lib(provider_path(args.provider));
  std::vector<TestResult> results(tests.size());
  std::vector<std::string> ops(tests.size());  // what each failed or skipped test is about
  Progress progress(std::cout, tests.size(), isatty(STDOUT_FILENO) == 1, args.verbose);
  const auto record = [&](size_t i, TestResult&& r) {
    if (r.status != TestStatus::kPass) {
      const auto model = std::filesystem::path(tests[i].dir) / "model.onnx";
      ops[i] = test_op(r.name, r.message, model_op_types(model.string()));
    }
    progress.add(r);
    results[i] = std::move(r);
  };
  if (args.fork_each) {
    run_tests_forked(lib, tests, args, record, [&] { progress.tick(); });
  } else {
    for (size_t i = 0; i < tests.size(); ++i) record(i, run_test(lib, tests[i], args));
  }
  progress.finish();
  std::vector<std::pair<std::string, TestStatus>> by_op;
  for (size_t i = 0; i < tests.size(); ++i) by_op.emplace_back(ops[i], results[i].status);
  std::cout << format_op_table(count_by_op(by_op)) << std::flush;
  if (!args.json_path.empty()) write_file_text(args.json_path, json_report(results, ops));
  return (args.fail_on_failure && progress.failed() > 0) ? 1 : 0;
}

}  // namespace
}  // namespace geon::tools

int main(int argc, char** argv) {
  return geon::tools::tool_main("geon-test-runner", argc, argv, geon::tools::runner_main, 2);
}
