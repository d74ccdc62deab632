// Cast's attributes as the engines read them: `saturate` (float8 targets) and `round_mode`
// (float8e8m0 targets). Shared by cpu.generic and cuda, so both accept and refuse the same
// Cast and CastLike nodes.
#pragma once

#include "core/dtype/scalar.h"
#include "core/onnx/node.h"

namespace geon::onnx {

// Fills `out` from n's attributes (ONNX defaults: saturate 1, round_mode "up"); a reason when
// round_mode names no ONNX mode, in which case `out` must not be used.
Reason cast_options(const Node& n, CastOptions& out);

}  // namespace geon::onnx
