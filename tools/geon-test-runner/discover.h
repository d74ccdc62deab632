// Finding backend test directories: a directory with model.onnx is one test; otherwise each
// child directory with a model.onnx is one (one level down, sorted by name).
#pragma once

#include <string>
#include <vector>

namespace geon::tools {

struct TestCase {
  std::string name;  // the directory's name
  std::string dir;
};

// Whether a test named `name` is selected by `filters` (--filter, repeatable): none given
// selects all; else any one matching does. A filter with *, ? or [ is a glob over the whole name
// (fnmatch), any other a substring.
bool filter_selects(const std::vector<std::string>& filters, const std::string& name);

// The tests under `dirs` that `filters` select; ToolError when a DIR does not exist or holds no
// test.
std::vector<TestCase> discover_tests(const std::vector<std::string>& dirs,
                                     const std::vector<std::string>& filters);

// A test's data sets (test_data_set_*), sorted; each set's input_N.pb / output_N.pb files
// sorted by N.
struct DataSet {
  std::string dir;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
};
std::vector<DataSet> discover_data_sets(const std::string& test_dir);

}  // namespace geon::tools
