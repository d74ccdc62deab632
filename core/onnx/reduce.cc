// Reduction parameters and shapes; see reduce.h.
#include "core/onnx/reduce.h"

#include <string>

#include "core/base/error.h"

namespace geon::onnx {
namespace {

// Axes normalised to [0, rank), or a message naming the first bad one.
std::optional<std::string> normalized(std::span<const int64_t> axes, int rank,
                                      std::vector<bool>& reduced) {
  reduced.assign(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank)
      return "axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank);
    const int64_t d = a < 0 ? a + rank : a;
    if (reduced[d]) return "axis " + std::to_string(a) + " is repeated";
    reduced[d] = true;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Reduce> reduction_of(std::string_view op) {
  if (op == "ReduceSum") return Reduce::kSum;
  if (op == "ReduceMean") return Reduce::kMean;
  if (op == "ReduceMax") return Reduce::kMax;
  if (op == "ReduceMin") return Reduce::kMin;
  if (op == "ReduceProd") return Reduce::kProd;
  return std::nullopt;
}

std::optional<ComposedReduce> composed_reduction_of(std::string_view op) {
  if (op == "ReduceL1") return ComposedReduce{"abs", "", false};
  if (op == "ReduceL2") return ComposedReduce{"square", "sqrt", false};
  if (op == "ReduceLogSum") return ComposedReduce{"", "log", false};
  if (op == "ReduceLogSumExp") return ComposedReduce{"exp", "log", true};
  if (op == "ReduceSumSquare") return ComposedReduce{"square", "", false};
  return std::nullopt;
}

ReduceParams reduce_params(const Graph& g, const Node& n, bool axes_from_input) {
  ReduceParams p;
  p.reduce = reduction_of(n.op).value_or(Reduce::kSum);
  if (axes_from_input) {
    p.axes = constant_ints(g, n, 1).value_or(std::vector<int64_t>{});
    p.noop_with_empty_axes = attr_int(n, "noop_with_empty_axes", 0) != 0;
  } else {
    p.axes = attr_ints(n, "axes").value_or(std::vector<int64_t>{});
  }
  p.keepdims = attr_int(n, "keepdims", 1) != 0;
  return p;
}

Reason reduce_reason(const Graph& g, const Node& n, bool axes_from_input) {
  const std::optional<Reduce> r = reduction_of(n.op);
  if (!r) return n.op + " is not a reduction";
  if (!has_input(n, 0)) return n.op + " needs its data input";
  if (Reason why = engine_io_reason(g, n)) return why;
  if (input_dtype(g, n, 0) == DType::kBool && *r != Reduce::kMax && *r != Reduce::kMin)
    return n.op + " of bool is not implemented";
  if (axes_from_input && has_input(n, 1) && !constant_ints(g, n, 1))
    return n.op + ": axes must be a constant integer tensor";
  if (const std::optional<int> rank = input_rank(g, n, 0)) {
    std::vector<bool> reduced;
    if (auto why = normalized(reduce_params(g, n, axes_from_input).axes, *rank, reduced))
      return n.op + ": " + *why;
  }
  return std::nullopt;
}

ReducedShape reduced_shape(std::span<const int64_t> src_shape, const ReduceParams& p) {
  ReducedShape out;
  const int rank = static_cast<int>(src_shape.size());
  if (p.axes.empty() && p.noop_with_empty_axes) {
    out.out_shape.assign(src_shape.begin(), src_shape.end());
    out.identity = true;
    return out;
  }
  std::vector<bool> reduced;
  if (auto why = normalized(p.axes, rank, reduced)) fail(ErrorCode::kInvalidArgument, *why);
  for (int d = 0; d < rank; ++d) {
    // No axes: every dim is reduced.
    const bool gone = p.axes.empty() || reduced[d];
    if (!gone)
      out.out_shape.push_back(src_shape[d]);
    else if (p.keepdims)
      out.out_shape.push_back(1);
    else
      out.restore.push_back(d);
  }
  return out;
}

}  // namespace geon::onnx
