// Locating the ONNX backend test data: the pinned onnx wheel's copy (newest opsets) and
// Debian's libonnx-testdata (ONNX 1.12). Each test case is a directory with model.onnx and
// test_data_set_*/{input,output}_*.pb.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace geon::testing_data {

struct DataSet {
  std::string name;  // e.g. "wheel/node"
  std::filesystem::path dir;
};

// Every data set present on this machine (the wheel's path is found at configure time).
inline std::vector<DataSet> backend_data_sets() {
  std::vector<DataSet> out;
  const std::vector<std::pair<std::string, std::string>> roots = {
#ifdef GEON_ONNX_WHEEL_DATA
      {"wheel", GEON_ONNX_WHEEL_DATA},
#endif
      {"debian", "/usr/share/libonnx-testdata/data"}};
  for (const auto& [tag, root] : roots)
    for (const char* kind : {"node", "simple", "pytorch-converted", "pytorch-operator"}) {
      const std::filesystem::path p = std::filesystem::path(root) / kind;
      if (std::filesystem::is_directory(p)) out.push_back({tag + "/" + kind, p});
    }
  return out;
}

// The case directories of a data set, sorted, so runs are comparable.
inline std::vector<std::filesystem::path> cases(const DataSet& s) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(s.dir))
    if (std::filesystem::exists(e.path() / "model.onnx")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace geon::testing_data
