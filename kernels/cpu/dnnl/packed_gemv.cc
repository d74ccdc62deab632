// packed_gemv: each panel's columns accumulate in registers for all rows at once (width and
// row count compile-time constants for the widths oneDNN picks), over K, while the panel
// streams from memory once.
#include "kernels/cpu/dnnl/packed_gemv.h"

#include <algorithm>
#include <cstring>

#include "core/base/error.h"
#include "kernels/cpu/dnnl/runtime.h"

namespace geon::cpu {
namespace {

// Products below this many multiply-adds a part are not worth another thread.
constexpr double kMinMacsPerPart = 1 << 16;

// 16 floats as one value: GCC keeps arrays of these in registers where it spills plain float
// arrays (one zmm register with AVX-512, two ymm with AVX2).
using Vec16 = float __attribute__((vector_size(64)));

// By reference: a 64-byte vector returned by value changes the ABI without AVX-512 (GCC's
// -Wpsabi, an error under -Werror on AVX2 builds).
void load16(Vec16& v, const float* p) { std::memcpy(&v, p, sizeof v); }

// R rows of A (`lda` apart) times one panel W columns wide: R x W sums into acc (W apart).
// The rows share each load of the panel; one row splits K into even and odd halves summed
// apart, so there are enough independent FMA chains to hide their latency.
template <int W, int R>
void panel_rows(const float* panel, const float* a, int64_t lda, int64_t k, float* acc) {
  constexpr int kChains = R == 1 ? 2 : 1, kVecs = W / 16;
  static_assert(W % 16 == 0);
  Vec16 sum[kChains][R][kVecs] = {};
  int64_t i = 0;
  for (; i + kChains <= k; i += kChains) {
#pragma GCC unroll 2
    for (int c = 0; c < kChains; ++c) {
      Vec16 w[kVecs];
#pragma GCC unroll 4
      for (int q = 0; q < kVecs; ++q) load16(w[q], panel + (i + c) * W + 16 * q);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const float x = a[r * lda + i + c];
#pragma GCC unroll 4
        for (int q = 0; q < kVecs; ++q) sum[c][r][q] += x * w[q];
      }
    }
  }
  for (; i < k; ++i)
    for (int r = 0; r < R; ++r)
      for (int q = 0; q < kVecs; ++q) {
        Vec16 w;
        load16(w, panel + i * W + 16 * q);
        sum[0][r][q] += a[r * lda + i] * w;
      }
  for (int r = 0; r < R; ++r)
    for (int q = 0; q < kVecs; ++q) {
      Vec16 v = sum[0][r][q];
      for (int c = 1; c < kChains; ++c) v += sum[c][r][q];
      std::memcpy(acc + r * W + 16 * q, &v, sizeof v);
    }
}

void panel_rows_any(const float* panel, const float* a, int64_t lda, int64_t rows, int64_t k,
                    int64_t width, float* acc) {
  std::fill(acc, acc + rows * width, 0.0f);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t r = 0; r < rows; ++r) {
      const float x = a[r * lda + i];
      const float* w = panel + i * width;
      for (int64_t j = 0; j < width; ++j) acc[r * width + j] += x * w[j];
    }
}

template <int W>
void panel_width_rows(const float* panel, const float* a, int64_t lda, int64_t rows, int64_t k,
                      float* acc) {
  static_assert(kPackedGemvMaxRows == 4);
  switch (rows) {
    case 1:
      return panel_rows<W, 1>(panel, a, lda, k, acc);
    case 2:
      return panel_rows<W, 2>(panel, a, lda, k, acc);
    case 3:
      return panel_rows<W, 3>(panel, a, lda, k, acc);
    default:
      return panel_rows<W, 4>(panel, a, lda, k, acc);
  }
}

// Rows (at most kPackedGemvMaxRows) of A times panel `p`: rows x block sums into acc.
void panel_product(const ColumnPanels& b, int64_t p, const float* a, int64_t rows, float* acc) {
  const float* panel = b.data + p * b.block * b.k;
  switch (b.block) {
    case 16:
      return panel_width_rows<16>(panel, a, b.k, rows, b.k, acc);
    case 32:
      return panel_width_rows<32>(panel, a, b.k, rows, b.k, acc);
    case 48:
      return panel_width_rows<48>(panel, a, b.k, rows, b.k, acc);
    case 64:
      return panel_width_rows<64>(panel, a, b.k, rows, b.k, acc);
    default:
      return panel_rows_any(panel, a, b.k, rows, b.k, b.block, acc);
  }
}

}  // namespace

int64_t column_panel_width(const dnnl::memory::desc& w) {
  const dnnl_memory_desc_t& d = w.data;
  if (d.format_kind != dnnl_blocked || d.ndims != 3 || d.offset0 != 0 || d.extra.flags != 0 ||
      d.data_type != dnnl_f32)
    return 0;
  const dnnl_blocking_desc_t& b = d.format_desc.blocking;
  if (b.inner_nblks != 1 || b.inner_idxs[0] != 0) return 0;
  const int64_t width = b.inner_blks[0], k = d.dims[1];
  if (width < 1 || width > 64 || d.padded_dims[1] != k || d.dims[2] != 1 ||
      d.padded_dims[0] % width != 0)
    return 0;
  // Panel after panel, K rows of `width` floats each.
  if (b.strides[0] != width * k || (k > 1 && b.strides[1] != width)) return 0;
  return width;
}

void packed_gemv(const ColumnPanels& b, const float* a, int64_t rows, float* dst, const float* bias,
                 float beta) {
  require(rows >= 1 && rows <= kPackedGemvMaxRows && b.block >= 1 && b.block <= 64,
          "packed_gemv: rows or panel width out of range");
  const int64_t panels = (b.n + b.block - 1) / b.block;
  const double macs = static_cast<double>(rows) * static_cast<double>(b.k * b.n);
  dnnl_parallel(panels, dnnl_parts(panels, macs, kMinMacsPerPart), [&](int64_t p0, int64_t p1) {
    float acc[kPackedGemvMaxRows * 64];
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t first = p * b.block, count = std::min(b.block, b.n - first);
      panel_product(b, p, a, rows, acc);
      for (int64_t r = 0; r < rows; ++r) {
        float* out = dst + r * b.n + first;
        const float* sums = acc + r * b.block;
        for (int64_t j = 0; j < count; ++j) {
          float v = sums[j] + (bias ? bias[first + j] : 0.0f);
          if (beta != 0.0f) v += beta * out[j];
          out[j] = v;
        }
      }
    }
  });
}

}  // namespace geon::cpu
