// cpu.generic's quant family: its rows of the kernel table (generic/families.h). One row per op
// serves every opset: the kernels read the version-dependent attributes (axis from 13, saturate
// from 19, block_size and output_dtype from 21, precision) from the node.
#include "kernels/cpu/generic/families.h"
#include "kernels/cpu/generic/quant/ops.h"

namespace geon::cpu {
namespace {

const KernelEntry kRows[] = {
    {"", "QuantizeLinear", 10, supports_quantize_linear, create_quantize_linear},
    {"", "DequantizeLinear", 10, supports_dequantize_linear, create_dequantize_linear},
    {"", "DynamicQuantizeLinear", 11, supports_dynamic_quantize_linear,
     create_dynamic_quantize_linear},
    {"", "MatMulInteger", 10, supports_matmul_integer, create_matmul_integer},
    {"", "QLinearMatMul", 10, supports_qlinear_matmul, create_qlinear_matmul},
    {"", "ConvInteger", 10, supports_conv_integer, create_conv_integer},
    {"", "QLinearConv", 10, supports_qlinear_conv, create_qlinear_conv},
    {"", "BitCast", 26, supports_bitcast, create_bitcast},
};

}  // namespace

std::span<const KernelEntry> quant_rows() { return kRows; }

}  // namespace geon::cpu
