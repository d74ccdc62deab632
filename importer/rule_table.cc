// The one rule table: every family's entries, searched by (domain, op) and opset.
#include <vector>

#include "importer/ops/families.h"

namespace geon::importer {

std::span<const RuleEntry> all_rules() {
  static const std::vector<RuleEntry> table = [] {
    std::vector<RuleEntry> t;
    for (auto family : {elementwise_rules(), reduction_rules(), linalg_rules(), nn_rules(),
                        shape_rules(), indexing_rules(), control_flow_rules(), sequence_rules(),
                        quantization_rules(), misc_rules()})
      t.insert(t.end(), family.begin(), family.end());
    return t;
  }();
  return table;
}

const RuleEntry* find_rule(std::string_view domain, std::string_view op, int opset,
                           bool* known_op) {
  const RuleEntry* best = nullptr;
  bool known = false;
  for (const RuleEntry& r : all_rules()) {
    if (r.domain != domain || r.op != op) continue;
    known = true;
    if (r.since <= opset && (!best || r.since > best->since)) best = &r;
  }
  if (known_op) *known_op = known;
  return best;
}

}  // namespace geon::importer
