// ONNX ConvTranspose on oneDNN's deconvolution (conv_core.h does the work): 1-D to 3-D,
// groups, dilations, strides, pads, output_padding, output_shape and auto_pad, with the pads
// resolved by conv_params.cc.
#include "kernels/cpu/dnnl/conv_node.h"
#include "kernels/cpu/dnnl/ops.h"

namespace geon::cpu {

Reason supports_dnnl_conv_transpose(const Graph& g, const Node& n) {
  return conv_node_reason(g, n, ConvNodeKind::kConvTranspose);
}
std::unique_ptr<Kernel> create_dnnl_conv_transpose(const Graph& g, const Node& n) {
  return make_conv_kernel(g, n, ConvNodeKind::kConvTranspose);
}

}  // namespace geon::cpu
