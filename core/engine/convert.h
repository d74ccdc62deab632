// Strided conversion between element types: the engine's gather (any stored dtype into a
// contiguous compute-type chunk) and scatter (a chunk back into any strided destination).
// Common types take typed loops; float8, float4, packed integers and complex go through the
// exact element-by-element path of core/dtype/scalar.h, so every pair of numeric dtypes works.
#pragma once

#include <cstdint>

#include "core/dtype/dtype.h"
#include "core/dtype/scalar.h"

namespace geon {

// Copies n elements: element src_first + i*src_stride of src_base (dtype `from`) to element
// dst_first + i*dst_stride of dst_base (dtype `to`), converting as ONNX Cast does.
// Offsets and strides are in elements, so packed sub-byte dtypes are addressed exactly.
void convert_strided(DType from, const void* src_base, int64_t src_first, int64_t src_stride,
                     DType to, void* dst_base, int64_t dst_first, int64_t dst_stride, int64_t n,
                     const CastOptions& opt = {});

// True when a pair converts through the typed loops (used by tests to cover both paths).
bool has_typed_conversion(DType from, DType to);

}  // namespace geon
