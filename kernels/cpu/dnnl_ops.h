// cpu.dnnl's entry points; dnnl_table.cc binds them to ONNX op names.
#pragma once

#include <memory>

#include "kernels/cpu/common.h"

namespace geon::cpu {

Reason supports_dnnl_matmul(const Graph& g, const Node& n);  // dnnl_matmul.cc
std::unique_ptr<Kernel> create_dnnl_matmul(const Graph& g, const Node& n);
Reason supports_dnnl_gemm(const Graph& g, const Node& n);  // dnnl_gemm.cc
std::unique_ptr<Kernel> create_dnnl_gemm(const Graph& g, const Node& n);

class DnnlPackedMatmul;
// Input `input` of the node prepacked as B (alpha folded in) when it is a constant float matrix
// no feed can replace; else null. dnnl_matmul.cc.
std::shared_ptr<const DnnlPackedMatmul> packed_constant(const Graph& g, const Node& n, int input,
                                                        bool transposed, float alpha);

}  // namespace geon::cpu
