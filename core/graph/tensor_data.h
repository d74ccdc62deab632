// The contents of a constant tensor (an initializer, a Constant node's value, or a value folded
// at import): a dense row-major description over host storage, or a list of strings for
// string tensors. Immutable once built, so graphs share it freely.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/buffer/buffer.h"
#include "core/desc/desc.h"

namespace geon {

struct TensorData {
  TensorDesc desc;  // row-major, offset 0
  // Null for string tensors, and for a constant whose contents were released because every
  // kernel reading it holds a packed copy (without_contents).
  std::shared_ptr<Storage> storage;
  std::vector<std::string> strings;  // only for DType::kString

  const std::byte* bytes() const { return storage ? storage->data() : nullptr; }
  int64_t elements() const { return element_count(desc); }
};

// Fresh zeroed storage for a row-major tensor of this dtype and shape. Throws geon::Error
// (kResourceExhausted) above `max_bytes`, so untrusted shapes cannot allocate without bound.
std::shared_ptr<TensorData> make_tensor_data(DType dtype, const Dims& shape,
                                             int64_t max_bytes = int64_t{1} << 40);
// The same with the storage left uninitialized, for a caller that writes every byte (the
// importer reading a tensor's payload).
std::shared_ptr<TensorData> make_tensor_data_for_overwrite(DType dtype, const Dims& shape,
                                                           int64_t max_bytes = int64_t{1} << 40);

// t's description without its contents: what a constant keeps once all its readers packed it
// (core/runtime/kernel.h: Kernel::packed_inputs).
std::shared_ptr<const TensorData> without_contents(const TensorData& t);

// Element i read as int64 / double (any integer, bool or real dtype). For small shape and
// index tensors; not a fast path.
int64_t element_as_int(const TensorData& t, int64_t i);
double element_as_double(const TensorData& t, int64_t i);

}  // namespace geon
