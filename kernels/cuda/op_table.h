// The CUDA backend's op table: the same op names, arities, result kinds and per-type coverage
// as the CPU table (core/engine/ops.h), generated from op_list.h. The host reads it to encode
// expressions for the device; a test checks it against the CPU table name by name.
#pragma once

#include <span>
#include <string_view>

#include "core/engine/ops.h"
#include "kernels/cuda/op_list.h"

namespace geon::cuda {

struct CudaOpDef {
  std::string_view name;
  OpId id;
  int arity;
  OpResult result;
  bool condition_first;
  bool types[kComputeTypeCount];  // exists for compute type kComputeTypes[i]
};

// The op named `name`, or null.
const CudaOpDef* find_op(std::string_view name);
std::span<const CudaOpDef> all_ops();

// CPU ops the CUDA table deliberately lacks, each with the reason. Empty today: every CPU op
// runs on CUDA; an op added to the CPU table first must be listed here until it has a row.
struct NotOnCuda {
  std::string_view name;
  std::string_view reason;
};
std::span<const NotOnCuda> ops_not_on_cuda();

}  // namespace geon::cuda
