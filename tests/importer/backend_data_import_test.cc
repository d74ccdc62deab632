// Every model of the ONNX backend test data (the pinned wheel's copy and Debian's) either
// imports or reports the unsupported op by name; for every model that imports, the inferred
// output dtypes and static shapes equal those of test_data_set_0's expected outputs. The
// counts are tracked in tests/importer/import_counts.txt and must not drop.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "core/base/error.h"
#include "importer/import.h"
#include "tests/importer/backend_data.h"

namespace geon {
namespace {

namespace fs = std::filesystem;
using testing_data::backend_data_sets;

struct Counts {
  int total = 0, imported = 0, unsupported = 0, shapes_checked = 0, shapes_unknown = 0;
};

std::map<std::string, int> read_recorded() {
  std::map<std::string, int> out;
  std::ifstream in(std::string(GEON_SOURCE_DIR) + "/tests/importer/import_counts.txt");
  std::string set;
  int imported = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    if (ls >> set >> imported) out[set] = imported;
  }
  return out;
}

// Compares output k of the imported graph with the expected tensor; returns false and
// records a failure on a mismatch, counts unknown shapes.
void check_output(const Graph& g, int k, const fs::path& pb, const std::string& model,
                  Counts& counts) {
  const Value& v = g.value(g.outputs[k]);
  if (v.type.kind != TypeKind::kTensor) return;  // sequences/optionals: .pb is not a TensorProto
  std::shared_ptr<TensorData> want;
  try {
    want = read_tensor_file(pb.string());
  } catch (const Error&) {
    return;
  }
  // ONNX 1.12's test data (Debian's copy) stored bfloat16 expected outputs as uint16 bits.
  const bool old_bf16 = model.rfind("debian/", 0) == 0 && v.dtype() == DType::kBFloat16 &&
                        want->desc.dtype == DType::kUInt16;
  if (!old_bf16) {
    EXPECT_EQ(v.dtype(), want->desc.dtype)
        << model << ": output '" << v.name << "' inferred " << dtype_name(v.dtype())
        << ", expected " << dtype_name(want->desc.dtype);
  }
  if (!v.rank_known) {
    ++counts.shapes_unknown;
    return;
  }
  ++counts.shapes_checked;
  ASSERT_EQ(v.rank(), want->desc.rank())
      << model << ": output '" << v.name << "' inferred " << to_string_with_lengths(v.axes)
      << ", expected " << to_string(want->desc);
  for (int d = 0; d < v.rank(); ++d) {
    const Length& len = v.axes[d].length;
    if (len.is_static()) {
      EXPECT_EQ(len.value, want->desc.shape[d])
          << model << ": output '" << v.name << "' inferred " << to_string_with_lengths(v.axes)
          << ", expected " << to_string(want->desc);
    }
  }
}

TEST(BackendDataImport, EveryModelImportsOrNamesItsUnsupportedOpAndShapesMatch) {
  const auto recorded = read_recorded();
  std::map<std::string, Counts> all;
  std::map<std::string, int> unsupported_ops;
  std::ostringstream report;
  for (const auto& set : backend_data_sets()) {
    Counts& c = all[set.name];
    for (const fs::path& dir : testing_data::cases(set)) {
      ++c.total;
      const std::string model = set.name + "/" + dir.filename().string();
      ImportOptions opt;
      opt.trust_value_info = false;
      ImportedModel m;
      try {
        m = import_model_file((dir / "model.onnx").string(), opt);
      } catch (const Error& e) {
        const std::string msg = e.what();
        if (e.code() == ErrorCode::kNotSupported) {
          ++c.unsupported;
          const auto q = msg.find("unsupported op '");
          const std::string key = q != std::string::npos
                                      ? msg.substr(q + 16, msg.find('\'', q + 16) - q - 16)
                                      : msg.substr(msg.find(": ") + 2).substr(0, 120);
          ++unsupported_ops[key];
          report << "unsupported " << model << ": " << msg << "\n";
        } else {
          ADD_FAILURE() << model << " failed to import: " << msg;
          report << "FAILED " << model << ": " << msg << "\n";
        }
        continue;
      }
      ++c.imported;
      const fs::path data = dir / "test_data_set_0";
      for (size_t k = 0; k < m.graph->outputs.size(); ++k) {
        const fs::path pb = data / ("output_" + std::to_string(k) + ".pb");
        if (fs::exists(pb)) check_output(*m.graph, static_cast<int>(k), pb, model, c);
      }
    }
  }
  std::ostringstream counts_text;
  for (const auto& [name, c] : all) {
    counts_text << name << " " << c.imported << " of " << c.total << " (unsupported "
                << c.unsupported << ", output shapes checked " << c.shapes_checked << ", unknown "
                << c.shapes_unknown << ")\n";
    auto r = recorded.find(name);
    if (r != recorded.end()) {
      EXPECT_GE(c.imported, r->second) << name << ": fewer models import than recorded";
    }
  }
  report << "\nunsupported ops (models):\n";
  for (const auto& [op, n] : unsupported_ops) report << "  " << op << " " << n << "\n";
  std::ofstream("import_report.txt") << counts_text.str() << report.str();
  std::cout << counts_text.str();
  if (std::getenv("GEON_UPDATE_COUNTS")) {
    std::ofstream out(std::string(GEON_SOURCE_DIR) + "/tests/importer/import_counts.txt");
    out << "# data set, models that import (a floor: the backend data import test fails below "
           "it)\n";
    for (const auto& [name, c] : all) out << name << " " << c.imported << "\n";
  }
  EXPECT_FALSE(all.empty()) << "no backend test data found";
}

}  // namespace
}  // namespace geon
