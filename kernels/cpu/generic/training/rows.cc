// cpu.generic's training family: its rows of the kernel table (generic/families.h). One row per
// op serves every opset: the versions differ only in the element types they allow.
#include "kernels/cpu/generic/families.h"
#include "kernels/cpu/generic/training/ops.h"

namespace geon::cpu {
namespace {

constexpr std::string_view kTraining = "ai.onnx.preview.training";

const KernelEntry kRows[] = {
    {"", "NegativeLogLikelihoodLoss", 12, supports_loss, create_loss},
    {"", "SoftmaxCrossEntropyLoss", 12, supports_loss, create_loss},
    {kTraining, "Adagrad", 1, supports_optimizer, create_optimizer},
    {kTraining, "Adam", 1, supports_optimizer, create_optimizer},
    {kTraining, "Momentum", 1, supports_optimizer, create_optimizer},
};

}  // namespace

std::span<const KernelEntry> training_rows() { return kRows; }

}  // namespace geon::cpu
