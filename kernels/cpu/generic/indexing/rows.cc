// cpu.generic's indexing family: its rows of the kernel table (generic/families.h). One row per
// op serves every opset: the kernels read the opset-dependent forms (GatherND's batch_dims,
// ScatterElements' reductions, negative axes) from the node.
#include "kernels/cpu/generic/families.h"
#include "kernels/cpu/generic/indexing/ops.h"

namespace geon::cpu {
namespace {

const KernelEntry kIndexing[] = {
    {"", "GatherElements", 11, supports_gather_elements, create_gather_elements},
    {"", "GatherND", 11, supports_gather_nd, create_gather_nd},
    {"", "Scatter", 9, supports_scatter_elements, create_scatter_elements},
    {"", "ScatterElements", 11, supports_scatter_elements, create_scatter_elements},
    {"", "TensorScatter", 24, supports_tensor_scatter, create_tensor_scatter},
    {"", "Compress", 9, supports_compress, create_compress},
    {"", "OneHot", 9, supports_one_hot, create_one_hot},
    {"", "NonZero", 9, supports_non_zero, create_non_zero},
    {"", "Unique", 11, supports_unique, create_unique},
};

}  // namespace

std::span<const KernelEntry> indexing_rows() { return kIndexing; }

}  // namespace geon::cpu
