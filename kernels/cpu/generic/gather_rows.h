// An output whose every element copies one element of a strided source or a fill value, picked
// axis by axis: nearest Resize, the non-constant Pad modes (and the constant one) and Tile are
// all this, with a different source index per output position along each axis. Rows (every
// output dim but the last) are filled from one plan of the last axis: runs of consecutive source
// elements are copied whole, a row that reads what the row before it read is copied from it.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cpu/common.h"

namespace geon::cpu {

// One output axis: position y reads the source element `offset[y]` (in elements, summed over
// the axes) away from the view's first element, or the fill value where fill[y] is set (fill
// empty: never).
struct AxisMap {
  std::vector<int64_t> offset;
  std::vector<uint8_t> fill;
};

// Whether gather_rows copies elements of dtype t (whole bytes: 1, 2, 4 or 8 of them).
bool gather_width_ok(DType t);

// Writes `out` (any layout; rank >= 1, maps.size() == rank, maps[k] sized out.shape[k]) from
// src through the maps; `fill` points at one element of src's dtype (may be null when no map
// has fill positions). Parallel over rows on the engine's pool.
void gather_rows(const TensorRef& src, const TensorRef& out, const std::vector<AxisMap>& maps,
                 const void* fill);

}  // namespace geon::cpu
