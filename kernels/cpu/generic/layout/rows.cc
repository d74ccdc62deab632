// cpu.generic's layout family: its rows of the kernel table (generic/families.h).
#include "kernels/cpu/generic/families.h"

namespace geon::cpu {

std::span<const KernelEntry> layout_rows() { return {}; }

}  // namespace geon::cpu
