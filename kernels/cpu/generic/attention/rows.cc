// cpu.generic's attention family: its rows of the kernel table (generic/families.h).
#include "kernels/cpu/generic/families.h"

namespace geon::cpu {

std::span<const KernelEntry> attention_rows() { return {}; }

}  // namespace geon::cpu
