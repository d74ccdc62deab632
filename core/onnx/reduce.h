// ONNX's ReduceSum/Mean/Max/Min/Prod as one engine reduction: the reduction kind, the axes
// (attribute before the opset that made them an input), and the destination view that keeps
// every reduced dim as length 1 so the engine accumulates onto it; and ReduceL1/L2/LogSum/
// LogSumExp/SumSquare as an engine sum between two elementwise maps. Shared by the kernel sets.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/desc/desc.h"
#include "core/engine/engine.h"
#include "core/onnx/node.h"

namespace geon::onnx {

// The reduction of an op name ("ReduceSum" ...), or nullopt for other ops.
std::optional<Reduce> reduction_of(std::string_view op);

// ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp and ReduceSumSquare: a sum of `before`(x),
// then `after` applied to each sum (engine op names; empty = none). LogSumExp is max-shifted for
// stability: log(sum(exp(x - m))) + m, m the largest finite element (0 when there is none), so
// large inputs do not overflow and an infinite one gives an infinite result instead of NaN.
// An empty reduction gives each form's value at a sum of 0: 0 for L1, L2 and SumSquare, -inf
// for LogSum and LogSumExp (the spec's identities). With noop_with_empty_axes and no axes the
// maps still apply element by element (opset 18: ReduceSumSquare "acts as a vanilla Square").
struct ComposedReduce {
  std::string_view before;
  std::string_view after;
  bool max_shifted = false;
};
// The composition of an op name, or nullopt for other ops (the plain reductions included).
std::optional<ComposedReduce> composed_reduction_of(std::string_view op);

// The parameters read from a node: axes (attribute or constant input 1), keepdims,
// noop_with_empty_axes (only meaningful where axes is an input).
struct ReduceParams {
  Reduce reduce = Reduce::kSum;
  std::vector<int64_t> axes;
  bool keepdims = true;
  bool noop_with_empty_axes = false;
};
// axes_from_input: the node's form takes axes as input 1 (which must then be constant).
ReduceParams reduce_params(const Graph& g, const Node& n, bool axes_from_input);

// Why the node cannot run as a reduction: an unknown op, a bool reduction other than Max/Min,
// axes given by a non-constant input, or axes out of range or repeated for a known rank.
Reason reduce_reason(const Graph& g, const Node& n, bool axes_from_input);

// The result's shape, and the view of a destination of that shape with the reduced dims
// restored as length 1 (what the engine reduces into). `identity` when the node is a copy
// (empty axes with noop_with_empty_axes). Throws geon::Error naming bad axes.
struct ReducedShape {
  Dims out_shape;
  bool identity = false;
  // Positions to unsqueeze in the destination's description (empty with keepdims).
  std::vector<int64_t> restore;
};
ReducedShape reduced_shape(std::span<const int64_t> src_shape, const ReduceParams& p);

}  // namespace geon::onnx
