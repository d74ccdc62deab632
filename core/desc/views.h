// Views: pure functions from a description to a new description over the same storage.
// None of them copies or allocates storage. Functions that cannot express the result as one
// strided view (reshape of a non-mergeable layout) say so instead of copying.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "core/desc/desc.h"

namespace geon {

// Dims reordered: out.shape[i] = in.shape[perm[i]]. perm must be a permutation of 0..rank-1.
TensorDesc permute(const TensorDesc& d, std::span<const int64_t> perm);
// Reverses the dim order (matrix transpose for rank 2).
TensorDesc transpose(const TensorDesc& d);

// ONNX Slice semantics on one dim: negative start/stop count from the end (len added once);
// then for step > 0 start and stop are clamped to [0, len]; for step < 0 start to [0, len-1]
// and stop to [-1, len-1] (as the ONNX spec and onnxruntime do; numpy instead gives an empty
// result when start < -len with a negative step). step != 0. Negative steps give negative
// strides. Result length = max(0, ceil((stop - start) / step)); an empty result keeps the offset.
TensorDesc slice(const TensorDesc& d, int axis, int64_t start, int64_t stop, int64_t step = 1);
// Plain narrowing without clamping: [start, start+length) along axis, must be in bounds
// (length >= 0; axis may be negative, as everywhere here).
TensorDesc narrow(const TensorDesc& d, int axis, int64_t start, int64_t length);

// Numpy broadcasting to `shape` (right-aligned; a length-1 or missing dim becomes stride 0).
TensorDesc broadcast_to(const TensorDesc& d, std::span<const int64_t> shape);
// The broadcast shape of two shapes, or an Error naming both shapes when they do not match.
Dims broadcast_shapes(std::span<const int64_t> a, std::span<const int64_t> b);

// A view with the new shape and the same row-major element order, or nullopt with `why` set
// when the strides do not allow one (the caller must then copy). Lengths must be >= 0 and the
// element counts equal (else an Error; ONNX's 0 and -1 are resolved by the caller). A view is
// found whenever one exists, for any strides (broadcast and negative ones included): length-1
// dims are ignored, and each minimal group of old dims whose product matches a group of new
// dims must form one run in memory. Empty tensors always reshape, with dense strides.
struct ReshapeResult {
  std::optional<TensorDesc> view;
  std::string why;
};
ReshapeResult reshape(const TensorDesc& d, std::span<const int64_t> shape);
// ONNX Flatten: dims [0, axis) and [axis, rank) each merged into one; axis in [-rank, rank].
ReshapeResult flatten(const TensorDesc& d, int axis);

// Remove length-1 dims (all of them when axes is empty); axes may be negative, must name
// length-1 dims, each at most once.
TensorDesc squeeze(const TensorDesc& d, std::span<const int64_t> axes = {});
// Insert length-1 dims at the given positions of the output (ONNX Unsqueeze semantics: each
// axis in [-out_rank, out_rank-1], no repeats, any order). Inserted dims get the stride a dense
// layout would give them (next stride * next length, or 1), never 0.
TensorDesc unsqueeze(const TensorDesc& d, std::span<const int64_t> axes);

// The sub-tensor at `index` along axis, that dim removed; index in [-len, len-1], negative
// counting from the end.
TensorDesc select(const TensorDesc& d, int axis, int64_t index);
// Rank-1 and rank-2 conveniences over narrow.
TensorDesc sub_vector(const TensorDesc& d, int64_t start, int64_t length);
TensorDesc sub_matrix(const TensorDesc& d, int64_t row, int64_t col, int64_t rows, int64_t cols);

// Normalises a possibly negative axis against rank, throwing an Error when out of range.
int normalize_axis(int64_t axis, int rank);

}  // namespace geon
