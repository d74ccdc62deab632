// Seeded random strided views for the engine's differential tests: shapes that broadcast
// against a loop shape, strides permuted, stepped, negated or zeroed, over byte storage filled
// with random values of the view's dtype.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "core/desc/desc.h"
#include "core/dtype/scalar.h"

namespace geon::testing_views {

struct Buffer {
  TensorDesc desc;
  std::vector<std::byte> bytes;
  void* data() { return bytes.data(); }
};

// A random value of dtype t in a range that makes every op defined but still exercises signs,
// zeros and (for floats) fractions.
inline Scalar random_value(std::mt19937_64& rng, DType t) {
  Scalar s;
  if (t == DType::kBool) {
    s.kind = Scalar::Kind::kUnsigned;
    s.u = rng() & 1;
  } else if (is_floating(t)) {
    s.kind = Scalar::Kind::kFloat;
    s.re = std::uniform_real_distribution<double>(-4, 4)(rng);
    if (rng() % 16 == 0) s.re = 0;
  } else if (is_signed(t)) {
    s.kind = Scalar::Kind::kSigned;
    s.i = static_cast<int64_t>(rng() % 15) - 7;
  } else {
    s.kind = Scalar::Kind::kUnsigned;
    s.u = rng() % 12;
  }
  return s;
}

// A view of `shape` over fresh storage with a random layout: dims permuted in memory, some
// stepped by 2 or 3, some reversed (negative stride), plus a random start offset.
inline Buffer random_view(std::mt19937_64& rng, DType t, const Dims& shape) {
  const int r = static_cast<int>(shape.size());
  std::vector<int> order(r);
  for (int i = 0; i < r; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  Buffer b;
  b.desc.dtype = t;
  b.desc.shape = shape;
  b.desc.strides.assign(r, 0);
  int64_t stride = 1 + static_cast<int64_t>(rng() % 2);
  for (int k = r - 1; k >= 0; --k) {
    const int d = order[k];
    b.desc.strides[d] = stride;
    stride *= std::max<int64_t>(shape[d], 1) * (rng() % 4 == 0 ? 2 : 1);
  }
  const int64_t pad = static_cast<int64_t>(rng() % 5);
  int64_t offset = pad;
  for (int d = 0; d < r; ++d)
    if (shape[d] > 1 && rng() % 4 == 0) {
      offset += (shape[d] - 1) * b.desc.strides[d];
      b.desc.strides[d] = -b.desc.strides[d];
    }
  b.desc.offset = offset;
  const int64_t elements = stride + pad + 8;
  b.bytes.resize(static_cast<size_t>(dtype_bytes_for(t, elements)) + 16);
  for (int64_t i = 0; i < elements; ++i) store_scalar(t, b.data(), i, random_value(rng, t));
  return b;
}

// A random shape that broadcasts to `loop`: each dim kept, set to 1, or dropped from the left.
inline Dims broadcastable_shape(std::mt19937_64& rng, const Dims& loop) {
  Dims s = loop;
  for (auto& len : s)
    if (rng() % 4 == 0) len = 1;
  const size_t drop = rng() % (s.size() + 1) / 2;
  s.erase(s.begin(), s.begin() + drop);
  return s;
}

inline Dims random_shape(std::mt19937_64& rng, int max_rank, int64_t max_len) {
  Dims s(rng() % (max_rank + 1));
  for (auto& len : s) len = 1 + static_cast<int64_t>(rng() % max_len);
  return s;
}

// Element offset of loop index `idx` in view d, indexing each dim modulo its own length
// (the generalized broadcasting rule) with d 1-extended on the left.
inline int64_t reference_offset(const TensorDesc& d, const Dims& idx) {
  int64_t off = d.offset;
  const int lead = static_cast<int>(idx.size()) - d.rank();
  for (int i = 0; i < d.rank(); ++i) off += (idx[lead + i] % d.shape[i]) * d.strides[i];
  return off;
}

// Calls f(idx) for every multi-index of shape, row-major.
template <class F>
void for_each_index(const Dims& shape, F&& f) {
  for (int64_t len : shape)
    if (len == 0) return;
  Dims idx(shape.size(), 0);
  for (;;) {
    f(idx);
    int d = static_cast<int>(shape.size()) - 1;
    while (d >= 0 && ++idx[d] == shape[d]) idx[d--] = 0;
    if (d < 0) return;
  }
}

}  // namespace geon::testing_views
