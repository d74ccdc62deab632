#include "tools/geon-test-runner/discover.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include <fnmatch.h>

#include "tools/common/host_tensor.h"

namespace geon::tools {
namespace fs = std::filesystem;
namespace {

bool is_test_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p / "model.onnx", ec);
}

// N of "<prefix>N.pb", or -1.
int64_t numbered(const std::string& file, const std::string& prefix) {
  if (file.size() <= prefix.size() + 3 || file.compare(0, prefix.size(), prefix) != 0 ||
      file.compare(file.size() - 3, 3, ".pb") != 0) {
    return -1;
  }
  int64_t n = -1;
  const char* b = file.data() + prefix.size();
  const char* e = file.data() + file.size() - 3;
  const auto r = std::from_chars(b, e, n);
  return (r.ec == std::errc() && r.ptr == e) ? n : -1;
}

}  // namespace

bool filter_selects(const std::vector<std::string>& filters, const std::string& name) {
  if (filters.empty()) return true;
  for (const auto& f : filters) {
    const bool glob = f.find_first_of("*?[") != std::string::npos;
    if (glob ? fnmatch(f.c_str(), name.c_str(), 0) == 0 : name.find(f) != std::string::npos)
      return true;
  }
  return false;
}

std::vector<TestCase> discover_tests(const std::vector<std::string>& dirs,
                                     const std::vector<std::string>& filters) {
  std::vector<TestCase> out;
  for (const auto& d : dirs) {
    const fs::path root(d);
    std::error_code ec;
    if (!fs::is_directory(root, ec)) throw ToolError(d + ": not a directory");
    std::vector<TestCase> found;
    if (is_test_dir(root)) {
      found.push_back({fs::absolute(root).lexically_normal().filename().string(), root.string()});
    } else {
      for (const auto& entry : fs::directory_iterator(root, ec)) {
        if (entry.is_directory(ec) && is_test_dir(entry.path())) {
          found.push_back({entry.path().filename().string(), entry.path().string()});
        }
      }
      if (ec) throw ToolError(d + ": cannot list (" + ec.message() + ")");
      if (found.empty())
        throw ToolError(d + ": holds no test (no model.onnx in it or its subdirectories)");
      std::sort(found.begin(), found.end(),
                [](const TestCase& a, const TestCase& b) { return a.name < b.name; });
    }
    for (auto& t : found) {
      if (filter_selects(filters, t.name)) out.push_back(std::move(t));
    }
  }
  return out;
}

std::vector<DataSet> discover_data_sets(const std::string& test_dir) {
  std::vector<DataSet> sets;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(test_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory(ec) || name.rfind("test_data_set_", 0) != 0) continue;
    std::vector<std::pair<int64_t, std::string>> ins, outs;
    for (const auto& f : fs::directory_iterator(entry.path(), ec)) {
      const std::string file = f.path().filename().string();
      if (int64_t n = numbered(file, "input_"); n >= 0) ins.emplace_back(n, f.path().string());
      if (int64_t n = numbered(file, "output_"); n >= 0) outs.emplace_back(n, f.path().string());
    }
    std::sort(ins.begin(), ins.end());
    std::sort(outs.begin(), outs.end());
    DataSet s{entry.path().string(), {}, {}};
    for (auto& [n, p] : ins) s.inputs.push_back(std::move(p));
    for (auto& [n, p] : outs) s.outputs.push_back(std::move(p));
    sets.push_back(std::move(s));
  }
  std::sort(sets.begin(), sets.end(),
            [](const DataSet& a, const DataSet& b) { return a.dir < b.dir; });
  return sets;
}

}  // namespace geon::tools
