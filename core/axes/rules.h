// How an op's output axes follow from its operands' axes: nGraph's rules (seed 004) for
// elementwise ops, dot, reductions and AxesCast, with seed 001's dual axes for dot and transpose.
// Each rule returns the output axes plus the positions a kernel needs; none looks at positions
// to pair dims, which is why kernels never guess broadcasting or contraction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/axes/axes.h"

namespace geon {

// ---- elementwise -------------------------------------------------------------------------
// Output axes = the union of the operands' axes in order of first appearance, left operand
// first: (A, B) + (C, B) -> (A, B, C). Axes are paired by axes_match (identity, else same class,
// dual and length); the output keeps the earlier operand's axis. Unpaired axes broadcast.
// `requested` (seed 001's axes parameter) comes before every operand: it fixes the order of
// the axes it lists and may add axes no operand has.
struct ElementwiseAxes {
  Axes out;
  // position[k][i]: where operand k's axis i sits in out (the dim shuffle for that operand).
  std::vector<std::vector<std::size_t>> position;
};
ElementwiseAxes elementwise_mapping(const std::vector<Axes>& operands, const Axes& requested = {});
Axes elementwise_axes(const Axes& a, const Axes& b);  // elementwise_mapping({a, b}).out

// ---- dot -----------------------------------------------------------------------------------
// Contracts every axis of the first operand that has a partner in the second: the same axis
// (seed 004: "dot takes place in overlapping axes", (A, B, C) . (B, C, D) -> (A, D)) or its
// lower dual (seed 001: M^{k*} in the first pairs with M^{(k-1)*} in the second, so M* . M
// contracts). Output = the first's remaining axes in order, then the second's. Axes in `batch`
// must be in both operands; they are not contracted but kept once, at the first operand's
// position (batched MatMul). An axis with two possible partners is an Error, never a guess.
struct DotPair {
  std::size_t first = 0;   // position in the first operand
  std::size_t second = 0;  // position in the second operand
  friend bool operator==(const DotPair&, const DotPair&) = default;
};
struct DotAxes {
  Axes out;
  std::vector<DotPair> contracted;  // in the first operand's order
  // Where each operand's axis lands in out; -1 for a contracted axis.
  std::vector<int64_t> first_to_out, second_to_out;
};
DotAxes dot_axes(const Axes& a, const Axes& b, const Axes& batch = {});

// ---- transpose with duals ----------------------------------------------------------------
// Seed 001's transpose: every M^{k*} becomes M^{(1-k)*}, values unchanged; the order is
// reversed so that a rank-2 operand also reads as the usual matrix transpose. With it
// dot(x, y) = dot(y^t, x^t)^t and dot(x^t, x) is the squared L2 norm (seed 000).
// (ONNX Transpose, a pure reordering, is permute_axes in axes.h.)
Axes dual_transpose(const Axes& axes);

// ---- reductions ----------------------------------------------------------------------------
// Seed 004: a reduction names the axes it keeps, `out_axes`, in any order; each must be an
// axis of the input; empty reduces over all axes. Returns out_axes after checking them.
Axes reduce_axes(const Axes& in, const Axes& out_axes);
// The axes summed over: the input's axes not kept, in the input's order.
Axes reduced_axes(const Axes& in, const Axes& out_axes);

// ---- AxesCast --------------------------------------------------------------------------------
// Seed 004: relabels a value's axes position by position. The target must have as many axes,
// and each length must agree with the source's at the same position; a difference that is
// only decidable once symbols are bound is left for the run-time check. Returns `to`.
Axes axes_cast(const Axes& from, const Axes& to);

}  // namespace geon
