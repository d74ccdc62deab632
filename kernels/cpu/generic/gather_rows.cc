// gather_rows (gather_rows.h): the last axis is cut once into segments (a run of consecutive
// source elements: one memcpy; single elements: a gather; fill positions), then every row adds
// its base offset from the other axes and replays the segments, or copies the previous output
// row when both read the same source row. Rows are cut across the pool by parallel_rows (ops.h).
#include "kernels/cpu/generic/gather_rows.h"

#include <algorithm>
#include <cstring>

#include "core/base/error.h"
#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {
namespace {

struct Segment {
  enum Kind { kCopy, kGather, kFill } kind;
  int64_t begin, len;
};

std::vector<Segment> segments_of(const AxisMap& m) {
  std::vector<Segment> out;
  const auto cols = static_cast<int64_t>(m.offset.size());
  auto filled = [&](int64_t j) { return !m.fill.empty() && m.fill[j]; };
  for (int64_t j = 0; j < cols;) {
    int64_t e = j + 1;
    Segment::Kind kind = Segment::kFill;
    if (filled(j)) {
      while (e < cols && filled(e)) ++e;
    } else {
      while (e < cols && !filled(e) && m.offset[e] == m.offset[e - 1] + 1) ++e;
      // Short runs are cheaper element by element than through memcpy.
      kind = e - j >= 8 ? Segment::kCopy : Segment::kGather;
    }
    if (!out.empty() && out.back().kind == kind && kind != Segment::kCopy)
      out.back().len += e - j;
    else
      out.push_back({kind, j, e - j});
    j = e;
  }
  return out;
}

template <typename U>
void gather_typed(const U* in, U* out, const Dims& shape, const std::vector<AxisMap>& maps,
                  U value) {
  const int r = static_cast<int>(shape.size());
  const int64_t cols = shape[r - 1];
  int64_t rows = 1;
  for (int k = 0; k + 1 < r; ++k) rows *= shape[k];
  const std::vector<int64_t>& col = maps[r - 1].offset;
  const std::vector<Segment> segs = segments_of(maps[r - 1]);
  parallel_rows(rows, cols, [&](int64_t lo, int64_t hi) {
    std::vector<int64_t> coord(static_cast<size_t>(r), 0);
    for (int64_t i = lo, k = r - 2; k >= 0; --k) {
      coord[k] = i % shape[k];
      i /= shape[k];
    }
    int64_t prev_base = 0;
    bool prev_fill = false;
    for (int64_t row = lo; row < hi; ++row) {
      int64_t base = 0;
      bool row_fill = false;
      for (int k = 0; k + 1 < r; ++k) {
        base += maps[k].offset[coord[k]];
        row_fill = row_fill || (!maps[k].fill.empty() && maps[k].fill[coord[k]]);
      }
      U* o = out + row * cols;
      if (row > lo && row_fill == prev_fill && (row_fill || base == prev_base)) {
        std::memcpy(o, o - cols, static_cast<size_t>(cols) * sizeof(U));
      } else if (row_fill) {
        std::fill(o, o + cols, value);
      } else {
        const U* b = in + base;
        for (const Segment& s : segs) {
          U* d = o + s.begin;
          if (s.kind == Segment::kCopy) {
            std::memcpy(d, b + col[s.begin], static_cast<size_t>(s.len) * sizeof(U));
          } else if (s.kind == Segment::kFill) {
            std::fill(d, d + s.len, value);
          } else {
            const int64_t* c = &col[s.begin];
            for (int64_t j = 0; j < s.len; ++j) d[j] = b[c[j]];
          }
        }
      }
      prev_base = base;
      prev_fill = row_fill;
      for (int k = r - 2; k >= 0 && ++coord[k] == shape[k]; --k) coord[k] = 0;
    }
  });
}

template <typename U>
void gather_as(const TensorRef& src, std::byte* dst, const Dims& shape,
               const std::vector<AxisMap>& maps, const void* fill) {
  U value{};
  if (fill) std::memcpy(&value, fill, sizeof(U));
  gather_typed<U>(static_cast<const U*>(src.data) + src.desc.offset, reinterpret_cast<U*>(dst),
                  shape, maps, value);
}

}  // namespace

bool gather_width_ok(DType t) {
  if (!is_numeric(t) || is_packed(t) || is_complex(t)) return false;
  const int64_t w = dtype_bytes_for(t, 1);
  return w == 1 || w == 2 || w == 4 || w == 8;
}

void gather_rows(const TensorRef& src, const TensorRef& out, const std::vector<AxisMap>& maps,
                 const void* fill) {
  const DType t = out.desc.dtype;
  require(gather_width_ok(t) && src.desc.dtype == t, "gather_rows: unsupported dtype");
  const Dims& shape = out.desc.shape;
  require(!shape.empty() && maps.size() == shape.size(), "gather_rows: maps do not match");
  if (element_count(shape) == 0) return;
  // Gathered straight into a dense output, else into a dense temporary assigned after.
  std::vector<std::byte> tmp;
  std::byte* dst = static_cast<std::byte*>(out.data) + dtype_bytes_for(t, out.desc.offset);
  if (!is_contiguous(out.desc)) {
    tmp.resize(dtype_bytes_for(t, element_count(shape)));
    dst = tmp.data();
  }
  switch (dtype_bytes_for(t, 1)) {
    case 1:
      gather_as<uint8_t>(src, dst, shape, maps, fill);
      break;
    case 2:
      gather_as<uint16_t>(src, dst, shape, maps, fill);
      break;
    case 4:
      gather_as<uint32_t>(src, dst, shape, maps, fill);
      break;
    default:
      gather_as<uint64_t>(src, dst, shape, maps, fill);
      break;
  }
  if (!tmp.empty()) assign(dst_of(out), ConstOperand(row_major(t, shape), tmp.data()));
}

}  // namespace geon::cpu
