// cpu.dnnl: the one table mapping ONNX ops to oneDNN-backed kernels. Ops not listed here fall
// through to the next kernel set in the partitioner's priority list (usually cpu.generic).
#include "kernels/cpu/dnnl_ops.h"
#include "kernels/cpu/kernel_sets.h"

namespace geon::cpu {
namespace {

const KernelEntry kDnnl[] = {
    {"", "MatMul", 1, supports_dnnl_matmul, create_dnnl_matmul},
    {"", "Gemm", 7, supports_dnnl_gemm, create_dnnl_gemm},
};

}  // namespace

const KernelSet& dnnl_kernels() {
  static const KernelSet set{"cpu.dnnl", Device{DeviceKind::kHost, 0}, kDnnl};
  return set;
}

}  // namespace geon::cpu
