// cpu.generic's vision family: its rows of the kernel table (generic/families.h).
#include "kernels/cpu/generic/families.h"
#include "kernels/cpu/generic/vision/ops.h"

namespace geon::cpu {
namespace {

// One row per op serves every version: the kernels read the opset's mode names (GridSample
// 16 vs 20) and attributes (RoiAlign's coordinate_transformation_mode, 16) from the node.
const KernelEntry kRows[] = {
    {"", "GridSample", 16, supports_grid_sample, create_grid_sample},
    {"", "AffineGrid", 20, supports_affine_grid, create_affine_grid},
    {"", "NonMaxSuppression", 10, supports_non_max_suppression, create_non_max_suppression},
    {"", "RoiAlign", 10, supports_roi_align, create_roi_align},
    {"", "DeformConv", 19, supports_deform_conv, create_deform_conv},
};

}  // namespace

std::span<const KernelEntry> vision_rows() { return kRows; }

}  // namespace geon::cpu
