// Removing and inserting length-1 dims (ONNX Squeeze and Unsqueeze). A length-1 dim never moves
// the index, so neither changes which elements are seen; only the rank changes.
#include <optional>
#include <string>
#include <vector>

#include "core/desc/check.h"
#include "core/desc/views.h"

namespace geon {
namespace {

using desc_detail::dims_str;

// The axes as flags over `rank` dims, each given at most once.
std::vector<bool> axis_flags(const char* fn, std::span<const int64_t> axes, int rank) {
  std::vector<bool> flags(rank, false);
  for (int64_t a : axes) {
    const int ax = desc_detail::axis_in(a, rank, fn, "axis");
    if (flags[ax])
      desc_detail::invalid(
          fn, "axes " + dims_str(axes) + " name axis " + std::to_string(ax) + " more than once");
    flags[ax] = true;
  }
  return flags;
}

}  // namespace

TensorDesc squeeze(const TensorDesc& d, std::span<const int64_t> axes) {
  desc_detail::check_desc(d, "squeeze");
  std::vector<bool> drop(d.rank(), false);
  if (axes.empty()) {
    for (int i = 0; i < d.rank(); ++i) drop[i] = d.shape[i] == 1;
  } else {
    drop = axis_flags("squeeze", axes, d.rank());
    for (int i = 0; i < d.rank(); ++i)
      if (drop[i] && d.shape[i] != 1)
        desc_detail::invalid("squeeze", "axis " + std::to_string(i) + " has length " +
                                            std::to_string(d.shape[i]) + ", not 1, in shape " +
                                            dims_str(d.shape));
  }
  TensorDesc out = d;
  out.shape.clear();
  out.strides.clear();
  for (int i = 0; i < d.rank(); ++i) {
    if (drop[i]) continue;
    out.shape.push_back(d.shape[i]);
    out.strides.push_back(d.strides[i]);
  }
  return out;
}

TensorDesc unsqueeze(const TensorDesc& d, std::span<const int64_t> axes) {
  desc_detail::check_desc(d, "unsqueeze");
  const int rank = d.rank() + static_cast<int>(axes.size());
  const std::vector<bool> insert = axis_flags("unsqueeze", axes, rank);
  TensorDesc out = d;
  out.shape.assign(rank, 1);
  out.strides.assign(rank, 1);
  for (int p = 0, i = 0; p < rank; ++p) {
    if (insert[p]) continue;
    out.shape[p] = d.shape[i];
    out.strides[p] = d.strides[i];
    ++i;
  }
  // From the end, so each inserted dim sees the final stride of the dim after it.
  for (int p = rank; p-- > 0;)
    if (insert[p])
      out.strides[p] = p + 1 < rank
                           ? desc_detail::unit_dim_stride(out.shape[p + 1], out.strides[p + 1])
                           : desc_detail::unit_dim_stride(std::nullopt, 0);
  return out;
}

}  // namespace geon
