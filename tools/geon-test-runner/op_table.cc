#include "tools/geon-test-runner/op_table.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

namespace geon::tools {
namespace {

// Lower case without separators, so "LayerNormalization" and "layer_normalization" compare equal.
std::string folded(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "node 'conv1' (Conv): ..." -> "Conv".
std::string op_named_in(const std::string& message) {
  const size_t node = message.find("node '");
  if (node == std::string::npos) return "";
  const size_t open = message.find("' (", node + 6);
  if (open == std::string::npos) return "";
  const size_t close = message.find(')', open + 3);
  return close == std::string::npos ? "" : message.substr(open + 3, close - open - 3);
}

}  // namespace

std::string test_op(const std::string& test_name, const std::string& message,
                    const std::vector<std::string>& model_ops) {
  if (std::string op = op_named_in(message); !op.empty()) return op;
  const std::string name =
      folded(test_name.rfind("test_", 0) == 0 ? test_name.substr(5) : test_name);
  std::string best;
  for (const auto& op : model_ops) {
    const std::string f =
        folded(op.substr(op.rfind('.') == std::string::npos ? 0 : op.rfind('.') + 1));
    if (!f.empty() && name.rfind(f, 0) == 0 && f.size() > folded(best).size()) best = op;
  }
  if (!best.empty()) return best;
  return model_ops.empty() ? "?" : model_ops.front();
}

std::vector<OpCount> count_by_op(const std::vector<std::pair<std::string, TestStatus>>& tests) {
  std::map<std::string, OpCount> by_op;
  for (const auto& [op, status] : tests) {
    if (status == TestStatus::kPass) continue;
    OpCount& c = by_op[op];
    c.op = op;
    (status == TestStatus::kFail ? c.failed : c.skipped) += 1;
  }
  std::vector<OpCount> out;
  for (auto& [op, c] : by_op) out.push_back(std::move(c));
  std::stable_sort(out.begin(), out.end(), [](const OpCount& a, const OpCount& b) {
    return a.failed != b.failed ? a.failed > b.failed : a.skipped > b.skipped;
  });
  return out;
}

std::string format_op_table(const std::vector<OpCount>& rows) {
  if (rows.empty()) return "";
  size_t width = 2;
  for (const auto& r : rows) width = std::max(width, r.op.size());
  const int w = static_cast<int>(std::min<size_t>(width, 120));
  std::string out = "failed and skipped tests per op:\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-*s  %6s  %7s\n", w, "op", "failed", "skipped");
  out += line;
  for (const auto& r : rows) {
    std::snprintf(line, sizeof line, "  %-*s  %6zu  %7zu\n", w, r.op.c_str(), r.failed, r.skipped);
    out += line;
  }
  return out;
}

}  // namespace geon::tools
