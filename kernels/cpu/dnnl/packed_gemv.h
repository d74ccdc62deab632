// A few rows of A times weights packed in oneDNN's column-blocked layout (the 1x1 convolution
// weights DnnlPackedMatmul keeps), with the column blocks split across the pool. oneDNN 2.6
// runs such a product (a classifier at batch 1: one row, 5 MB of weights) on one thread, as
// one position of a 1x1 convolution, at well under the memory bandwidth two threads reach.
#pragma once

#include <cstdint>

#include <oneapi/dnnl/dnnl.hpp>

namespace geon::cpu {

// B (K, N) as oneDNN's (N, K, 1) weights in a layout of `block` consecutive columns per K
// index, one such panel after another (Acb16a ... Acb64a; the last panel zero-padded).
struct ColumnPanels {
  const float* data = nullptr;
  int64_t k = 0, n = 0, block = 0;
};

// The panel width of weights descriptor `w` (N, K, 1), or 0 when it is not such a layout.
int64_t column_panel_width(const dnnl::memory::desc& w);

// Products this few rows and at least this many weights run as packed_gemv.
constexpr int64_t kPackedGemvMaxRows = 4;
constexpr int64_t kPackedGemvMinWeights = int64_t{1} << 16;

// dst (rows, N) = a (rows, K) · B + bias (null: none) + beta·dst, all dense row-major; the
// column panels split across the default thread pool.
void packed_gemv(const ColumnPanels& b, const float* a, int64_t rows, float* dst, const float* bias,
                 float beta);

}  // namespace geon::cpu
