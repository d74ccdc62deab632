// The CPU device kernel sets: cpu.generic (every op the strided-view engine can express) and
// cpu.dnnl (oneDNN primitives for the ops where a tuned library matters). The partitioner asks
// them in priority order; each entry refuses a node with a reason it can report.
#pragma once

#include "core/runtime/kernel.h"

namespace geon::cpu {

const KernelSet& generic_kernels();  // "cpu.generic"
const KernelSet& dnnl_kernels();     // "cpu.dnnl"

}  // namespace geon::cpu
