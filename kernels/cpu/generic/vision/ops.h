// The vision family of cpu.generic: sampling grids (GridSample, AffineGrid), detection
// (NonMaxSuppression, RoiAlign) and deformable convolution. One (supports, create) pair per op;
// vision/rows.cc binds them to ONNX op names and opsets.
#pragma once

#include <memory>

#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {

// vision/grid_sample.cc: GridSample 16 (2-D; bilinear, nearest, bicubic) and 20 (N-D; linear,
// nearest, cubic), every padding mode and align_corners.
GEON_CPU_FAMILY(grid_sample);
// vision/affine_grid.cc: AffineGrid 20, 2-D and 3-D.
GEON_CPU_FAMILY(affine_grid);
// vision/non_max_suppression.cc: NonMaxSuppression 10 and 11 (the same semantics).
GEON_CPU_FAMILY(non_max_suppression);
// vision/roi_align.cc: RoiAlign 10 and 16 (coordinate_transformation_mode from 16).
GEON_CPU_FAMILY(roi_align);
// vision/deform_conv.cc: DeformConv 19, any number of spatial dims.
GEON_CPU_FAMILY(deform_conv);

}  // namespace geon::cpu
