// The CPU engine's op table: elementwise ops by name, each with one chunk function per compute
// type. A chunk function runs an op over n contiguous elements; the evaluator feeds it chunks
// gathered from strided views. The CUDA backend keeps a table with the same names, so adding
// an op is one entry per backend.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "core/dtype/dtype.h"

namespace geon {

// The types elementwise ops compute in. Narrow float formats compute in float, packed
// integers in int8/uint8 (see compute_dtype).
inline constexpr DType kComputeTypes[] = {
    DType::kFloat, DType::kDouble, DType::kInt8,   DType::kInt16,  DType::kInt32, DType::kInt64,
    DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64, DType::kBool};
inline constexpr int kComputeTypeCount = 11;

// The compute type for values stored as t; throws geon::Error for string and complex.
DType compute_dtype(DType t);
// Position of a compute type in kComputeTypes, or -1.
int compute_index(DType t);

// Constant parameters of an op (clip bounds are operands, not params; this is for the few
// ops with a scalar knob, e.g. leaky_relu's alpha, or two: hard_sigmoid's alpha and beta).
struct OpParams {
  double alpha = 0;
  double beta = 0;
};

// out[i] = op(a[i], b[i], c[i]) for i < n; unused inputs are null.
using ChunkFn = void (*)(int64_t n, void* out, const void* a, const void* b, const void* c,
                         const OpParams& p);

enum class OpResult : uint8_t {
  kSame,  // same type as the compute type
  kBool,  // comparisons and predicates
};

struct OpDef {
  std::string_view name;
  int arity;  // 1, 2 or 3
  OpResult result;
  bool condition_first;           // arg 0 is a condition (bool); the compute type comes from arg 1
  ChunkFn fn[kComputeTypeCount];  // null where the op does not exist for that type
};

// The op named `name`, or null.
const OpDef* find_op(std::string_view name);
// Every op, for tests and for the CUDA backend's check that it has the same names.
std::span<const OpDef> all_ops();

}  // namespace geon
