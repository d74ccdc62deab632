// cpu.generic's indexing family: one (supports, create) pair per import-rule shape, bound to
// ONNX op names and opsets in indexing/rows.cc. Every kernel reads its inputs through their
// descriptions and checks every index before it writes anything. String data moves as 16-byte
// handles; NonZero and Unique read the bytes, and the scatter reductions refuse strings.
#pragma once

#include <memory>

#include "kernels/cpu/common.h"

namespace geon::cpu {

GEON_CPU_FAMILY(gather_elements);   // gather_elements.cc
GEON_CPU_FAMILY(gather_nd);         // gather_nd.cc: batch_dims from opset 12
GEON_CPU_FAMILY(scatter_elements);  // scatter_elements.cc: Scatter (9) and ScatterElements
GEON_CPU_FAMILY(tensor_scatter);    // tensor_scatter.cc (24)
GEON_CPU_FAMILY(compress);          // compress.cc
GEON_CPU_FAMILY(one_hot);           // one_hot.cc
GEON_CPU_FAMILY(non_zero);          // non_zero.cc
GEON_CPU_FAMILY(unique);            // unique.cc

}  // namespace geon::cpu
