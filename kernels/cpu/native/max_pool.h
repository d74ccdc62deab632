// geon's own 2-D MaxPool over channels-last float tensors. oneDNN 2.6's AVX2 pooling took about
// 1 ms for ResNet's 3x3 stride-2 MaxPool over 64x112x112 on one thread, and its plain-NCHW path
// is its reference kernel (18 ms); this loop over the contiguous channels, split by output rows
// across the session's pool, takes a fraction of that.
#pragma once

#include "core/engine/engine.h"
#include "kernels/cpu/generic/pool/window.h"

namespace geon::cpu {

// y = MaxPool(x) for the geometry g (2 spatial dims; ceil_mode's extra windows and the pads
// count as -inf), NaN-propagating as the ONNX reference's max. x and y (N, C, H, W) float,
// dense channels-last, not overlapping. False, with nothing written, when the views do not
// fit this or a window lies wholly in the padding.
bool max_pool_2d_channels_last(const PoolGeometry& g, const ConstOperand& x, const Operand& y);

}  // namespace geon::cpu
