// cpu.generic's layout family: its rows of the kernel table (generic/families.h). One row per op
// serves every opset: later versions only widen the element types or add an attribute (mode of
// DepthToSpace 11) that the kernel reads from the node.
#include "kernels/cpu/generic/families.h"
#include "kernels/cpu/generic/layout/ops.h"

namespace geon::cpu {
namespace {

const KernelEntry kRows[] = {
    {"", "Trilu", 14, supports_trilu, create_trilu},
    {"", "EyeLike", 9, supports_eye_like, create_eye_like},
    {"", "DepthToSpace", 1, supports_depth_to_space, create_depth_to_space},
    {"", "SpaceToDepth", 1, supports_space_to_depth, create_space_to_depth},
    {"", "ReverseSequence", 10, supports_reverse_sequence, create_reverse_sequence},
    {"", "CenterCropPad", 18, supports_center_crop_pad, create_center_crop_pad},
    {"", "Col2Im", 18, supports_col2im, create_col2im},
    {"", "Det", 11, supports_det, create_det},
    {"", "Einsum", 12, supports_einsum, create_einsum},
};

}  // namespace

std::span<const KernelEntry> layout_rows() { return kRows; }

}  // namespace geon::cpu
