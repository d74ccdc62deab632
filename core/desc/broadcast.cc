// Numpy broadcasting as a view: a dim of length 1 (or a missing leading dim) repeats by giving
// it stride 0, so every index along it reads the same element and nothing is copied.
#include <algorithm>
#include <string>

#include "core/desc/check.h"
#include "core/desc/views.h"

namespace geon {

using desc_detail::dims_str;

TensorDesc broadcast_to(const TensorDesc& d, std::span<const int64_t> shape) {
  desc_detail::check_desc(d, "broadcast_to");
  desc_detail::count_elements(shape, "broadcast_to", "shape");
  const int rank = static_cast<int>(shape.size());
  if (rank < d.rank())
    desc_detail::invalid(
        "broadcast_to",
        "shape " + dims_str(shape) + " has fewer dims than desc shape " + dims_str(d.shape));
  TensorDesc out = d;
  out.shape.assign(shape.begin(), shape.end());
  out.strides.assign(rank, 0);
  const int lead = rank - d.rank();
  for (int i = lead; i < rank; ++i) {
    const int64_t from = d.shape[i - lead];
    if (from == shape[i])
      out.strides[i] = d.strides[i - lead];
    else if (from != 1)
      desc_detail::invalid("broadcast_to", "cannot broadcast desc shape " + dims_str(d.shape) +
                                               " to shape " + dims_str(shape) + ": length " +
                                               std::to_string(from) + " at dim " +
                                               std::to_string(i - lead) + " is neither 1 nor " +
                                               std::to_string(shape[i]));
  }
  return out;
}

Dims broadcast_shapes(std::span<const int64_t> a, std::span<const int64_t> b) {
  desc_detail::count_elements(a, "broadcast_shapes", "shape a");
  desc_detail::count_elements(b, "broadcast_shapes", "shape b");
  const size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  // Right-aligned: a missing leading dim acts as length 1.
  for (size_t i = 0; i < rank; ++i) {
    const size_t from_end = rank - 1 - i;
    const int64_t x = from_end < a.size() ? a[a.size() - 1 - from_end] : 1;
    const int64_t y = from_end < b.size() ? b[b.size() - 1 - from_end] : 1;
    if (x != y && x != 1 && y != 1)
      desc_detail::invalid("broadcast_shapes", "shapes " + dims_str(a) + " and " + dims_str(b) +
                                                   " do not broadcast: " + std::to_string(x) +
                                                   " vs " + std::to_string(y) + " at output dim " +
                                                   std::to_string(i));
    out[i] = x == 1 ? y : x;
  }
  desc_detail::count_elements(out, "broadcast_shapes", "result shape");
  return out;
}

}  // namespace geon
