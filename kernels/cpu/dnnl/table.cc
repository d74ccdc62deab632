// cpu.dnnl: the one table mapping ONNX ops to oneDNN-backed kernels. Ops not listed here fall
// through to the next kernel set in the partitioner's priority list (usually cpu.generic).
#include "kernels/cpu/dnnl/ops.h"
#include "kernels/cpu/kernel_sets.h"

namespace geon::cpu {
namespace {

const KernelEntry kDnnl[] = {
    {"", "MatMul", 1, supports_dnnl_matmul, create_dnnl_matmul},
    {"", "Gemm", 1, supports_dnnl_gemm, create_dnnl_gemm},
    {"geon", "FusedMatMul", 1, supports_dnnl_fused_matmul, create_dnnl_fused_matmul},
    {"", "MaxPool", 1, supports_dnnl_pool, create_dnnl_pool},
    {"", "AveragePool", 1, supports_dnnl_pool, create_dnnl_pool},
    {"", "GlobalMaxPool", 1, supports_dnnl_pool, create_dnnl_pool},
    {"", "GlobalAveragePool", 1, supports_dnnl_pool, create_dnnl_pool},
    {"", "Softmax", 1, supports_dnnl_softmax, create_dnnl_softmax},
    {"", "LogSoftmax", 1, supports_dnnl_softmax, create_dnnl_softmax},
    {"", "LayerNormalization", 17, supports_dnnl_layer_norm, create_dnnl_layer_norm},
    {"", "Conv", 1, supports_dnnl_conv, create_dnnl_conv},
    {"", "Conv", 11, supports_dnnl_conv, create_dnnl_conv},
    {"", "ConvTranspose", 1, supports_dnnl_conv_transpose, create_dnnl_conv_transpose},
    {"", "ConvTranspose", 11, supports_dnnl_conv_transpose, create_dnnl_conv_transpose},
    {"geon", "FusedConv", 1, supports_dnnl_fused_conv, create_dnnl_fused_conv},
    {"geon", "FusedPointwiseDepthwise", 1, supports_dnnl_pointwise_depthwise,
     create_dnnl_pointwise_depthwise},
    {"geon", "QConv", 1, supports_dnnl_qconv, create_dnnl_qconv},
    {"geon", "QGemm", 1, supports_dnnl_qconv, create_dnnl_qconv},
    {"", "Attention", 23, supports_dnnl_attention, create_dnnl_attention},
};

}  // namespace

const KernelSet& dnnl_kernels() {
  static const KernelSet set{"cpu.dnnl", Device{DeviceKind::kHost, 0}, kDnnl};
  return set;
}

}  // namespace geon::cpu
