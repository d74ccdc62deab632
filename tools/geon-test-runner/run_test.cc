#include "tools/geon-test-runner/run_test.h"

#include <sys/wait.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>

#include "tools/common/compare.h"
#include "tools/common/file_bytes.h"
#include "tools/common/json.h"
#include "tools/common/tensor_file.h"
#include "tools/common/tensor_proto.h"
#include "tools/geon-test-runner/input_guard.h"
#include "tools/geon-test-runner/run_values.h"

namespace geon::tools {
namespace {

using Clock = std::chrono::steady_clock;

// The message's first line; when that line only introduces a list ("...: "), the list's first
// entry too, since that is where the op and the reason are.
std::string first_line(const std::string& s) {
  const size_t end = s.find('\n');
  std::string line = s.substr(0, end);
  if (end == std::string::npos || line.empty() || line.back() != ':') return line;
  const size_t next_end = s.find('\n', end + 1);
  std::string next =
      s.substr(end + 1, next_end == std::string::npos ? std::string::npos : next_end - end - 1);
  const size_t start = next.find_first_not_of(" \t");
  return start == std::string::npos ? line : line + " " + next.substr(start);
}

// The test's tolerances: data.json's rtol / atol where present, else the harness defaults.
Tolerance tolerance_of(const std::string& dir) {
  Tolerance tol;
  const auto path = std::filesystem::path(dir) / "data.json";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return tol;
  const std::string json = read_file_text(path.string(), 1 << 20);
  if (auto v = json_find_number(json, "rtol")) tol.rtol = *v;
  if (auto v = json_find_number(json, "atol")) tol.atol = *v;
  return tol;
}

// ONNX before 1.14 stored bfloat16 test data as uint16 tensors of the same bits (NumPy has no
// bfloat16); such data is read as the bfloat16 the model declares.
void bfloat16_from_uint16(HostTensor& t, int32_t declared) {
  if (t.dtype == kUint16 && declared == kBfloat16) t.dtype = kBfloat16;
}

// Inputs are matched by the name stored in the .pb when it names a model input, else by
// position (the harness feeds input_N to the N-th input).
std::vector<HostTensor> read_inputs(const DataSet& set,
                                    const std::vector<geon::api::ValueInfo>& model_inputs) {
  std::vector<HostTensor> out;
  for (size_t i = 0; i < set.inputs.size(); ++i) {
    HostTensor t = read_tensor_file(set.inputs[i]);
    bool named = false;
    for (const auto& in : model_inputs) named = named || (!t.name.empty() && in.name == t.name);
    if (!named) {
      if (i >= model_inputs.size()) {
        throw ToolError(set.inputs[i] + ": the model has only " +
                        std::to_string(model_inputs.size()) + " inputs");
      }
      t.name = model_inputs[i].name;
    }
    for (const auto& in : model_inputs) {
      if (in.name == t.name) bfloat16_from_uint16(t, in.dtype);
    }
    out.push_back(std::move(t));
  }
  return out;
}

// Empty when every output matches; else the first mismatch.
std::string check_outputs(const DataSet& set, const geon::api::Result& result,
                          const std::vector<geon::api::ValueInfo>& model_outputs,
                          const Tolerance& tol) {
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < result.size(); ++i) by_name[result.name(i)] = i;
  for (size_t k = 0; k < set.outputs.size(); ++k) {
    HostTensor expected = read_tensor_file(set.outputs[k]);
    std::string name = k < model_outputs.size() ? model_outputs[k].name : expected.name;
    if (!expected.name.empty() && by_name.count(expected.name)) name = expected.name;
    auto it = by_name.find(name);
    if (it == by_name.end())
      return "output '" + name + "' (" + set.outputs[k] + ") was not produced";
    const HostTensor got = from_result(result, it->second);
    bfloat16_from_uint16(expected, got.dtype);
    if (auto m = compare_tensors(got, expected, tol)) {
      return std::filesystem::path(set.dir).filename().string() + ": " + describe(*m, name);
    }
  }
  return "";
}

TestResult run_in_process(const geon::api::Library& lib, const TestCase& test,
                          const RunnerArgs& args) {
  TestResult r{test.name, TestStatus::kFail, "", 0};
  try {
    const geon::api::Options options = provider_options(lib, args);
    const geon::api::Session session(lib, (std::filesystem::path(test.dir) / "model.onnx").string(),
                                     &options);
    const auto inputs = session.inputs();
    const auto outputs = session.outputs();
    const Tolerance tol = tolerance_of(test.dir);
    const auto sets = discover_data_sets(test.dir);
    if (sets.empty()) {
      r.message = "no test_data_set_* directory";
      return r;
    }
    const bool values = takes_values(inputs, outputs);
    for (const auto& set : sets) {
      if (values) {  // sequences or optionals: their inputs are copied, so none can change
        r.message = run_value_set(session, set, inputs, outputs, tol);
        if (!r.message.empty()) return r;
        continue;
      }
      const auto tensors = read_inputs(set, inputs);
      std::vector<geon::api::Feed> feeds;
      for (const auto& t : tensors) feeds.push_back(to_feed(t));
      // The feeds point at `tensors`; the copy shows whether the run wrote into them.
      const InputSnapshot pristine = snapshot_inputs(tensors);
      const geon::api::Result result = session.run_result(feeds);
      r.message = modified_input(pristine, tensors);
      if (!r.message.empty()) {
        r.message = std::filesystem::path(set.dir).filename().string() + ": " + r.message;
        return r;
      }
      r.message = check_outputs(set, result, outputs, tol);
      if (!r.message.empty()) return r;
    }
    r.status = TestStatus::kPass;
  } catch (const geon::api::Error& e) {
    r.status = e.code() == GEON_UNSUPPORTED ? TestStatus::kUnsupported : TestStatus::kFail;
    r.message = first_line(e.what());
  } catch (const UnsupportedData& e) {
    r.status = TestStatus::kUnsupported;
    r.message = first_line(e.what());
  } catch (const std::exception& e) {
    r.message = first_line(e.what());
  }
  return r;
}

// The child's answer on the pipe: one status character, then the message.
std::string encode(const TestResult& r) {
  const char c = r.status == TestStatus::kPass          ? 'P'
                 : r.status == TestStatus::kUnsupported ? 'U'
                                                        : 'F';
  return std::string(1, c) + r.message;
}

}  // namespace

const char* status_name(TestStatus s) {
  switch (s) {
    case TestStatus::kPass:
      return "pass";
    case TestStatus::kUnsupported:
      return "unsupported";
    default:
      return "fail";
  }
}

TestResult run_test(const geon::api::Library& lib, const TestCase& test, const RunnerArgs& args) {
  const auto t0 = Clock::now();
  TestResult r = run_in_process(lib, test, args);
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

std::string run_test_for_parent(const geon::api::Library& lib, const TestCase& test,
                                const RunnerArgs& args) {
  return encode(run_in_process(lib, test, args));
}

TestResult child_result(const std::string& name, const ChildEnd& end, double timeout_s) {
  TestResult r{name, TestStatus::kFail, "", end.seconds};
  if (end.timed_out) {
    r.message = "timed out after " + std::to_string(timeout_s) + " s";
  } else if (WIFSIGNALED(end.wait_status)) {
    r.message = std::string("crashed: ") + strsignal(WTERMSIG(end.wait_status));
  } else if (end.message.empty()) {
    r.message = "the test process exited without a result";
  } else {
    r.status = end.message[0] == 'P'   ? TestStatus::kPass
               : end.message[0] == 'U' ? TestStatus::kUnsupported
                                       : TestStatus::kFail;
    r.message = end.message.substr(1);
  }
  return r;
}

}  // namespace geon::tools
