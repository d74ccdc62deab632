// The layout family's entry points: rearrangements (Trilu and EyeLike in triangle.cc,
// DepthToSpace and SpaceToDepth in depth_space.cc, ReverseSequence and CenterCropPad in
// crop_reverse.cc, Col2Im in col2im.cc) and linear algebra (Det in det.cc, Einsum in
// einsum.cc). rows.cc binds them to op names; generic/table.cc appends those rows.
#pragma once

#include <memory>
#include <string>

#include "kernels/cpu/generic/ops.h"

namespace geon::cpu {

GEON_CPU_FAMILY(trilu);
GEON_CPU_FAMILY(eye_like);
GEON_CPU_FAMILY(depth_to_space);
GEON_CPU_FAMILY(space_to_depth);
GEON_CPU_FAMILY(reverse_sequence);
GEON_CPU_FAMILY(center_crop_pad);
GEON_CPU_FAMILY(col2im);
GEON_CPU_FAMILY(det);
GEON_CPU_FAMILY(einsum);

// A reason unless `t` is a dtype that moves through the engine's assign (every numeric dtype,
// complex and string included; undefined is refused). `what` names the operand.
Reason layout_movable_reason(DType t, std::string_view what);

// A rank-0 operand holding the zero of dtype t, for assigns into masked or padded elements:
// 0 converted to t, or the empty string for strings.
ConstOperand layout_zero(DType t);

// "(2, 3, 4)", for the family's error messages.
std::string layout_dims_text(const Dims& d);

}  // namespace geon::cpu
