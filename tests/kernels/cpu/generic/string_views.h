// String tensors for the movement kernels' tests (layout, Pad, Resize): distinct words of varied
// lengths (the empty string among them) and N-D views of them whose storage is permuted, so
// that kernels meet non-dense strides. Builds on the text family's string Hosts.
#pragma once

#include <string>
#include <vector>

#include "tests/kernels/cpu/generic/text/text_harness.h"

namespace geon::cpu::testing {

// n distinct strings: "a0", "bb1", "ccc2", "" (at 3), "bb4"... of 0 to 3 letters and a number.
inline std::vector<std::string> words(int64_t n) {
  std::vector<std::string> v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(i == 3
                    ? std::string()
                    : std::string(1 + i % 3, static_cast<char>('a' + i % 26)) + std::to_string(i));
  return v;
}

// The row-major strings v of `shape`, stored laid out in `perm` order and seen through the
// inverse permutation: the same logical tensor with non-dense strides.
inline Host permuted_strings(const Dims& shape, const std::vector<std::string>& v,
                             const std::vector<int64_t>& perm) {
  Dims pshape(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) pshape[k] = shape[perm[k]];
  const TensorDesc logical = permute(row_major(DType::kString, shape), perm);
  std::vector<std::string> stored(v.size());
  for (int64_t i = 0; i < element_count(pshape); ++i) stored[i] = v[storage_index(logical, i)];
  Host h = strings(pshape, stored);
  std::vector<int64_t> inv(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) inv[perm[k]] = static_cast<int64_t>(k);
  h.desc = permute(h.desc, inv);
  return h;
}

// Row-major position of a multi-index in `shape`.
inline int64_t flat_index(const Dims& shape, const std::vector<int64_t>& idx) {
  int64_t f = 0;
  for (size_t k = 0; k < shape.size(); ++k) f = f * shape[k] + idx[k];
  return f;
}

// The multi-index of row-major position f in `shape`.
inline std::vector<int64_t> unflatten(const Dims& shape, int64_t f) {
  std::vector<int64_t> idx(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    idx[k] = f % shape[k];
    f /= shape[k];
  }
  return idx;
}

}  // namespace geon::cpu::testing
