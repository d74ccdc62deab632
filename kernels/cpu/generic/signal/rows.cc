// cpu.generic's signal family: its rows of the kernel table (generic/families.h). DFT has one
// row per form (the axis is an attribute at 17, an input from 20); the window ops share one
// kernel that reads its coefficients from the op's name.
#include "kernels/cpu/generic/families.h"
#include "kernels/cpu/generic/signal/ops.h"

namespace geon::cpu {
namespace {

const KernelEntry kRows[] = {
    {"", "DFT", 17, supports_dft, create_dft},
    {"", "DFT", 20, supports_dft, create_dft},
    {"", "STFT", 17, supports_stft, create_stft},
    {"", "HannWindow", 17, supports_window, create_window},
    {"", "HammingWindow", 17, supports_window, create_window},
    {"", "BlackmanWindow", 17, supports_window, create_window},
    {"", "MelWeightMatrix", 17, supports_mel_weight_matrix, create_mel_weight_matrix},
};

}  // namespace

std::span<const KernelEntry> signal_rows() { return kRows; }

}  // namespace geon::cpu
