#include "tools/geon-run/profile_summary.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "tools/common/host_tensor.h"
#include "tools/common/json_value.h"

namespace geon::tools {

std::vector<OpTime> op_times(const std::string& trace_json) {
  const JsonValue trace = parse_json(trace_json);
  const JsonValue* events = trace.find("traceEvents");
  if (!events || !events->is_array()) throw ToolError("the profile has no \"traceEvents\" list");
  std::map<std::pair<std::string, std::string>, OpTime> rows;
  for (const JsonValue& e : events->items) {
    const JsonValue* ph = e.find("ph");
    const JsonValue* dur = e.find("dur");
    if (!ph || ph->str() != "X" || !dur || !dur->is_number()) continue;
    const JsonValue* args = e.find("args");
    const JsonValue* op = args ? args->find("op") : nullptr;
    const JsonValue* set = args ? args->find("set") : nullptr;
    const std::string op_name = op ? op->str() : e.find("cat") ? e.find("cat")->str() : "?";
    const std::string set_name = set ? set->str() : "";
    OpTime& row = rows[{op_name, set_name}];
    row.op = op_name;
    row.set = set_name;
    ++row.count;
    row.total_us += dur->number;
  }
  std::vector<OpTime> out;
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  std::stable_sort(out.begin(), out.end(),
                   [](const OpTime& a, const OpTime& b) { return a.total_us > b.total_us; });
  return out;
}

std::string format_op_times(const std::vector<OpTime>& rows) {
  double all_us = 0;
  size_t all_count = 0, op_width = 2, set_width = 3;
  for (const OpTime& r : rows) {
    all_us += r.total_us;
    all_count += r.count;
    op_width = std::max(op_width, r.op.size());
    set_width = std::max(set_width, r.set.size());
  }
  std::string out;
  char line[512];
  const int ow = static_cast<int>(std::min<size_t>(op_width, 160));
  const int sw = static_cast<int>(std::min<size_t>(set_width, 64));
  std::snprintf(line, sizeof line, "%-*s  %-*s  %8s  %10s  %10s  %7s\n", ow, "op", sw, "set",
                "count", "total ms", "mean us", "share");
  out += line;
  for (const OpTime& r : rows) {
    std::snprintf(line, sizeof line, "%-*s  %-*s  %8zu  %10.3f  %10.1f  %6.1f%%\n", ow,
                  r.op.c_str(), sw, r.set.c_str(), r.count, r.total_us / 1000.0,
                  r.count ? r.total_us / static_cast<double>(r.count) : 0.0,
                  all_us > 0 ? 100.0 * r.total_us / all_us : 0.0);
    out += line;
  }
  std::snprintf(line, sizeof line, "%-*s  %-*s  %8zu  %10.3f  %10s  %6.1f%%\n", ow, "total", sw, "",
                all_count, all_us / 1000.0, "", all_us > 0 ? 100.0 : 0.0);
  return out + line;
}

}  // namespace geon::tools
