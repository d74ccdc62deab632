// cpu.dnnl's entry points; dnnl_table.cc binds them to ONNX op names.
#pragma once

#include <memory>

#include "kernels/cpu/common.h"

namespace geon::cpu {

Reason supports_dnnl_matmul(const Graph& g, const Node& n);  // dnnl_matmul.cc
std::unique_ptr<Kernel> create_dnnl_matmul(const Graph& g, const Node& n);
Reason supports_dnnl_gemm(const Graph& g, const Node& n);  // dnnl_gemm.cc
std::unique_ptr<Kernel> create_dnnl_gemm(const Graph& g, const Node& n);

}  // namespace geon::cpu
