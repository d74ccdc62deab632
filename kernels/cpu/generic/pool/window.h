// The sliding window of MaxPool, AveragePool and LpPool as both CPU kernel sets see it: the
// node's attributes, and per run the resolved geometry (output lengths, begin and end pads with
// auto_pad applied, ceil_mode's extra windows) by the importer's formulas.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/common.h"

namespace geon::cpu {

enum class PoolPad { kNotSet, kSameUpper, kSameLower, kValid };

// What a pooling node says about its window (defaults filled in; global pools have none).
struct PoolAttrs {
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads: all begins, then all ends
  PoolPad auto_pad = PoolPad::kNotSet;
  bool ceil_mode = false;
  int spatial() const { return static_cast<int>(kernel.size()); }
};

// Reads kernel_shape, strides, dilations, pads, auto_pad and ceil_mode.
PoolAttrs read_pool_attrs(const Node& n);
// A reason unless the attributes describe a window a kernel can run (lengths, values >= 1).
Reason pool_attrs_reason(const Node& n);

// One run's window over X (N, C, D1, ...). A window position o * stride - pad_begin +
// k * dilation on dim i reads X when it lies in [0, in); it lies in the padded extent when in
// [-pad_begin, in + pad_end) (positions past it, from ceil_mode, are never read nor counted).
struct PoolGeometry {
  std::vector<int64_t> in, out, kernel, strides, dilations, pad_begin, pad_end;
  int spatial() const { return static_cast<int>(in.size()); }
};

// The geometry for an input of shape x (rank spatial + 2); throws naming `op` when the window
// does not fit the padded input or the rank is wrong.
PoolGeometry pool_geometry(const std::string& op, const PoolAttrs& a, const Dims& x);
// A global pool's geometry: the window is every spatial dim, output length 1.
PoolGeometry global_geometry(const std::string& op, const Dims& x);
// Y's shape: (N, C, out...).
Dims pool_output_shape(const Dims& x, const PoolGeometry& g);

}  // namespace geon::cpu
