// Memory layouts as cpu.dnnl's convolutions meet them (conv_core.cc and qconv.cc share these):
// dense channels-last descriptions, strided views as oneDNN memory descriptors, and copies
// between two layouts of one shape as cached oneDNN reorders.
#pragma once

#include <cstdint>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/engine.h"
#include "kernels/cpu/conv_params.h"  // channels-last descriptions, shares_memory
#include "kernels/cpu/dnnl/primitive_cache.h"

namespace geon::cpu {

// oneDNN's type for f32, s32, s8 and u8; nullopt for the others.
std::optional<dnnl::memory::data_type> dnnl_dtype(DType t);

// A view as a oneDNN descriptor (length-1 dims get the stride a dense layout would give them);
// nullopt for a dtype oneDNN lacks or a zero or negative stride.
std::optional<dnnl::memory::desc> strided_md(const TensorDesc& d);

// Dense channels-last (N, C, D...) of rank 3 to 5 as oneDNN's format tag (nwc, nhwc, ndhwc): the
// memory of every view is_channels_last() accepts. Strides alone say nothing about length-1
// dims, and with a length-1 spatial extent they read as the plain tag, for which oneDNN's int8
// convolutions have only the reference implementation.
dnnl::memory::desc channels_last_md(DType t, const Dims& shape);

// The address of a view's first element.
void* first_element(const void* base, const TensorDesc& d);

// to = from for views of one shape and dtype in any layouts: a oneDNN reorder made once per
// pair of layouts (several times faster than the engine's strided assign), the engine's assign
// where oneDNN has none. Thread-safe.
class LayoutCopier {
 public:
  explicit LayoutCopier(std::string what) : what_(std::move(what)) {}
  void copy(const Operand& to, const ConstOperand& from) const;

 private:
  struct Reorder;
  std::string what_;  // for messages
  // Null for a pair oneDNN has no reorder for (remembered: the engine's assign copies it).
  PrimitiveCache<std::vector<int64_t>, Reorder> reorders_{256};
};

}  // namespace geon::cpu
