// Forms of desc.h's constructors that write over an existing description, reusing the memory
// of its vectors: the run path's, which then allocates nothing once `d` has held a description
// of that rank. Same checks and errors as the returning forms.
#pragma once

#include <cstdint>
#include <span>

#include "core/desc/desc.h"

namespace geon {

// row_major(dtype, shape) into `d`; `shape` must not view d's own vectors.
void row_major_into(TensorDesc& d, DType dtype, std::span<const int64_t> shape);

}  // namespace geon
