// Elementwise fusion: a maximal tree of elementwise nodes (core/onnx/elementwise.h rows) whose
// intermediates have one reader, optionally ending in ReduceSum/Mean/Max/Min/Prod with constant
// axes, becomes one geon.Elementwise node that the engine evaluates in one pass: no
// intermediate reaches memory (sum((x - y)^2): x - y is never written).
//
// geon.Elementwise (domain "geon", opset 1) encodes its expression in attributes:
//   ops     strings  the engine op of each expression node, in evaluation order; the last
//                    node's value is the result (before the reduction)
//   args    ints     3 per node: a >= 0 is the fused node's input a, a < 0 the value of
//                    expression node -a-1 (an earlier one); slots past the op's arity are 0
//   scales  floats   3 per node: each argument's factor (y = op(s0*x, s1*z, ...))
//   alphas  floats   1 per node: OpParams::alpha (LeakyRelu's, Elu's, HardSigmoid's alpha)
//   betas   floats   1 per node: OpParams::beta (HardSigmoid's beta); optional, default 0
//   reduce  string   "" or the reduction's ONNX op (ReduceSum, ReduceMean, ...), then
//   axes    ints     its axes as the node gave them (empty = all, unless noop_with_empty_axes)
//   keepdims, noop_with_empty_axes   ints, as ONNX defines them
//   members strings  "Op:node_name" of each node replaced, in graph order
// The output's shape is the broadcast of every input's shape (reduced when `reduce` is set).
#pragma once

#include <optional>
#include <span>

#include "core/engine/engine.h"
#include "core/graph/graph.h"
#include "core/onnx/reduce.h"
#include "core/runtime/kernel.h"

namespace geon {

// Fuses every eligible group, when a set in `sets` has a geon.Elementwise row and that set
// supports each member node; returns the number of fused nodes made.
int fuse_elementwise(Graph& g, std::span<const KernelSet* const> sets);

// The expression a geon.Elementwise node encodes, for inputs of these dtypes. Throws
// geon::Error (kInvalidArgument) on a malformed encoding or an op missing for a dtype.
Expr fused_elementwise_expr(const Node& n, std::span<const DType> inputs);
// Its reduction, or nullopt when it has none.
std::optional<onnx::ReduceParams> fused_elementwise_reduce(const Node& n);

}  // namespace geon
