// The quant family's entry points (rows.cc binds them to ONNX ops) and the integer product that
// its matrix and convolution kernels share. Each kernel stages its operands dense through the
// engine's assign, so any dtype and any strided view is read the same way.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "kernels/cpu/common.h"

namespace geon::cpu {

// linear.cc: QuantizeLinear and DequantizeLinear, every opset (per tensor, per axis, blocked).
GEON_CPU_FAMILY(quantize_linear);
GEON_CPU_FAMILY(dequantize_linear);
// dynamic.cc: DynamicQuantizeLinear.
GEON_CPU_FAMILY(dynamic_quantize_linear);
// matmul.cc: MatMulInteger and QLinearMatMul (per tensor, per row of a, per column of b).
GEON_CPU_FAMILY(matmul_integer);
GEON_CPU_FAMILY(qlinear_matmul);
// conv.cc: ConvInteger and QLinearConv (per output channel weights' zero point and scale).
GEON_CPU_FAMILY(conv_integer);
GEON_CPU_FAMILY(qlinear_conv);
// bitcast.cc: BitCast.
GEON_CPU_FAMILY(bitcast);

// c = a · b for zero-point-shifted operands: a is (M, K), b is (K, N), c is (M, N), all dense
// row-major int32. Sums wrap modulo 2^32 like ONNX's int32 accumulators. Rows are shared out
// across the thread pool. This is the seam for a oneDNN int8 path: callers hold the unshifted
// int8/uint8 arrays and zero points until they call it.
void int32_product(const int32_t* a, const int32_t* b, int32_t* c, int64_t M, int64_t K, int64_t N);

// Every element of t, dense row-major, as int32 (t's dtype must convert exactly: 8/16-bit
// integers, int32) or as double (any numeric dtype; float8 and packed types decode exactly).
std::vector<int32_t> dense_int32(const TensorRef& t);
std::vector<double> dense_double(const TensorRef& t);

// v rounded to the nearest value of the floating dtype t (float, float16, bfloat16; double and
// every other dtype leave v as it is): the arithmetic of a narrower type, done in double.
double round_to(DType t, double v);

// The range of an integer quantized dtype ([-128, 127] for int8, [0, 3] for uint2...).
struct IntRange {
  double lo, hi;
};
IntRange int_range(DType t);

// Rounds half to even and clamps into r; NaN goes to r.lo (numpy's int32 cast of NaN is the
// most negative value, which the clip then raises to the minimum).
double saturate_round(double v, IntRange r);

}  // namespace geon::cpu
