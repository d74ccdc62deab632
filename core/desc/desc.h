// A tensor description: dtype, logical shape, strides (in elements, any sign, zero = broadcast),
// offset (in elements from the storage base) and padded sizes for aligned or blocked layouts.
// It is a small value; every view (permute, slice, broadcast, ...) is a pure function from one
// description to another and never touches storage. See desc/views.h.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/dtype/dtype.h"

namespace geon {

using Dims = std::vector<int64_t>;

struct TensorDesc {
  DType dtype = DType::kFloat;
  Dims shape;    // logical lengths, one per dim; rank 0 = a scalar
  Dims strides;  // elements between neighbours along each dim
  int64_t offset = 0;
  // Allocated lengths, each >= shape (alignment padding, oneDNN blocked channels), as given to
  // row_major/col_major; empty when there is no padding. Only construction uses them to lay out
  // strides; views keep them as they are (in construction order and rank, not the view's) so
  // that the allocation a view came from stays known.
  Dims padded;

  int rank() const { return static_cast<int>(shape.size()); }
  friend bool operator==(const TensorDesc&, const TensorDesc&) = default;
};

// Row-major (C order, last dim fastest): sizes (5,3,2) give strides (6,2,1).
// With padded lengths the strides follow the padded sizes: (5,3,2) padded to (5,4,2) → (8,2,1).
// Padding equal to the shape is stored as empty. A zero length counts as 1 when laying out
// strides, so no stride of an empty tensor reads as broadcast. Throws on negative lengths, a
// padded of another rank or below the shape, or more than int64 elements.
TensorDesc row_major(DType dtype, std::span<const int64_t> shape,
                     std::span<const int64_t> padded = {});
// Column-major (Fortran order, first dim fastest): sizes (5,3,2) give strides (1,5,15).
TensorDesc col_major(DType dtype, std::span<const int64_t> shape,
                     std::span<const int64_t> padded = {});

// Product of the shape (1 for rank 0). Throws geon::Error on overflow or negative lengths.
int64_t element_count(std::span<const int64_t> shape);
int64_t element_count(const TensorDesc& d);

// Dense row-major with no gaps, offset anywhere. Strides of length-1 dims are ignored; empty
// tensors are contiguous.
bool is_contiguous(const TensorDesc& d);

// Elements (relative to the storage base) a view can touch: [first, last]; empty views
// touch nothing and report first > last ({0, -1}, and {0, 0} in bytes). Byte form accounts for
// packed sub-byte dtypes: it covers every byte holding a bit of a reachable element. Strings
// have no byte width and byte_span throws kNotSupported for them. Both throw kOutOfRange when a
// position does not fit in int64.
struct ElementSpan {
  int64_t first = 0, last = -1;
  bool empty() const { return first > last; }
};
ElementSpan element_span(const TensorDesc& d);
struct ByteSpan {
  int64_t begin = 0, end = 0;  // [begin, end) in bytes from the storage base
};
ByteSpan byte_span(const TensorDesc& d);

// True unless the two views provably share no element of one storage (used for in-place
// safety). Empty views share nothing.
// Same element width (any two dtypes of equal bits): exact. It decides whether
// offset_a + strides_a·i == offset_b + strides_b·j has a solution with i and j in bounds; for
// equal strides that is whether the offset difference is reachable as strides times index
// differences, so the even and odd elements of a stride-2 dim are disjoint. The search prunes by
// ranges and gcds and solves the last two distinct strides in closed form (extended Euclid), so
// it can only answer true without proof when three or more distinct |strides| interleave over
// long ranges and 2^12 candidates (about a millisecond) do not settle it. Packed elements that
// share a byte but no element count as disjoint (byte-level write races are the writer's
// concern). Different widths: true whenever the byte spans intersect.
bool may_overlap(const TensorDesc& a, const TensorDesc& b);

std::string to_string(const TensorDesc& d);

}  // namespace geon
