// A fused elementwise expression: a small DAG of table ops over the pass's inputs, evaluated
// chunk by chunk so intermediate values never reach memory (the design notes' L2 example:
// the x - y of sum((x - y)^2) is never stored).
#pragma once

#include <array>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "core/dtype/dtype.h"
#include "core/engine/ops.h"

namespace geon {

// An argument of a node: pass input `index`, or the result of earlier node `index`.
struct ExprArg {
  int index = -1;
  bool node = false;
};

struct ExprNode {
  const OpDef* op = nullptr;
  DType compute = DType::kFloat;  // every argument is converted to this type first
  DType result = DType::kFloat;   // compute, or bool for comparisons
  std::array<ExprArg, 3> args{};
  std::array<double, 3> scale{1, 1, 1};  // y = op(a*x, b*z, ...): each argument's factor
  OpParams params{};
};

struct Expr {
  std::vector<DType> inputs;    // dtypes of the pass's inputs, in order
  std::vector<ExprNode> nodes;  // topological; the last node is the expression's value
  DType result() const { return nodes.back().result; }
};

// Builds an Expr, checking each op's arity and that it exists for the compute type.
class ExprBuilder {
 public:
  explicit ExprBuilder(std::span<const DType> input_dtypes);
  ExprArg input(int i) const;
  // Applies op to args. The compute type is that of the first argument (the second for ops
  // whose first argument is a condition), narrowed to an engine compute type; `scale` holds a
  // factor per argument (1 = none).
  ExprArg apply(std::string_view op, std::initializer_list<ExprArg> args,
                std::initializer_list<double> scale = {}, OpParams params = {});
  Expr build() const;

 private:
  DType dtype_of(ExprArg a) const;
  Expr expr_;
};

// The expression of one op applied to the pass's inputs in order: what unary/binary/ternary,
// reductions and constant folding evaluate. Throws like ExprBuilder::apply.
Expr single_op_expr(std::string_view op, std::span<const DType> inputs,
                    std::initializer_list<double> scale = {}, OpParams params = {});

}  // namespace geon
