// For the ordering kernels' tests: a tensor's lines along one axis as row-major flat indices
// (the naive references walk them), and the dtypes every test runs over.
#pragma once

#include <cstdint>
#include <vector>

#include "core/desc/desc.h"

namespace geon::cpu::testing {

// Line (o, i) along `axis` of a row-major `shape`: flat index of element k is line.at(k).
struct Line {
  int64_t base = 0, step = 1, length = 0;
  int64_t at(int64_t k) const { return base + k * step; }
};

// Every line along `axis`, outer-major; line j also is output position j of a reduction
// over `axis` (keepdims or not).
inline std::vector<Line> lines_along(const Dims& shape, int axis) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t n = shape[axis];
  std::vector<Line> out;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) out.push_back({o * n * inner + i, inner, n});
  return out;
}

// Every real number type the ordering kernels take (the spec's lists are subsets of these).
inline const std::vector<DType>& ordered_dtypes() {
  static const std::vector<DType> all = {DType::kFloat,    DType::kDouble, DType::kFloat16,
                                         DType::kBFloat16, DType::kInt8,   DType::kInt16,
                                         DType::kInt32,    DType::kInt64,  DType::kUInt8,
                                         DType::kUInt16,   DType::kUInt32, DType::kUInt64};
  return all;
}

}  // namespace geon::cpu::testing
