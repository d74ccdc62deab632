// What the indexing kernels share: reading and checking index tensors, storage positions of a
// view's elements, and one copy primitive (element r*C + j of a dense output takes the source
// element at base[r] + inner[j]) that every gather of the family reduces to. Positions are in
// elements from the source's data pointer, so any strided view (transposed, sliced, broadcast)
// is read in place, without staging.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/cpu/common.h"

namespace geon::cpu {

// A 16-byte element (complex128, or a string's handle: core/strings/strings.h) as one word.
struct Word16 {
  uint64_t lo, hi;
};

// A reason unless the indexing kernels can move elements of dtype t: every numeric dtype
// (bool, complex, float8 and packed ones included) and strings, whose 16-byte handles move
// like any element (the bytes they point at live as long as the run).
Reason movable_dtype_reason(DType t, std::string_view what);
// A reason unless input i is given and holds int32 or int64 indices.
Reason index_dtype_reason(const Graph& g, const Node& n, int i, std::string_view what);

// Every element of an integer tensor of any rank and layout, as int64 in row-major order.
std::vector<int64_t> read_indices(const TensorRef& t, std::string_view what);

// v, wrapped once when negative, when it lies in [-len, len); otherwise a kOutOfRange error
// naming the index, where it was found and the length it had to fit.
int64_t checked_index(int64_t v, int64_t len, std::string_view where);

// Storage positions (elements) of every element of `shape` seen with `strides`, row-major.
std::vector<int64_t> positions_of(std::span<const int64_t> shape, std::span<const int64_t> strides);

// "(2, 3)" for error messages.
std::string dims_text(std::span<const int64_t> d);
// GatherElements' and ScatterElements' shape rule: data of rank >= 1, indices of the same rank
// and no longer than data off `axis_attr` (which must be in [-r, r)). The axis, normalised.
int element_axis(const Dims& data, const Dims& indices, int64_t axis_attr);

// out's element r * inner.size() + j (row-major over out's shape) = src's element at storage
// position base[r] + inner[j]. src and out share a dtype (strings too); out may be any layout and
// must hold base.size() * inner.size() elements. Parallel over rows for whole-byte dtypes.
void gather_positions(const TensorRef& src, std::span<const int64_t> base,
                      std::span<const int64_t> inner, const TensorRef& out);

}  // namespace geon::cpu
