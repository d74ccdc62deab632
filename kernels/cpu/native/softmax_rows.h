// geon's own Softmax and LogSoftmax along contiguous float rows (the innermost axis, the form
// transformers use): oneDNN 2.6's AVX2 kernel took about twice ONNX Runtime's time on
// 128-element rows. Three passes over a row that stays in L1: its max, the exponentials and
// their sum, the scaling; exp is core/engine/float_math.h's, which vectorises.
#pragma once

#include <cstdint>

namespace geon::cpu {

// y[r][i] = exp(x[r][i] - max_r) / sum_r, or x[r][i] - max_r - log(sum_r) when `log`, for
// `rows` dense rows of n floats (x and y may be the same buffer). A NaN in a row makes the
// whole row NaN, as in the definition; a row of -inf gives NaN (0 / 0), as the definition does.
void softmax_rows(bool log, const float* x, float* y, int64_t rows, int64_t n);

}  // namespace geon::cpu
