// Plain copies (plain_copy.h). The transposing blocks are GCC vector extensions shuffled with
// __builtin_shufflevector, which -march=native turns into the machine's unpack and permute
// instructions; core stays free of intrinsics.
#include "core/engine/plain_copy.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <utility>

namespace geon {
namespace {

template <class T, int B>
struct Vec {
  typedef T type __attribute__((vector_size(B * sizeof(T))));
};

// Rows r[0..7] become columns: r[k][j] -> r[j][k].
template <class V>
inline void transpose(V (&r)[8]) {
  V t[8], u[8];
  for (int k = 0; k < 8; k += 2) {
    t[k] = __builtin_shufflevector(r[k], r[k + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[k + 1] = __builtin_shufflevector(r[k], r[k + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  for (int h = 0; h < 8; h += 4) {
    u[h] = __builtin_shufflevector(t[h], t[h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
    u[h + 1] = __builtin_shufflevector(t[h], t[h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    u[h + 2] = __builtin_shufflevector(t[h + 1], t[h + 3], 0, 1, 8, 9, 4, 5, 12, 13);
    u[h + 3] = __builtin_shufflevector(t[h + 1], t[h + 3], 2, 3, 10, 11, 6, 7, 14, 15);
  }
  for (int k = 0; k < 4; ++k) {
    r[k] = __builtin_shufflevector(u[k], u[k + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    r[k + 4] = __builtin_shufflevector(u[k], u[k + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

template <class V>
inline void transpose(V (&r)[4]) {
  const V t0 = __builtin_shufflevector(r[0], r[1], 0, 4, 2, 6);
  const V t1 = __builtin_shufflevector(r[0], r[1], 1, 5, 3, 7);
  const V t2 = __builtin_shufflevector(r[2], r[3], 0, 4, 2, 6);
  const V t3 = __builtin_shufflevector(r[2], r[3], 1, 5, 3, 7);
  r[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
  r[1] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
  r[2] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
  r[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

// p: dst (operand 0) has stride 1 along the inner dim a, src (operand 1) stride 1 along the
// dim b outside it. Strips of rows of b are copied a block of columns at a time: a strip is
// 128 bytes of src per column, so each src line fetched is used whole before the next.
template <class T, int B>
void copy_blocks(const LoopPlan& p, T* dst, const T* src) {
  using V = typename Vec<T, B>::type;
  const int a = p.rank - 1, b = p.rank - 2;
  const int64_t inner = p.length[a], rows = p.length[b];
  const int64_t src_col = p.stride[1][a], dst_row = p.stride[0][b];
  const int64_t strip = std::max<int64_t>(B, 128 / sizeof(T));
  const int64_t full_cols = inner / B * B;
  int64_t outer = 1;
  for (int d = 0; d < b; ++d) outer *= p.length[d];
  for (int64_t o = 0; o < outer; ++o) {
    const T* s0 = src + row_offset(p, 1, o * rows);
    T* d0 = dst + row_offset(p, 0, o * rows);
    for (int64_t r0 = 0; r0 < rows; r0 += strip) {
      const int64_t rn = std::min(strip, rows - r0), full_rows = rn / B * B;
      for (int64_t j = 0; j < full_cols; j += B)
        for (int64_t rb = r0; rb < r0 + full_rows; rb += B) {
          V v[B];
          for (int k = 0; k < B; ++k) std::memcpy(&v[k], s0 + rb + (j + k) * src_col, sizeof(V));
          transpose(v);
          for (int k = 0; k < B; ++k) std::memcpy(d0 + (rb + k) * dst_row + j, &v[k], sizeof(V));
        }
      // The strip's edges: its last rows whole, the other rows' last columns.
      for (int64_t r = r0; r < r0 + rn; ++r)
        for (int64_t j = r < r0 + full_rows ? full_cols : 0; j < inner; ++j)
          d0[r * dst_row + j] = s0[r + j * src_col];
    }
  }
}

template <class T, int B>
bool copy_if_large(const LoopPlan& p, void* dst, const void* src) {
  if (p.length[p.rank - 1] < B || p.length[p.rank - 2] < B) return false;
  copy_blocks<T, B>(p, static_cast<T*>(dst), static_cast<const T*>(src));
  return true;
}

}  // namespace

bool copy_transposed(const LoopPlan& plan, int elem_bytes, void* dst, const void* src) {
  if (plan.rank < 2 || plan.operands != 2) return false;
  LoopPlan p = plan;
  const int a = p.rank - 1, b = p.rank - 2;
  // The two dims may come in either order (the plan puts the one whose larger stride is
  // smaller innermost); a copy runs the same in both.
  if (p.stride[0][a] != 1 || p.stride[1][b] != 1) {
    if (p.stride[1][a] != 1 || p.stride[0][b] != 1) return false;
    std::swap(p.length[a], p.length[b]);
    for (int o = 0; o < 2; ++o) std::swap(p.stride[o][a], p.stride[o][b]);
  }
  // src along the inner dim: 0 is a broadcast (the fill path), 1 not a transpose.
  if (p.stride[1][a] == 0 || p.stride[1][a] == 1) return false;
  switch (elem_bytes) {
    case 1:
      return copy_if_large<uint8_t, 8>(p, dst, src);
    case 2:
      return copy_if_large<uint16_t, 8>(p, dst, src);
    case 4:
      return copy_if_large<uint32_t, 8>(p, dst, src);
    case 8:
      return copy_if_large<uint64_t, 4>(p, dst, src);
    default:
      return false;
  }
}

bool copy_rows(const LoopPlan& p, int elem_bytes, void* dst, const void* src) {
  if (p.rank < 1 || p.operands != 2 || p.stride[0][p.rank - 1] != 1 || p.stride[1][p.rank - 1] != 1)
    return false;
  const int64_t rows = loop_rows(p);
  const size_t row_bytes = static_cast<size_t>(loop_inner(p) * elem_bytes);
  auto* d = static_cast<std::byte*>(dst);
  const auto* s = static_cast<const std::byte*>(src);
  RowCursor cursor(p);
  for (int64_t r = 0; r < rows; ++r, cursor.next())  // memmove: the same view may be passed
    std::memmove(d + cursor.offset[0] * elem_bytes, s + cursor.offset[1] * elem_bytes, row_bytes);
  return true;
}

}  // namespace geon
