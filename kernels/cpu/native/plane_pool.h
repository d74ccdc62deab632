// geon's own MaxPool and AveragePool over NCHW float planes (1 or 2 spatial dims), where
// oneDNN 2.6 has only its reference kernel and a channels-last copy there and back cost more
// than the pooling: each output row is folded from its window's input rows, a contiguous row
// at a time, so the loop over the output row vectorizes.
#pragma once

#include "core/engine/engine.h"
#include "kernels/cpu/generic/pool/window.h"

namespace geon::cpu {

enum class PlanePool { kMax, kAverageExcludingPad, kAverageIncludingPad };

// y = the pool of x for the geometry g. Max propagates NaN as the ONNX reference does and
// counts pads and ceil_mode's extra positions as -inf; the averages divide by the window's
// positions inside X, or inside X and its pads (never ceil_mode's extra positions). x and y
// float (N, C, spatial...) with unit stride along the last dim and not overlapping. False,
// with nothing written, when the views do not fit this or a window lies wholly outside X.
bool pool_planes(PlanePool kind, const PoolGeometry& g, const ConstOperand& x, const Operand& y);

}  // namespace geon::cpu
