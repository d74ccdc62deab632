// cpu.dnnl's entry points; dnnl/table.cc binds them to ONNX op names.
#pragma once

#include <memory>
#include <vector>

#include "kernels/cpu/common.h"

namespace geon::cpu {

Reason supports_dnnl_matmul(const Graph& g, const Node& n);  // dnnl/matmul.cc
std::unique_ptr<Kernel> create_dnnl_matmul(const Graph& g, const Node& n);
Reason supports_dnnl_gemm(const Graph& g, const Node& n);  // dnnl/gemm.cc
std::unique_ptr<Kernel> create_dnnl_gemm(const Graph& g, const Node& n);
Reason supports_dnnl_fused_matmul(const Graph& g, const Node& n);  // dnnl/fused_matmul.cc
std::unique_ptr<Kernel> create_dnnl_fused_matmul(const Graph& g, const Node& n);
// dnnl/pool.cc: MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool.
Reason supports_dnnl_pool(const Graph& g, const Node& n);
std::unique_ptr<Kernel> create_dnnl_pool(const Graph& g, const Node& n);
// dnnl/softmax.cc: Softmax and LogSoftmax (float) on softmax_v2.
Reason supports_dnnl_softmax(const Graph& g, const Node& n);
std::unique_ptr<Kernel> create_dnnl_softmax(const Graph& g, const Node& n);
// dnnl/norm.cc: LayerNormalization (float) on layer_normalization_forward.
Reason supports_dnnl_layer_norm(const Graph& g, const Node& n);
std::unique_ptr<Kernel> create_dnnl_layer_norm(const Graph& g, const Node& n);

// dnnl/conv.cc and dnnl/conv_transpose.cc: Conv, geon.FusedConv, ConvTranspose (float).
Reason supports_dnnl_conv(const Graph& g, const Node& n);
std::unique_ptr<Kernel> create_dnnl_conv(const Graph& g, const Node& n);
Reason supports_dnnl_fused_conv(const Graph& g, const Node& n);
std::unique_ptr<Kernel> create_dnnl_fused_conv(const Graph& g, const Node& n);
Reason supports_dnnl_conv_transpose(const Graph& g, const Node& n);
std::unique_ptr<Kernel> create_dnnl_conv_transpose(const Graph& g, const Node& n);
// dnnl/pointwise_depthwise.cc: geon.FusedPointwiseDepthwise on the native AVX2 kernel.
Reason supports_dnnl_pointwise_depthwise(const Graph& g, const Node& n);
std::unique_ptr<Kernel> create_dnnl_pointwise_depthwise(const Graph& g, const Node& n);
// dnnl/qconv.cc: geon.QConv and geon.QGemm (core/passes/fuse_qdq.h) on oneDNN's int8
// convolution. For the
// tests: the primitives made so far whose oneDNN implementation is a reference one, and the
// copies made so far (X or Y not dense channels-last, Z not sharing Y's memory), and the runs
// split by output channels.
Reason supports_dnnl_qconv(const Graph& g, const Node& n);
std::unique_ptr<Kernel> create_dnnl_qconv(const Graph& g, const Node& n);
int64_t dnnl_qconv_reference_primitives();
int64_t dnnl_qconv_copies();
int64_t dnnl_qconv_channel_splits();
// dnnl/attention.cc: Attention (float, no past/softcap/qk output) on oneDNN matmul + softmax.
Reason supports_dnnl_attention(const Graph& g, const Node& n);
std::unique_ptr<Kernel> create_dnnl_attention(const Graph& g, const Node& n);

class DnnlPackedMatmul;
// Input `input` of the node prepacked as B (alpha folded in) when it is a constant float matrix
// no feed can replace; else null. Input 0 is A (a matrix stored (K, M) when `a_transposed`),
// whose static rows decide which packings a run could use. dnnl/matmul.cc.
std::shared_ptr<const DnnlPackedMatmul> packed_constant(const Graph& g, const Node& n, int input,
                                                        bool transposed, float alpha,
                                                        bool a_transposed = false);
// What the kernel declares packed (Kernel::packed_inputs): B, input 1, when it was. matmul.cc.
std::vector<int> packed_inputs(const std::shared_ptr<const DnnlPackedMatmul>& packed);
// B's data for a run the packed product cannot take: the input's own, or, when its plain copy
// was released, B unpacked from `packed` (then it holds alpha·B: `scaled`, and the run's alpha
// is 1). matmul.cc.
struct PlainB {
  const void* data = nullptr;
  bool scaled = false;
  std::vector<float> unpacked;
};
PlainB plain_b(const KernelContext& ctx, const DnnlPackedMatmul* packed);

}  // namespace geon::cpu
