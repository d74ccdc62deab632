// Import rules: elementwise math, activations, logic, comparisons and casts. Outputs take
// the numpy broadcast of the inputs (or the input's own axes for unary ops); constant inputs
// fold through the CPU engine where it has the op.
#include <vector>

#include "importer/ops/common.h"
#include "importer/ops/families.h"

namespace geon::importer {
namespace {

void binary_arith(RuleContext& c, const char* engine_op) {
  const DType t = common_dtype(c, {0, 1});
  if (c.opset() < 7 && c.attr_int("broadcast", 0) != 0)
    c.unsupported("legacy broadcast attribute (opset < 7) is not supported yet");
  broadcast_output(c, t);
  fold_elementwise(c, engine_op);
}

void add(RuleContext& c) { binary_arith(c, "add"); }
void relu(RuleContext& c) {
  same_as_input(c);
  fold_elementwise(c, "relu");
}

}  // namespace

std::span<const RuleEntry> elementwise_rules() {
  static const std::vector<RuleEntry> rules = {
      {"", "Add", 1, add},
      {"", "Relu", 1, relu},
  };
  return rules;
}

}  // namespace geon::importer
