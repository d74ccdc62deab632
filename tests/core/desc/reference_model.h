// The replay test's reference model: a tensor as the storage position of each element in
// row-major order of its shape, with the movement ops written from their definitions (index
// mapping, ONNX Slice text, dense layout formula) rather than from strides.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/desc/desc.h"

namespace geon {
namespace {

struct Model {
  Dims shape;
  std::vector<int64_t> pos;  // storage position per element, row-major over shape
};

inline int64_t count_of(const Dims& shape) {
  int64_t n = 1;
  for (int64_t len : shape) n *= len;
  return n;
}

// Calls f(index) for every index of `shape` in row-major order.
inline void for_each_index(const Dims& shape, const std::function<void(const Dims&)>& f) {
  if (count_of(shape) == 0) return;
  Dims index(shape.size(), 0);
  while (true) {
    f(index);
    int i = static_cast<int>(shape.size()) - 1;
    for (; i >= 0; --i) {
      if (++index[i] < shape[i]) break;
      index[i] = 0;
    }
    if (i < 0) return;
  }
}

inline int64_t flat_of(const Dims& shape, const Dims& index) {
  int64_t f = 0;
  for (size_t i = 0; i < shape.size(); ++i) f = f * shape[i] + index[i];
  return f;
}

// A model whose element at new index i is the old model's element at old_index(i).
inline Model remap(const Model& m, const Dims& shape,
                   const std::function<Dims(const Dims&)>& old_index) {
  Model out{shape, {}};
  for_each_index(
      shape, [&](const Dims& i) { out.pos.push_back(m.pos.at(flat_of(m.shape, old_index(i)))); });
  return out;
}

// The layout by its definition (seed 000): index · strides of the allocated sizes.
inline Model dense_model(const Dims& shape, const Dims& sizes, bool row) {
  Model m{shape, {}};
  for_each_index(shape, [&](const Dims& i) {
    int64_t p = 0, scale = 1;
    for (size_t k = 0; k < shape.size(); ++k) {
      const size_t d = row ? shape.size() - 1 - k : k;
      p += i[d] * scale;
      scale *= std::max<int64_t>(sizes[d], 1);
    }
    m.pos.push_back(p);
  });
  return m;
}

// ONNX Slice by its text: adjust, clamp, then walk.
inline std::vector<int64_t> onnx_slice_indices(int64_t len, int64_t start, int64_t stop,
                                               int64_t step) {
  if (start < 0) start += len;
  if (stop < 0) stop += len;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, len);
    stop = std::clamp<int64_t>(stop, 0, len);
  } else {
    if (len == 0) return {};
    start = std::clamp<int64_t>(start, 0, len - 1);
    stop = std::clamp<int64_t>(stop, -1, len - 1);
  }
  std::vector<int64_t> out;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    out.push_back(i);
    if (step > 0 ? i > INT64_MAX - step : i < INT64_MIN - step) break;  // the next would wrap
  }
  return out;
}

// Does any (offset, strides) lay out these positions over this shape?
inline bool strided_layout_exists(const Dims& shape, const std::vector<int64_t>& pos) {
  if (pos.empty()) return true;
  Dims strides(shape.size(), 0);
  for (size_t q = 0; q < shape.size(); ++q) {
    if (shape[q] < 2) continue;
    Dims unit(shape.size(), 0);
    unit[q] = 1;
    strides[q] = pos[flat_of(shape, unit)] - pos[0];
  }
  bool ok = true;
  size_t f = 0;
  for_each_index(shape, [&](const Dims& i) {
    int64_t p = pos[0];
    for (size_t q = 0; q < shape.size(); ++q) p += i[q] * strides[q];
    ok = ok && p == pos[f++];
  });
  return ok;
}

}  // namespace
}  // namespace geon
