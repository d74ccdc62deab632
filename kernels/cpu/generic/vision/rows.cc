// cpu.generic's vision family: its rows of the kernel table (generic/families.h).
#include "kernels/cpu/generic/families.h"

namespace geon::cpu {

std::span<const KernelEntry> vision_rows() { return {}; }

}  // namespace geon::cpu
