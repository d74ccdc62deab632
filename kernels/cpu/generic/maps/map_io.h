// Reading map values fed to a kernel and building the tensors of new ones: the checks every
// map input gets (two 1-D tensors of one length, of the declared dtypes), and owned 1-D
// tensors for the keys and values of a map output.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/runtime/executor.h"
#include "kernels/cpu/common.h"

namespace geon::cpu {

// One map's entries in its stored order. Duplicate keys are left for the op to resolve
// (each op takes the later entry, as a dict built from the pairs would).
struct MapEntries {
  std::vector<int64_t> int_keys;           // int64 keys
  std::vector<std::string_view> str_keys;  // string keys (views of the handles' bytes)
  DType value_dtype = DType::kUndefined;
  std::vector<std::byte> values;  // dense copy: element k at k * element_bytes
  size_t element_bytes = 0;
  size_t size = 0;
  const std::byte* value(size_t k) const { return values.data() + k * element_bytes; }
};

// Input i of ctx as a map with keys of `key` and values of `value`; a kInvalidArgument Error
// naming `op` when it is not two 1-D tensors of one length and those dtypes.
MapEntries read_map(const KernelContext& ctx, int i, DType key, DType value, std::string_view op);

// A dense 1-D tensor of `n` elements of dtype t, zero-filled (strings: empty).
OwnedTensor owned_vector(DType t, size_t n);
// A 1-D string tensor holding `text`, its bytes in an arena the tensor owns (so it may outlive
// the run and the kernel that made it).
OwnedTensor owned_strings(std::span<const std::string> text);

}  // namespace geon::cpu
