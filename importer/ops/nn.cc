// Import rules: the nn family (see families.h for the ops it covers).
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/families.h"

namespace geon::importer {

std::span<const RuleEntry> nn_rules() {
  static const std::vector<RuleEntry> rules = {};
  return rules;
}

}  // namespace geon::importer
