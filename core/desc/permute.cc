// Reordering dims: the same elements seen with their axes in another order. Only shape and
// strides move (seed 000: permuting stride, shape and index together keeps the linear index).
#include <string>
#include <vector>

#include "core/desc/check.h"
#include "core/desc/views.h"

namespace geon {
namespace {

// Shared with transpose, so that a malformed desc is reported under the name the caller used.
TensorDesc permute_in(const char* fn, const TensorDesc& d, std::span<const int64_t> perm) {
  desc_detail::check_desc(d, fn);
  const int rank = d.rank();
  const auto bad = [&](const std::string& why) {
    desc_detail::invalid(fn, "perm " + desc_detail::dims_str(perm) +
                                 " is not a permutation of 0.." + std::to_string(rank - 1) + " (" +
                                 why + ")");
  };
  if (static_cast<int64_t>(perm.size()) != rank)
    bad("it has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(rank));
  std::vector<bool> seen(rank, false);
  TensorDesc out = d;
  for (int i = 0; i < rank; ++i) {
    const int64_t p = perm[i];
    if (p < 0 || p >= rank) bad("entry " + std::to_string(p) + " is out of range");
    if (seen[p]) bad("entry " + std::to_string(p) + " repeats");
    seen[p] = true;
    out.shape[i] = d.shape[p];
    out.strides[i] = d.strides[p];
  }
  return out;
}

}  // namespace

TensorDesc permute(const TensorDesc& d, std::span<const int64_t> perm) {
  return permute_in("permute", d, perm);
}

TensorDesc transpose(const TensorDesc& d) {
  std::vector<int64_t> perm(d.shape.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(perm.size() - 1 - i);
  return permute_in("transpose", d, perm);
}

}  // namespace geon
