// ExprBuilder: validates ops, arity and types while the expression is put together.
#include "core/engine/expr.h"

#include <string>

#include "core/base/error.h"

namespace geon {

ExprBuilder::ExprBuilder(std::span<const DType> input_dtypes) {
  expr_.inputs.assign(input_dtypes.begin(), input_dtypes.end());
}

ExprArg ExprBuilder::input(int i) const {
  if (i < 0 || i >= static_cast<int>(expr_.inputs.size()))
    fail(ErrorCode::kInvalidArgument, "expression: input " + std::to_string(i) +
                                          " does not exist (" +
                                          std::to_string(expr_.inputs.size()) + " inputs)");
  return {i, false};
}

DType ExprBuilder::dtype_of(ExprArg a) const {
  if (a.node) {
    require(a.index >= 0 && a.index < static_cast<int>(expr_.nodes.size()),
            "expression: argument refers to a node that does not exist yet");
    return expr_.nodes[a.index].result;
  }
  return expr_.inputs.at(input(a.index).index);
}

ExprArg ExprBuilder::apply(std::string_view name, std::initializer_list<ExprArg> args,
                           std::initializer_list<double> scale, OpParams params) {
  const OpDef* op = find_op(name);
  if (!op)
    fail(ErrorCode::kNotSupported, "engine: no elementwise op named '" + std::string(name) + "'");
  const int n = static_cast<int>(args.size());
  // Messages are built only on failure: expressions are built on many engine calls.
  if (n != op->arity)
    fail(ErrorCode::kInvalidArgument, "engine: op '" + std::string(name) + "' takes " +
                                          std::to_string(op->arity) + " arguments, got " +
                                          std::to_string(n));
  if (scale.size() != 0 && static_cast<int>(scale.size()) != n)
    fail(ErrorCode::kInvalidArgument,
         "engine: op '" + std::string(name) + "': one scale per argument");
  ExprNode node;
  node.op = op;
  node.params = params;
  int i = 0;
  for (ExprArg a : args) {
    dtype_of(a);  // validates the reference
    node.args[i++] = a;
  }
  i = 0;
  for (double s : scale) node.scale[i++] = s;
  const ExprArg typed = node.args[op->condition_first ? 1 : 0];
  node.compute = compute_dtype(dtype_of(typed));
  // ONNX Pow of an integer base by a floating exponent raises in floating point (the result
  // keeps the base's type, truncated when stored): compute in double, not in the base's type.
  if (name == "pow" && n == 2 && node.compute != DType::kFloat && node.compute != DType::kDouble &&
      is_floating(dtype_of(node.args[1])))
    node.compute = DType::kDouble;
  const int ci = compute_index(node.compute);
  if (ci < 0 || op->fn[ci] == nullptr)
    fail(ErrorCode::kNotSupported, "engine: op '" + std::string(name) + "' is not defined for " +
                                       std::string(dtype_name(dtype_of(typed))));
  for (int k = 0; k < n; ++k)
    if (node.scale[k] != 1.0 && node.compute != DType::kFloat && node.compute != DType::kDouble)
      require(node.scale[k] == static_cast<double>(static_cast<int64_t>(node.scale[k])), [&] {
        return "engine: op '" + std::string(name) +
               "': a scale on an integer operand must be an integer";
      });
  node.result = op->result == OpResult::kBool ? DType::kBool : node.compute;
  expr_.nodes.push_back(node);
  return {static_cast<int>(expr_.nodes.size()) - 1, true};
}

Expr single_op_expr(std::string_view op, std::span<const DType> inputs,
                    std::initializer_list<double> scale, OpParams params) {
  ExprBuilder b(inputs);
  const int n = static_cast<int>(inputs.size());
  if (n < 1 || n > 3)
    fail(ErrorCode::kInvalidArgument, "engine: op '" + std::string(op) + "' given " +
                                          std::to_string(n) + " inputs; one op takes 1 to 3");
  switch (n) {
    case 1:
      b.apply(op, {b.input(0)}, scale, params);
      break;
    case 2:
      b.apply(op, {b.input(0), b.input(1)}, scale, params);
      break;
    default:
      b.apply(op, {b.input(0), b.input(1), b.input(2)}, scale, params);
      break;
  }
  return b.build();
}

Expr ExprBuilder::build() const {
  require(!expr_.nodes.empty(), "expression: no ops");
  return expr_;
}

}  // namespace geon
