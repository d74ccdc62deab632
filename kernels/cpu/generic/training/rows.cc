// cpu.generic's training family: its rows of the kernel table (generic/families.h).
#include "kernels/cpu/generic/families.h"

namespace geon::cpu {

std::span<const KernelEntry> training_rows() { return {}; }

}  // namespace geon::cpu
