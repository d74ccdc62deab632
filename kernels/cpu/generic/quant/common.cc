// The quant family's shared pieces: dense staging of operands, rounding into a narrower float
// type, integer ranges with half-to-even saturation, and the int32 product of the matrix and
// convolution kernels.
#include <algorithm>
#include <cmath>

#include "core/base/error.h"
#include "core/dtype/half.h"
#include "kernels/cpu/generic/ops.h"
#include "kernels/cpu/generic/quant/ops.h"

namespace geon::cpu {

std::vector<int32_t> dense_int32(const TensorRef& t) {
  std::vector<int32_t> v(static_cast<size_t>(std::max<int64_t>(element_count(t.desc), 1)));
  if (element_count(t.desc) > 0)
    assign(Operand{row_major(DType::kInt32, t.desc.shape), v.data()}, src_of(t));
  v.resize(static_cast<size_t>(element_count(t.desc)));
  return v;
}

std::vector<double> dense_double(const TensorRef& t) {
  std::vector<double> v(static_cast<size_t>(std::max<int64_t>(element_count(t.desc), 1)));
  if (element_count(t.desc) > 0)
    assign(Operand{row_major(DType::kDouble, t.desc.shape), v.data()}, src_of(t));
  v.resize(static_cast<size_t>(element_count(t.desc)));
  return v;
}

double round_to(DType t, double v) {
  switch (t) {
    case DType::kFloat:
      return static_cast<float>(v);
    case DType::kFloat16:
      return half_to_float(double_to_half(v));
    case DType::kBFloat16:
      return bfloat16_to_float(double_to_bfloat16(v));
    default:
      return v;
  }
}

IntRange int_range(DType t) {
  switch (t) {
    case DType::kUInt8:
      return {0, 255};
    case DType::kInt8:
      return {-128, 127};
    case DType::kUInt16:
      return {0, 65535};
    case DType::kInt16:
      return {-32768, 32767};
    case DType::kInt32:
      return {-2147483648.0, 2147483647.0};
    case DType::kUInt4:
      return {0, 15};
    case DType::kInt4:
      return {-8, 7};
    case DType::kUInt2:
      return {0, 3};
    case DType::kInt2:
      return {-2, 1};
    default:
      fail(ErrorCode::kInternal, "no integer range for " + std::string(dtype_name(t)));
  }
}

double saturate_round(double v, IntRange r) {
  if (std::isnan(v)) return r.lo;
  return std::clamp(std::nearbyint(v), r.lo, r.hi);  // the default rounding mode: ties to even
}

void int32_product(const int32_t* a, const int32_t* b, int32_t* c, int64_t M, int64_t K,
                   int64_t N) {
  if (M <= 0 || N <= 0) return;
  parallel_rows(M, K * N, [&](int64_t lo, int64_t hi) {
    std::vector<uint32_t> acc(static_cast<size_t>(N));
    for (int64_t i = lo; i < hi; ++i) {
      std::fill(acc.begin(), acc.end(), 0u);
      const int32_t* ar = a + i * K;
      // i-k-j: the inner loop runs along a row of b and of c, contiguous in both. Unsigned
      // arithmetic wraps without undefined behaviour and gives int32's two's complement bits.
      for (int64_t k = 0; k < K; ++k) {
        const uint32_t x = static_cast<uint32_t>(ar[k]);
        if (x == 0) continue;
        const int32_t* bk = b + k * N;
        for (int64_t j = 0; j < N; ++j) acc[j] += x * static_cast<uint32_t>(bk[j]);
      }
      int32_t* cr = c + i * N;
      for (int64_t j = 0; j < N; ++j) cr[j] = static_cast<int32_t>(acc[j]);
    }
  });
}

}  // namespace geon::cpu
